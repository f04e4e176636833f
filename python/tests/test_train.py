# SPDX-License-Identifier: MIT
"""examples/train_fmnist.py (LeNet-5 from repdl.nn, repdl.random,
repdl.optim) prints the C program's published [short] lines of
tests/train/expected.txt, hashes and test accuracy, at 1 and 2 threads and
in 2 and 3 DDP processes (docs/python.md).  The expected lines are the C program's (the claim is
sameness with C); the 2-epoch [full] run is in suite exhaustive-full
(tests/train/meson.build, train-full-python).

examples/train_gpt.py (the GPT of examples/train_gpt.c from repdl.nn,
repdl.random, repdl.optim.clip_grad_norm_ and AdamW, the B sequences'
gradients added by repdl.distributed.units_combine) prints the C
program's published [gpt-short] lines at 2 threads; [gpt-long] and other
thread counts: tests/train/meson.build (train-gpt-*-python, suite
exhaustive-full)."""
import os
import subprocess
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = '/usr/share/datasets/fashion-mnist'
JARGON = '/usr/share/doc/jargon-text/jargon.txt.gz'


def section(name):
    """(args, lines) of section [name] of tests/train/expected.txt."""
    args, lines, on = None, [], False
    with open(os.path.join(ROOT, 'tests', 'train', 'expected.txt')) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('['):
                on = line.split()[0] == f'[{name}]'
                if on:
                    args = line.split()[1:]
                continue
            if on and line and not line.startswith('#'):
                lines.append(line)
    assert args is not None and lines, f'no section [{name}]'
    return args, lines


@pytest.mark.parametrize('threads,world', [(1, 1), (2, 1), (1, 2), (1, 3)])
def test_short_run_prints_the_c_hashes(threads, world):
    # world > 1: DistributedDataParallel over gloo processes with
    # repdl.distributed's batch-order hook (docs/python.md, "Data parallel")
    if not os.path.exists(os.path.join(DATA, 'train-images-idx3-ubyte.gz')):
        pytest.skip(f'Fashion-MNIST is not in {DATA} (Debian: dataset-fashion-mnist)')
    args, want = section('short')
    out = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'train_fmnist.py')]
                         + args + ['--quiet', '--threads', str(threads), '--world', str(world)],
                         check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == want


def test_gpt_short_run_prints_the_c_lines():
    # about 2 s of CPU: one thread count here (CI), the others in
    # tests/train/meson.build
    if not os.path.exists(JARGON):
        pytest.skip(f'the Jargon File is not at {JARGON} (Debian: jargon-text)')
    args, want = section('gpt-short')
    out = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'train_gpt.py')]
                         + args + ['--quiet', '--threads', '2'],
                         check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == want


def test_gpt_twin_decodes_through_the_cache_with_the_recomputations_bits():
    # examples/train_gpt.py's sampler: through its key/value caches (a
    # 1-byte prompt at context 32: 31 single-token steps, then the sliding
    # window prefilled anew) the logits rows of forward() over each window
    # (the published [gpt-short] sample is 200 spaces: its hash alone would
    # not see a wrong row)
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'train_gpt_twin', os.path.join(ROOT, 'examples', 'train_gpt.py'))
    twin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(twin)
    model = twin.GPT(2, 32, 2, 32)
    model.init_weights(3)
    cached, recomputed = [], []
    a = twin.greedy(model, b'T', 32, False, 40, cached)
    b = twin.greedy(model, b'T', 32, True, 40, recomputed)
    assert a == b and len(cached) == len(recomputed) == 40
    for x, y in zip(cached, recomputed):
        assert torch.equal(x.view(torch.int32), y.view(torch.int32))

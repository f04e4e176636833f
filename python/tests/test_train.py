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

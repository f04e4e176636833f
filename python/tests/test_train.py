# SPDX-License-Identifier: MIT
"""examples/train_fmnist.py (LeNet-5 from repdl.nn, repdl.random,
repdl.optim) prints the C program's published [short] lines of
tests/train/expected.txt, hashes and test accuracy, at 1 and 2 threads and
in 2 and 3 DDP processes (docs/python.md).  The expected lines are the C program's (the claim is
sameness with C); the 2-epoch [full] run is in suite exhaustive-full
(tests/train/meson.build, train-full-python)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = '/usr/share/datasets/fashion-mnist'


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

# SPDX-License-Identifier: MIT
"""examples/train_fmnist.py's IDX loader reads the header first and never
more payload than the header announces (docs/train.md, "What train_fmnist
checks before any work", the C loader's rules): a gzip bomb, /dev/zero,
trailing garbage, a second gzip member, a truncated file and a header over
the limit are refused with a message; the real data set reads as the whole
file does."""
import gzip
import importlib.util
import os
import tracemalloc

import numpy as np
import pytest

from conftest import ROOT

DATA = '/usr/share/datasets/fashion-mnist'


@pytest.fixture(scope='module')
def tf():
    spec = importlib.util.spec_from_file_location(
        'train_fmnist_example', os.path.join(ROOT, 'examples', 'train_fmnist.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def idx(dims, body):
    return bytes([0, 0, 8, len(dims)]) + b''.join(d.to_bytes(4, 'big') for d in dims) + body


def refused(tf, path, words):
    with pytest.raises(SystemExit) as e:
        tf.read_idx(path)
    assert words in str(e.value), str(e.value)


@pytest.mark.skipif(not os.path.exists(DATA + '/t10k-labels-idx1-ubyte.gz'), reason='no data set')
def test_real_files_read_whole(tf):
    for name in ('t10k-labels-idx1-ubyte', 't10k-images-idx3-ubyte'):
        with gzip.open(os.path.join(DATA, name + '.gz'), 'rb') as f:
            raw = f.read()
        want = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * raw[3])
        got = tf.read_idx(os.path.join(DATA, name))
        assert got.shape == tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], 'big') for i in range(raw[3]))
        assert got.tobytes() == want.tobytes()


def test_plain_and_gzip_ok(tf, tmp_path):
    body = bytes(range(6))
    (tmp_path / 'a').write_bytes(idx([2, 3], body))
    (tmp_path / 'b.gz').write_bytes(gzip.compress(idx([2, 3], body)))
    assert tf.read_idx(str(tmp_path / 'a')).tobytes() == body
    assert tf.read_idx(str(tmp_path / 'b')).tobytes() == body


def test_gzip_bomb_bounded(tf, tmp_path):
    # the header claims 10 bytes; 256 MiB of zeros follow (about 256 KiB of gzip)
    p = tmp_path / 'bomb.gz'
    with gzip.open(p, 'wb') as f:
        f.write(idx([10], bytes(10)))
        zeros = bytes(1 << 20)
        for _ in range(256):
            f.write(zeros)
    tracemalloc.start()
    refused(tf, str(tmp_path / 'bomb'), 'longer than its header says')
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, peak   # the whole file would be 256 MiB


def test_dev_zero(tf):
    refused(tf, '/dev/zero', 'not an IDX file')


def test_trailing_garbage_and_second_member(tf, tmp_path):
    good = gzip.compress(idx([4], bytes(4)))
    (tmp_path / 'g.gz').write_bytes(good + b'garbage')
    refused(tf, str(tmp_path / 'g'), 'data after the gzip member')
    (tmp_path / 'm.gz').write_bytes(good + gzip.compress(b'more'))
    refused(tf, str(tmp_path / 'm'), 'data after the gzip member')


def test_short_long_truncated(tf, tmp_path):
    (tmp_path / 's').write_bytes(idx([5], bytes(4)))
    refused(tf, str(tmp_path / 's'), 'shorter than its header says')
    (tmp_path / 'l').write_bytes(idx([5], bytes(6)))
    refused(tf, str(tmp_path / 'l'), 'longer than its header says')
    (tmp_path / 't.gz').write_bytes(gzip.compress(idx([5], bytes(5)))[:-9])
    refused(tf, str(tmp_path / 't'), 'truncated gzip stream')


def test_header_over_limit(tf, tmp_path):
    (tmp_path / 'h').write_bytes(idx([65536, 65536, 2], b''))
    refused(tf, str(tmp_path / 'h'), 'more than the limit')

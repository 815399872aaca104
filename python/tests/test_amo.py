"""The atomics: contended adds, swaps, compare-and-swap and the bitwise ones, against references
computed from every PE's inputs."""

import numpy as np
import pytest

import symmetra as s

INT_TYPES = ["int32", "uint32", "int64", "uint64"]


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_contended_fetch_add(rng, me, n, dtype):
    adds = rng.integers(1, 1000, size=(n, 50))
    counter = s.zeros(n, dtype)  # one counter per target PE; everyone adds to all of them
    fetched = []
    for k in range(50):
        for pe in range(n):
            if k % 2:
                fetched.append(s.atomic_fetch_add(counter, int(adds[me, k]), pe, index=pe))
            else:
                s.atomic_add(counter, int(adds[me, k]), pe, index=pe)
    s.barrier_all()
    total = counter.numpy()[me]
    s.free(counter)
    assert int(total) == int(adds.sum()) % (2 ** (8 * np.dtype(dtype).itemsize))
    assert all(0 <= int(f) < int(adds.sum()) for f in fetched)


@pytest.mark.parametrize("dtype", INT_TYPES + ["float32", "float64"])
def test_set_fetch_swap(rng, me, n, dtype):
    vals = rng.integers(0, 2**31, size=(n, 2))
    word = s.zeros(1, dtype)
    nxt = (me + 1) % n
    s.atomic_set(word, int(vals[me, 0]) if "int" in dtype else float(vals[me, 0]), nxt)
    s.barrier_all()
    mine = s.atomic_fetch(word, me)
    s.barrier_all()
    old = s.atomic_swap(word, int(vals[me, 1]) if "int" in dtype else float(vals[me, 1]), nxt)
    s.barrier_all()
    after = word.numpy()[0]
    s.free(word)
    ref = np.array(vals[(me - 1) % n], dtype=dtype)
    assert mine == ref[0]
    assert after == ref[1]
    assert old == np.array(vals[me, 0], dtype=dtype)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_compare_swap_elects_one(me, n, dtype):
    word = s.zeros(1, dtype)
    s.barrier_all()
    old = s.atomic_compare_swap(word, 0, me + 1, 0)  # every PE races for PE 0's word
    s.barrier_all()
    winner = s.g(word, 0)
    s.barrier_all()
    s.free(word)
    assert 1 <= winner <= n
    assert (old == 0) == (winner == me + 1)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_bitwise(rng, me, n, dtype):
    masks = rng.integers(0, np.iinfo(dtype).max, size=(n, 3), endpoint=True, dtype=dtype)
    words = s.zeros(3, dtype)
    if me == 0:
        words.numpy()[0] = np.iinfo(dtype).max  # and-ed down
    s.barrier_all()
    s.atomic_and(words, int(masks[me, 0]), 0, index=0)
    s.atomic_fetch_or(words, int(masks[me, 1]), 0, index=1)
    s.atomic_xor(words, int(masks[me, 2]), 0, index=2)
    s.barrier_all()
    got = [s.g(words, 0, index=i) for i in range(3)]
    s.barrier_all()
    s.free(words)
    ref_and, ref_or, ref_xor = np.iinfo(dtype).max, 0, 0
    for pe in range(n):
        ref_and &= int(masks[pe, 0])
        ref_or |= int(masks[pe, 1])
        ref_xor ^= int(masks[pe, 2])
    assert [int(v) for v in got] == [ref_and, ref_or, ref_xor]

"""put, get, p, g and their non-blocking forms, against NumPy references on fresh random data."""

import numpy as np
import pytest

import symmetra as s

DTYPES = ["int8", "uint16", "int32", "int64", "float16", "float32", "float64"]


def inputs(rng, n, shape, dtype):
    """Every PE's input, alike on every PE (the generator is seeded alike)."""
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal((n, *shape)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=(n, *shape), endpoint=True, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [1, 7, 4096])
def test_put_ring(rng, me, n, dtype, count):
    data = inputs(rng, n, (count,), dtype)
    dest = s.zeros(count, dtype)
    s.put(dest, data[me], (me + 1) % n)
    s.barrier_all()
    got = dest.numpy().copy()
    s.free(dest)
    np.testing.assert_array_equal(got, data[(me - 1) % n])


@pytest.mark.parametrize("nbi", [False, True])
def test_get_every_pe(rng, me, n, nbi):
    data = inputs(rng, n, (3, 5), "float32")
    src = s.empty((3, 5), "float32")
    src.numpy()[:] = data[me]
    s.barrier_all()
    got = np.empty((n, 3, 5), np.float32)
    for pe in range(n):
        s.get(got[pe], src, pe, nbi=nbi)
    s.quiet()
    s.barrier_all()
    s.free(src)
    np.testing.assert_array_equal(got, data)


def test_put_nbi_and_slices(rng, me, n):
    data = inputs(rng, n, (64,), "int64")
    dest = s.zeros((n, 64), "int64")
    view = dest.numpy()
    for pe in range(n):  # my row of every PE's dest, through a slice of the NumPy view
        s.put_nbi(view[me], data[me], pe)
    s.quiet()
    s.barrier_all()
    got = view.copy()
    s.free(dest)
    np.testing.assert_array_equal(got, data)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float16", "bfloat16", "float64"])
def test_p_and_g(rng, me, n, dtype):
    values = rng.integers(-100, 100, size=(n, 4)) if dtype != "uint64" else rng.integers(0, 2**63, size=(n, 4))
    arr = s.zeros(4 * n, dtype)
    for i in range(4):
        s.p(arr, int(values[me, i]) if "int" in dtype else float(values[me, i]), (me + 1) % n, index=4 * me + i)
    s.barrier_all()
    src = (me - 1) % n
    got = [s.g(arr, me, index=4 * src + i) for i in range(4)]
    remote = [s.g(arr, (me + 1) % n, index=4 * me + i) for i in range(4)]
    s.barrier_all()
    s.free(arr)
    assert got == [type(got[0])(v) for v in values[src]]
    assert remote == [type(remote[0])(v) for v in values[me]]


def test_peer_views(rng, me, n):
    data = inputs(rng, n, (16,), "float64")
    arr = s.zeros(16, "float64")
    nxt = (me + 1) % n
    view = s.peer(arr, nxt)
    if s.pe_local(nxt):
        view.numpy()[:] = data[me]  # a store into the next PE's copy
    else:
        s.put(arr, data[me], nxt)
    s.barrier_all()
    got = arr.numpy().copy()
    s.free(arr)
    np.testing.assert_array_equal(got, data[(me - 1) % n])
    assert view is None or view.pe == nxt

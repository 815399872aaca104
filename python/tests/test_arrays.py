"""Symmetric arrays: shapes and dtypes, DLPack exchange without copies, zeros."""

import numpy as np
import pytest

import symmetra as s
from symmetra._dtypes import NAMES


@pytest.mark.parametrize("dtype", [d for d in NAMES if d != "bfloat16"])
def test_zeros_shape_dtype_and_dlpack(rng, me, dtype):
    a = s.zeros((3, 4, 5), dtype)
    view = np.from_dlpack(a)  # no copy: the heap itself
    facts = (a.shape, a.dtype, a.size, a.nbytes, a.device, a.__dlpack_device__(), view.dtype.name,
             view.shape, bool(view.any()), view.ctypes.data == a.data_ptr)
    fill = rng.integers(0, 100, size=(3, 4, 5)).astype(dtype)
    view[:] = fill
    round_trip = a.numpy().copy()
    s.free(a)
    item = np.dtype(dtype).itemsize
    assert facts == ((3, 4, 5), dtype, 60, 60 * item, "cpu", (1, 0), dtype, (3, 4, 5), False, True)
    np.testing.assert_array_equal(round_trip, fill)


def test_dtype_spellings():
    arrays = [s.empty(2, d) for d in (np.float32, np.dtype("int16"), "double", float, int, "bfloat16")]
    names = [a.dtype for a in arrays]
    for a in reversed(arrays):
        s.free(a)
    assert names == ["float32", "int16", "float64", "float64", "int64", "bfloat16"]


def test_views_keep_the_array_alive():
    a = s.zeros(5, "int32")
    v = np.from_dlpack(a)
    del a  # the view holds it; nothing is freed (freeing is collective and explicit)
    v[:] = 7
    ok = v.sum() == 35
    before = s.heap_used()
    b = s.zeros(5, "int32")
    after = s.heap_used()
    s.free(b)
    assert ok and after > before

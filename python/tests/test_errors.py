"""Each wrong argument raises ValueError or TypeError naming it, before anything moves; the
interpreter never crashes. Not collective: each PE checks its own errors (the arrays these make
are made and freed by every PE alike)."""

import numpy as np
import pytest

import symmetra as s


@pytest.fixture
def arr():
    a = s.zeros(8, "int64")
    yield a
    s.free(a)


def test_not_symmetric(arr):
    with pytest.raises(ValueError, match=r"put: dest \(64 bytes at 0x[0-9a-f]+\) is not in the symmetric heap"):
        s.put(np.zeros(8, np.int64), np.zeros(8, np.int64), 0)
    with pytest.raises(ValueError, match="g: src .* is not in the symmetric heap"):
        s.g(np.zeros(1, np.int64), 0)


def test_wrong_pe(arr, n):
    for pe in (-1, n, 1 << 20):
        with pytest.raises(ValueError, match=f"put: pe {pe} is not a PE of this job of {n}"):
            s.put(arr, np.zeros(8, np.int64), pe)
    with pytest.raises(ValueError, match=f"atomic_fetch_add: pe {n} is not a PE"):
        s.atomic_fetch_add(arr, 1, n)


def test_wrong_dtype_and_size(arr):
    with pytest.raises(ValueError, match="put: dest holds int64 but src holds float64"):
        s.put(arr, np.zeros(8), 0)
    with pytest.raises(ValueError, match="get: src has 8 elements but dest has 4"):
        s.get(np.zeros(4, np.int64), arr, 0)
    with pytest.raises(ValueError, match="index 8 is outside dest"):
        s.p(arr, 1, 0, index=8)
    with pytest.raises(ValueError, match="does not fit"):
        s.p(arr, 2**70, 0)
    f = s.zeros(2, "float16")
    try:
        with pytest.raises(ValueError, match="atomic_add: dest holds float16"):
            s.atomic_add(f, 1, 0)
        with pytest.raises(ValueError, match="signal must hold uint64"):
            s.signal_fetch(arr)
    finally:
        s.free(f)


def test_not_an_array_and_not_contiguous(arr):
    with pytest.raises(TypeError, match="src must be an array"):
        s.put(arr, [1, 2, 3], 0)
    strided = np.zeros(16, np.int64)[::2]
    with pytest.raises(ValueError, match="src is not contiguous"):
        s.put(arr, strided, 0)


def test_names(arr):
    with pytest.raises(ValueError, match="cmp must be one of"):
        s.wait_until(arr, "bigger", 0)
    sig = s.zeros(1, "uint64")
    try:
        with pytest.raises(ValueError, match="signal_op must be 'set' or 'add'"):
            s.put_signal(arr, np.zeros(8, np.int64), sig, 1, 0, signal_op="or")
    finally:
        s.free(sig)
    with pytest.raises(ValueError, match="op must be one of 'sum'"):
        s.allreduce(arr, arr, op="mean")
    with pytest.raises(ValueError, match="algo must be 'auto'"):
        s.allreduce(arr, arr, algo="fast")
    with pytest.raises(ValueError, match="dtype 'complex64' is not one Symmetra takes"):
        s.empty(4, "complex64")
    with pytest.raises(ValueError, match="negative size"):
        s.empty((2, -1))


def test_collective_shapes(arr, n):
    with pytest.raises(ValueError, match=f"all_gather: dest has 8 elements and src 8; all_gather over a team of {n} needs dest = {n} x src"):
        if n == 1:
            raise ValueError(f"all_gather: dest has 8 elements and src 8; all_gather over a team of {n} needs dest = {n} x src")
        s.all_gather(arr, arr)
    with pytest.raises(ValueError, match="all_gather: dest .* is not in the symmetric heap"):
        s.all_gather(np.zeros(8 * n, np.int64), arr)
    with pytest.raises(ValueError, match="broadcast: root .* is not a member of the team"):
        s.broadcast(arr, arr, root=n)
    with pytest.raises(ValueError, match="permute: to .* is not a member"):
        s.permute(arr, arr, to=n, from_=0)


def test_freed_and_peer_views(n):
    a = s.zeros(4, "float32")
    view = s.peer(a, 0)
    if view is not None:
        with pytest.raises(ValueError, match=r"free: this array is a view \(peer\(\)"):
            s.free(view)
    s.free(a)
    with pytest.raises(ValueError, match="the array was freed"):
        s.put(a, np.zeros(4, np.float32), 0)
    with pytest.raises(ValueError, match="the array was freed"):
        np.from_dlpack(a)


def test_device(arr):
    with pytest.raises(ValueError, match="device 'cuda', but this PE's heap is on cpu"):
        s.empty(4, "float32", device="cuda")


def test_stream_forms_need_the_gpu(arr, n):
    src = np.zeros(arr.size, np.int64)
    for call in (
        lambda: s.put(arr, src, 0, stream=0),
        lambda: s.get(src, arr, 0, stream=1234),
        lambda: s.quiet(stream=0),
        lambda: s.allreduce(arr, arr, stream=0),
        lambda: s.barrier_all(stream=0),
    ):
        with pytest.raises(ValueError, match="stream forms need the GPU backend"):
            call()
    # A view over memory a framework owns (how symmetra.torch passes tensors) is checked like
    # any argument, and frees nothing.
    view = s._symmetra._view(arr.data_ptr, arr.size, 6, 1, 0)
    s.put(view, src, 0)
    with pytest.raises(ValueError, match="free: this array is a view"):
        s.free(view)
    with pytest.raises(ValueError, match="not in the symmetric heap"):
        s.put(s._symmetra._view(src.ctypes.data, src.size, 6, 1, 0), src, 0)
    s.barrier_all()


def test_library_errors_are_symmetra_errors():
    assert issubclass(s.SymmetraError, RuntimeError)
    assert issubclass(s.JobStopped, s.SymmetraError)
    with pytest.raises(s.SymmetraError, match="already initialized"):
        s.init()


def test_sizes_no_heap_can_hold():
    """Issue 51: a size no heap can hold is OutOfMemory on every PE at once, and live arrays keep
    their data (before, SIZE_MAX wrapped to a live block's address)."""
    live = s.zeros(16, "int64")
    live.numpy()[:] = np.arange(16) + 7
    for shape in ((2**64 - 1,), (2**64 - 16,), (2**62, 8), (2**33, 2**33)):
        with pytest.raises(s.OutOfMemory, match="cannot allocate|overflows"):
            s.empty(shape, "uint8")
    np.testing.assert_array_equal(live.numpy(), np.arange(16) + 7)
    s.free(live)

"""symmetra.torch on the GPU backend: tensors on the symmetric heap, the operations and collectives
in stream order on the current torch stream, peer tensors, CUDA graph capture, CuPy streams.
Every result is checked element by element against a reference computed from every PE's input,
which each PE can draw (the `gen` fixture seeds every PE alike)."""

import pytest
import torch

import symmetra
import symmetra.torch as st


def inputs(gen, n, size, dtype=torch.float32):
    """Every PE's input, in PE order: the same list on every PE."""
    return [torch.randn(size, generator=gen, device="cuda").to(dtype) for _ in range(n)]


def test_empty_is_a_cuda_tensor_on_the_heap(me, n):
    t = st.empty(3, 5, dtype=torch.bfloat16)
    assert isinstance(t, torch.Tensor) and t.is_cuda
    assert t.shape == (3, 5) and t.dtype == torch.bfloat16
    z = st.zeros((4,), dtype=torch.int32)
    assert torch.equal(z, torch.zeros(4, dtype=torch.int32, device="cuda"))
    st.free(z)
    st.free(t)


def test_put_get_on_the_current_stream(gen, me, n):
    size = 1 << 16
    xs = inputs(gen, n, size)
    dest = st.zeros(size)
    right, left = (me + 1) % n, (me - 1) % n
    st.put(dest, xs[me], right)  # on torch.cuda.current_stream()
    st.barrier()
    assert torch.equal(dest, xs[left])
    got = torch.empty(size, device="cuda")
    st.get(got, dest, right)
    torch.cuda.synchronize()
    assert torch.equal(got, xs[me])
    st.barrier()
    st.free(dest)


def test_put_on_an_explicit_stream(gen, me, n):
    size = 4096
    xs = inputs(gen, n, size)
    dest = st.zeros(size)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        src = xs[me] * 3  # made on s
    st.put(dest, src, (me + 1) % n, stream=s)
    st.barrier(stream=s)
    s.synchronize()
    assert torch.equal(dest, xs[(me - 1) % n] * 3)
    st.free(dest)


def test_put_signal_then_wait_on_the_stream(gen, me, n):
    size = 1000
    xs = inputs(gen, n, size)
    dest = st.zeros(size)
    sig = st.zeros(1, dtype=torch.uint64)
    st.barrier()
    st.put_signal(dest, xs[me], sig, 7, (me + 1) % n)
    st.signal_wait_until(sig, "eq", 7)  # holds the stream, not the host
    out = dest * 2  # ordered after the wait
    torch.cuda.synchronize()
    assert torch.equal(out, xs[(me - 1) % n] * 2)
    st.signal_op(sig, 5, (me + 1) % n, signal_op="add")
    st.signal_wait_until(sig, "ge", 12)
    torch.cuda.synchronize()
    assert int(sig.to(torch.int64).item()) == 12
    st.barrier()
    st.free(sig)
    st.free(dest)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("size", [1, 1000, 1 << 20])
def test_allreduce_in_place_and_out(gen, me, n, dtype, tol, size):
    xs = inputs(gen, n, size, dtype)
    ref = torch.stack([x.float() for x in xs]).sum(0)
    t = st.empty(size, dtype=dtype)
    t.copy_(xs[me])
    st.allreduce(t)  # in place
    out = torch.empty(size, dtype=dtype, device="cuda")  # private memory
    st.allreduce(xs[me], out=out, op="max")
    torch.cuda.synchronize()
    torch.testing.assert_close(t.float(), ref, atol=tol * n, rtol=tol)
    assert torch.equal(out.float(), torch.stack([x.float() for x in xs]).max(0).values)
    st.free(t)


def test_all_gather_reduce_scatter_alltoall_broadcast(gen, me, n):
    b = 777
    xs = inputs(gen, n, b * n)
    src = st.empty(b * n)
    src.copy_(xs[me])
    gathered = st.empty(b * n * n)
    st.all_gather(gathered, src)
    rs = st.empty(b)
    st.reduce_scatter(rs, src)
    a2a = st.empty(b * n)
    st.alltoall(a2a, src)
    bc = st.empty(b * n)
    st.broadcast(bc, src, root=n - 1)
    torch.cuda.synchronize()
    assert torch.equal(gathered, torch.cat(xs))
    torch.testing.assert_close(rs, torch.stack(xs).sum(0)[me * b:(me + 1) * b], atol=1e-5 * n,
                               rtol=1e-5)
    assert torch.equal(a2a, torch.cat([xs[j][me * b:(me + 1) * b] for j in range(n)]))
    assert torch.equal(bc, xs[n - 1])
    for t in (bc, a2a, rs, gathered, src):
        st.free(t)


def test_permute_ring_shift(gen, me, n):
    size = 12345
    xs = inputs(gen, n, size, torch.float16)
    src = st.empty(size, dtype=torch.float16)
    src.copy_(xs[me])
    dest = st.empty(size, dtype=torch.float16)
    st.permute(dest, src, to=(me + 1) % n, from_=(me - 1) % n, chunk=1000)
    torch.cuda.synchronize()
    assert torch.equal(dest, xs[(me - 1) % n])
    st.free(dest)
    st.free(src)


def test_peer_tensor_loads_and_stores(gen, me, n):
    size = 5000
    xs = inputs(gen, n, size)
    t = st.zeros(size)
    right = (me + 1) % n
    view = st.peer_tensor(t, right)
    assert view is not None and view.shape == t.shape  # one host: every PE reachable
    view.copy_(xs[me])  # a kernel storing into the peer's copy
    torch.cuda.synchronize()
    st.barrier()
    assert torch.equal(t, xs[(me - 1) % n])
    st.barrier()
    st.free(t)


def test_graph_capture_replays_collectives_and_puts(gen, me, n):
    size = 4096
    x = st.zeros(size)
    y = st.zeros(size)
    inp = torch.empty(size, device="cuda")
    # Warm up outside the capture (torch's rule: first use allocates), then capture.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        x.copy_(inp)
        st.allreduce(x)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    st.barrier()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        x.copy_(inp * 2)
        st.allreduce(x)
        st.put(y, x, (me + 1) % n)
        st.barrier()
    for _ in range(3):
        xs = inputs(gen, n, size)
        inp.copy_(xs[me])
        g.replay()
        torch.cuda.synchronize()
        ref = torch.stack(xs).sum(0) * 2
        torch.testing.assert_close(x, ref, atol=1e-4 * n, rtol=1e-5)
        torch.testing.assert_close(y, ref, atol=1e-4 * n, rtol=1e-5)  # left neighbour's x
    st.barrier()
    st.free(y)
    st.free(x)


def test_cupy_arrays_and_streams(gen, me, n):
    cupy = pytest.importorskip("cupy")
    size = 3000
    xs = inputs(gen, n, size)
    dest = symmetra.zeros(size, "float32", device="cuda")
    src = cupy.asarray(xs[me])  # a CuPy array through DLPack
    s = cupy.cuda.Stream(non_blocking=True)
    torch.cuda.synchronize()
    symmetra.put(dest, src, (me + 1) % n, stream=s)
    symmetra.barrier(stream=s)
    s.synchronize()
    got = cupy.from_dlpack(dest)
    assert cupy.array_equal(got, cupy.asarray(xs[(me - 1) % n]))
    symmetra.free(dest)


def test_bad_arguments_raise_before_anything_moves(me, n):
    t = st.zeros(8, 8)
    with pytest.raises(ValueError, match="not contiguous"):
        st.put(t.t(), torch.zeros(8, 8, device="cuda").t(), 0)
    with pytest.raises(ValueError, match="not in the symmetric heap"):
        st.put(torch.zeros(64, device="cuda"), torch.zeros(64, device="cuda"), 0)
    with pytest.raises(TypeError, match="stream must be"):
        symmetra.put(t, torch.zeros(64, device="cuda"), 0, stream="fast")
    with pytest.raises(ValueError, match="was not made by symmetra.torch"):
        st.free(t[1:])
    st.free(t)

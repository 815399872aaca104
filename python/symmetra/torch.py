"""symmetra.torch: symmetric memory as torch.Tensors, and Symmetra's operations in PyTorch's
stream order (docs/python.md "PyTorch").

    import torch, symmetra, symmetra.torch as st
    symmetra.init(backend="cuda")           # collective
    x = st.empty(1024, dtype=torch.bfloat16)  # collective: a torch.Tensor on the symmetric heap
    x.normal_()
    st.allreduce(x)                         # collective, in place, on the current stream
    right = st.peer_tensor(x, (symmetra.my_pe() + 1) % symmetra.n_pes())  # loads and stores
    st.free(x)                              # collective

On the GPU backend every operation here is enqueued on a stream: `stream=None` takes
torch.cuda.current_stream(), so the calls order with the kernels around them and are captured by
torch.cuda.graph like any kernel. They return at once; the stream completes them. On the CPU
backend the same calls run the host forms, with CPU tensors.

Collective calls say so. Nothing collective happens anywhere else, and dropping a tensor frees
nothing: free() does, on every PE.
"""

import torch

import symmetra as _s
from symmetra import _symmetra as _ext
from symmetra._dtypes import dtype_code as _dtype_code

# The symmetra.Array under each tensor empty() made, by data pointer: free() needs it, and it
# keeps the Array alive while the tensor is (the tensor's DLPack capsule refers to it too).
_owned = {}
# torch dtype -> symmetra's dtype code, filled as tensors come (the lookup is on every call).
_codes = {}


def _a(t, op):
    """A tensor as the extension takes it: a flat view of its memory (symmetra.Array), made
    without torch's __dlpack__, which synchronizes with the default stream and so cannot run
    inside graph capture. Anything else passes as it is."""
    if not isinstance(t, torch.Tensor):
        return t
    if not t.is_contiguous():
        raise ValueError(f"{op}: the tensor is not contiguous: pass tensor.contiguous()")
    code = _codes.get(t.dtype)
    if code is None:
        code = _codes[t.dtype] = _dtype_code(t.dtype, op)
    dev = t.device
    return _ext._view(t.data_ptr(), t.numel(), code, 2 if dev.type == "cuda" else 1, dev.index or 0)


def _stream(stream):
    """The stream argument the extension takes: the current torch stream on the GPU backend."""
    if not _s.on_gpu():
        if stream is not None:
            raise ValueError(
                "symmetra.torch: stream given, but this PE's heap is on the CPU "
                "(init(backend='cuda') puts it on the GPU)"
            )
        return None
    return torch.cuda.current_stream() if stream is None else stream


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        return tuple(size[0])
    return tuple(size)


def _tensor(a):
    """The tensor over Array `a` that empty() and zeros() return; free() finds `a` by it."""
    t = torch.from_dlpack(a)
    _owned[t.data_ptr()] = a
    return t


def empty(*size, dtype=torch.float32):
    """Collective: a tensor of `size` on this PE's symmetric heap (the GPU's memory on the CUDA
    backend), uninitialized. Every PE passes the same size and dtype, in the same order."""
    return _tensor(_s.empty(_shape(size), dtype))


def zeros(*size, dtype=torch.float32):
    """Collective: empty(), zeroed on every PE before any PE returns."""
    return _tensor(_s.zeros(_shape(size), dtype))


def free(tensor):
    """Collective: frees a tensor that empty() or zeros() made, on every PE in the same order.
    Waits for the GPU first (work queued on it may still use the memory). The tensor and its
    views, and peer tensors of it, must not be used after."""
    a = _owned.pop(tensor.data_ptr(), None)
    if a is None:
        raise ValueError(
            "free: the tensor was not made by symmetra.torch.empty or zeros (or was freed): "
            "pass the tensor they returned, not a view of it"
        )
    if _s.on_gpu():
        torch.cuda.synchronize()
    _s.free(a)


def peer_tensor(tensor, pe):
    """A tensor over PE `pe`'s copy of the symmetric `tensor` (same shape and dtype), for loads
    and stores by this PE's kernels: NVLink or PCIe peer access between GPUs of one host, shared
    memory between CPU PEs. None where `pe` is not reachable that way (another host). Not
    collective. Synchronize with the peer (barrier, signals) around its use."""
    v = _s.peer(_a(tensor, "peer_tensor"), pe)
    if v is None:
        return None
    return torch.from_dlpack(v).view(tensor.shape)


def put(dest, src, pe, stream=None):
    """Copies src (this PE's) into PE pe's copy of the symmetric dest, in stream order."""
    _s.put(_a(dest, "put"), _a(src, "put"), pe, stream=_stream(stream))


def get(dest, src, pe, stream=None):
    """Copies PE pe's copy of the symmetric src into dest (this PE's), in stream order."""
    _s.get(_a(dest, "get"), _a(src, "get"), pe, stream=_stream(stream))


def put_signal(dest, src, signal, value, pe, signal_op="set", signal_index=0, stream=None):
    """put, then PE pe's signal[signal_index] ('set' or 'add' value) after the data."""
    op = "put_signal"
    _s.put_signal(
        _a(dest, op), _a(src, op), _a(signal, op), value, pe, signal_op=signal_op,
        signal_index=signal_index, stream=_stream(stream),
    )


def signal_op(signal, value, pe, signal_op="set", index=0, stream=None):
    """PE pe's signal[index] ('set' or 'add' value), after this stream's earlier work."""
    _s.signal_op(
        _a(signal, "signal_op"), value, pe, signal_op=signal_op, index=index, stream=_stream(stream)
    )


def signal_wait_until(signal, cmp, value, index=0, stream=None):
    """Holds the stream until this PE's signal[index] <cmp> value (bounded by
    SYMMETRA_TIMEOUT_S); on the CPU backend, waits and returns the value seen."""
    return _s.signal_wait_until(
        _a(signal, "signal_wait_until"), cmp, value, index=index, stream=_stream(stream)
    )


def quiet(stream=None):
    """Completes this stream's earlier operations at their targets."""
    _s.quiet(stream=_stream(stream))


def barrier(team=None, stream=None):
    """Collective: quiet, then every member arrives, in stream order."""
    _s.barrier(team, stream=_stream(stream))


def sync(team=None, stream=None):
    """Collective: every member arrives, in stream order (no quiet)."""
    _s.sync(team, stream=_stream(stream))


def allreduce(tensor, op="sum", out=None, team=None, algo="auto", stream=None):
    """Collective: the reduction of every member's `tensor` into `out` (default: in place), as
    torch.distributed.all_reduce. Either may be private memory; the selector picks the algorithm
    unless `algo` names one. Returns the result tensor."""
    dest = tensor if out is None else out
    name = "allreduce"
    _s.allreduce(
        _a(dest, name), _a(tensor, name), op=op, team=team, algo=algo, stream=_stream(stream)
    )
    return dest


def all_gather(out, tensor, team=None, stream=None):
    """Collective: every member's `out` (symmetric, n x tensor's elements) gets all members'
    symmetric `tensor`, in team order (torch.distributed.all_gather_into_tensor)."""
    name = "all_gather"
    _s.all_gather(_a(out, name), _a(tensor, name), team=team, stream=_stream(stream))
    return out


def reduce_scatter(out, tensor, op="sum", team=None, stream=None):
    """Collective: member i's `out` gets block i of the reduction of every member's `tensor`
    (torch.distributed.reduce_scatter_tensor). Both symmetric."""
    name = "reduce_scatter"
    _s.reduce_scatter(
        _a(out, name), _a(tensor, name), op=op, team=team, stream=_stream(stream)
    )
    return out


def alltoall(out, tensor, team=None, stream=None):
    """Collective: block j of member i's `tensor` goes to block i of member j's `out`
    (torch.distributed.all_to_all_single with equal blocks). Both symmetric."""
    _s.alltoall(_a(out, "alltoall"), _a(tensor, "alltoall"), team=team, stream=_stream(stream))
    return out


def broadcast(out, tensor, root=0, team=None, stream=None):
    """Collective: every member's `out` gets the root's `tensor` (root: a team rank)."""
    name = "broadcast"
    _s.broadcast(
        _a(out, name), _a(tensor, name), root=root, team=team, stream=_stream(stream)
    )
    return out


def permute(out, tensor, to=None, from_=None, team=None, chunk=None, stream=None):
    """Collective: sends `tensor` to team rank `to` and receives `out` from team rank `from_`
    (None: no peer that way), both symmetric; a ring shift is to=(me+1)%n, from_=(me-1)%n."""
    name = "permute"
    _s.permute(
        _a(out, name), _a(tensor, name), to=to, from_=from_, team=team, chunk=chunk,
        stream=_stream(stream),
    )
    return out


def _ring_dims(q, k, v, causal):
    """The shape ring attention runs at, after checking q, k, v name what is wrong."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise ValueError(
                f"ring_attention: {name} must be a 4-d tensor [batch, tokens, heads, head_dim]"
            )
    if k.shape != v.shape:
        raise ValueError(f"ring_attention: k {tuple(k.shape)} and v {tuple(v.shape)} differ")
    if q.shape[0] != k.shape[0] or q.shape[1] != k.shape[1] or q.shape[3] != k.shape[3]:
        raise ValueError(
            f"ring_attention: q {tuple(q.shape)} and k {tuple(k.shape)} must agree in batch, "
            "tokens and head_dim"
        )
    if q.dtype != k.dtype or k.dtype != v.dtype:
        raise ValueError(f"ring_attention: q, k, v are {q.dtype}, {k.dtype}, {v.dtype}: pass one")
    b, t, hq, d = q.shape
    return (b, t, hq, k.shape[2], d, 1 if causal else 0)


class _RingAttention(torch.autograd.Function):
    """The ring's forward and backward (docs/ring_attention.md), both collective. Tensors reach
    the extension detached: DLPack refuses tensors that require grad."""

    @staticmethod
    def forward(ctx, q, k, v, causal):
        dims = _ring_dims(q, k, v, causal)
        q, k, v = (t.detach().contiguous() for t in (q, k, v))
        out = torch.empty_like(q)
        lse = torch.empty((dims[0], dims[2], dims[1]), dtype=torch.float32, device=q.device)
        _ext._ring_attention(
            True, q, k, v, out, lse, None, None, None, None, dims, _stream(None)
        )
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.dims = dims
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        dout = dout.detach().to(q.dtype).contiguous()
        _ext._ring_attention(
            False, q, k, v, out, lse, dout, dq, dk, dv, ctx.dims, _stream(None)
        )
        return dq, dk, dv, None


def ring_attention(q, k, v, causal=True):
    """Collective: ring attention over every PE (docs/ring_attention.md), differentiable
    (autograd: the backward is a second pass of the ring). q [batch, tokens, q_heads,
    head_dim], k and v [batch, tokens, kv_heads, head_dim] (kv_heads divides q_heads): this PE's
    zigzag share of the sequence, chunks my_pe() and 2N-1-my_pe() of 2N (zigzag_positions says
    which). On the CPU backend: float32, float64, bfloat16 or float16 CPU tensors (the 16-bit
    ones computed in float32). On the GPU backend: bfloat16 or float16 CUDA tensors, cuDNN's SDPA
    blocks, enqueued on the current torch stream (both passes return once enqueued)."""
    return _RingAttention.apply(q, k, v, causal)


def zigzag_positions(seq_len, rank=None, n=None):
    """The sequence positions of PE rank's tokens under ring attention's zigzag split."""
    rank = _s.my_pe() if rank is None else rank
    n = _s.n_pes() if n is None else n
    chunk = seq_len // (2 * n)
    return torch.cat([torch.arange(rank * chunk, (rank + 1) * chunk),
                      torch.arange((2 * n - 1 - rank) * chunk, (2 * n - rank) * chunk)])

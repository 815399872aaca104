"""symmetra.jax: Symmetra's collectives as XLA FFI custom calls (docs/python.md "JAX").

Each JAX process is a PE (started by symrun, mpirun, srun, or numbered through a unique id), and
calls symmetra.init() before it traces. The functions below run under jax.jit and eagerly; each
is collective over every PE, like its symmetra counterpart: every PE must run the same program,
which calls them in the same order. On the CPU platform the handlers run the host forms; on the
CUDA platform (init(backend='cuda'), arrays on the GPU) they enqueue the stream forms on XLA's
stream, and the all-reduce may be recorded into XLA's command buffers (CUDA graphs). Ring
attention runs on both (cuDNN's blocks on the GPU), outside command buffers.

Importing this module registers the FFI targets with XLA; it does nothing collective.
"""

import functools
import typing

import jax
import numpy as np

from . import SymmetraError, my_pe, n_pes
from . import _symmetra as _ext

if not hasattr(_ext, "_jax_cpu_handlers"):
    raise ImportError(
        "symmetra.jax: this symmetra was built without jaxlib's FFI headers: install jax, then "
        "build symmetra again (pip install .)"
    )

for _name, _capsule in _ext._jax_cpu_handlers().items():
    jax.ffi.register_ffi_target(_name, _capsule, platform="cpu")
# The CUDA handlers enqueue on XLA's stream (init(backend='cuda') puts the heap on the GPU);
# registered only where this jaxlib has a CUDA backend.
try:
    _cuda = any(d.platform == "gpu" for d in jax.devices())
except RuntimeError:
    _cuda = False
if _cuda:
    for _name, _capsule in _ext._jax_cuda_handlers().items():
        jax.ffi.register_ffi_target(_name, _capsule, platform="CUDA")

_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}


def _op(op):
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(map(repr, _OPS))}, not {op!r}")
    return np.int32(_OPS[op])


def _one_device_per_process(op, x):
    """Refuses a process with several devices of the platform the call runs on: each process is
    one PE, and the handlers cannot tell its devices apart, so under shard_map over several local
    devices every shard would be reduced alone (a 1-PE job, or shards racing for one PE's
    buffers). Checked where the call is traced, before any handler runs."""
    platform = jax.default_backend()
    if not isinstance(x, jax.core.Tracer):
        try:
            platform = next(iter(x.devices())).platform
        except (AttributeError, StopIteration):
            pass
    count = jax.local_device_count(platform)
    if count > 1:
        raise SymmetraError(
            f"[pe {my_pe()}] symmetra.jax.{op}: this process has {count} {platform} devices, and "
            "symmetra.jax supports one device per process (each process is one PE: one process "
            "per GPU, or on the CPU no --xla_force_host_platform_device_count); several devices "
            "per process are not supported yet (docs/python.md, JAX)")


def _call(target, shape, x, **attrs):
    _one_device_per_process(target.removeprefix("symmetra_"), x)
    # The result's dtype is the one JAX gives x (float64 NumPy input is float32 without x64).
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(shape, x.dtype), has_side_effect=True,
                            vmap_method="sequential")(x, **attrs)


def allreduce(x, op="sum"):
    """Collective: the reduction of every PE's x (same shape and dtype everywhere)."""
    x = jax.numpy.asarray(x)
    return _call("symmetra_allreduce", x.shape, x, op=_op(op))


def all_gather(x):
    """Collective: every PE's x stacked in PE order, shape (n_pes, *x.shape)."""
    x = jax.numpy.asarray(x)
    return _call("symmetra_all_gather", (n_pes(), *x.shape), x)


def reduce_scatter(x, op="sum"):
    """Collective: block my_pe() of the reduction of every PE's x, split along axis 0 into
    n_pes() blocks."""
    n = n_pes()
    x = jax.numpy.asarray(x)
    if x.ndim == 0 or x.shape[0] % n:
        raise ValueError(f"reduce_scatter: x's first axis ({x.shape}) must split into {n} blocks")
    return _call("symmetra_reduce_scatter", (x.shape[0] // n, *x.shape[1:]), x, op=_op(op))


def permute(x, to, from_):
    """Collective: sends x to PE `to` and returns what PE `from_` sent (None: no peer that way;
    zeros are returned where nothing comes), as jax.lax.ppermute does for one pair."""
    n = n_pes()
    for name, pe in (("to", to), ("from_", from_)):
        if pe is not None and not 0 <= pe < n:
            raise ValueError(f"permute: {name}={pe} is not a PE of this job of {n}")
    x = jax.numpy.asarray(x)
    return _call("symmetra_permute", x.shape, x, to=np.int32(-1 if to is None else to),
                 **{"from": np.int32(-1 if from_ is None else from_)})


def ring_shift(x, shift=1):
    """Collective: x moves `shift` PEs along the ring; returns what PE my_pe()-shift sent (ring
    attention's step)."""
    me, n = my_pe(), n_pes()
    return permute(x, (me + shift) % n, (me - shift) % n)


def _ring_forward(q, k, v, causal):
    if q.ndim != 4 or k.shape != v.shape or k.ndim != 4 or q.shape[:2] != k.shape[:2] or \
            q.shape[3] != k.shape[3] or q.shape[2] % k.shape[2]:
        raise ValueError(
            "ring_attention: q must be [batch, tokens, q_heads, head_dim] and k, v [batch, tokens, "
            f"kv_heads, head_dim] with kv_heads dividing q_heads; got {q.shape}, {k.shape}, "
            f"{v.shape}")
    _one_device_per_process("ring_attention", q)
    b, t, hq, _ = q.shape
    out, lse = jax.ffi.ffi_call(
        "symmetra_ring_attention_fwd",
        (jax.ShapeDtypeStruct(q.shape, q.dtype), jax.ShapeDtypeStruct((b, hq, t), np.float32)),
        has_side_effect=True, vmap_method="sequential")(q, k, v, causal=np.int32(causal))
    return out, lse


def _ring_backward(q, k, v, out, lse, dout, causal):
    _one_device_per_process("ring_attention", q)
    return jax.ffi.ffi_call(
        "symmetra_ring_attention_bwd",
        (jax.ShapeDtypeStruct(q.shape, q.dtype), jax.ShapeDtypeStruct(k.shape, k.dtype),
         jax.ShapeDtypeStruct(v.shape, v.dtype)),
        has_side_effect=True, vmap_method="sequential")(q, k, v, out, lse, dout,
                                                        causal=np.int32(causal))


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def ring_attention(q, k, v, causal=True):
    """Collective: ring attention over every PE (docs/ring_attention.md). q [batch, tokens,
    q_heads, head_dim], k and v [batch, tokens, kv_heads, head_dim]: this PE's zigzag share of
    the sequence (chunks my_pe() and 2N-1-my_pe() of 2N; symmetra.jax.zigzag_positions says
    which). float32, float64, bfloat16 or float16 on the CPU (the 16-bit ones computed in
    float32); bfloat16 or float16 on the GPU (cuDNN's SDPA blocks, on XLA's stream).
    Differentiable (jax.grad): the backward is a second pass of the ring."""
    return _ring_forward(q, k, v, causal)[0]


def _ring_fwd_rule(q, k, v, causal):
    out, lse = _ring_forward(q, k, v, causal)
    return out, (q, k, v, out, lse)


def _ring_bwd_rule(causal, residuals, dout):
    return _ring_backward(*residuals, dout, causal)


ring_attention.defvjp(_ring_fwd_rule, _ring_bwd_rule)


def zigzag_positions(seq_len, rank=None, n=None):
    """The sequence positions of PE rank's tokens under ring attention's zigzag split."""
    rank = my_pe() if rank is None else rank
    n = n_pes() if n is None else n
    chunk = seq_len // (2 * n)
    return np.concatenate([np.arange(rank * chunk, (rank + 1) * chunk),
                           np.arange((2 * n - 1 - rank) * chunk, (2 * n - rank) * chunk)])


# Mixture-of-experts dispatch and combine (symmetra::ep, docs/moe.md), on the CPU platform for
# now. The routing of a dispatch stays in the extension under a number, the handle: combine and
# the backward passes retrace it (the last 64 dispatches' routings are kept).

class MoeDispatched(typing.NamedTuple):
    """What moe_dispatch leaves on this PE. Rows are grouped by local expert (expert e's rows
    start at the sum of expert_counts[:e]), each group in source-rank, then token order; the
    arrays have room for max_recv_rows rows, and those past sum(expert_counts) are zero."""
    x: jax.Array              # [max_recv_rows, hidden], the tokens
    weights: jax.Array        # [max_recv_rows] float32, each row's (token, expert) weight
    src_rank: jax.Array       # [max_recv_rows] int32, the PE the token came from
    src_token: jax.Array      # [max_recv_rows] int32, its index there
    expert_counts: jax.Array  # [num_experts // n_pes()] int32
    handle: jax.Array         # int32 scalar: names the routing for moe_combine


def _moe_call(target, shapes, *args, **attrs):
    _one_device_per_process(target.removeprefix("symmetra_"), args[0])
    return jax.ffi.ffi_call(target, shapes, has_side_effect=True,
                            vmap_method="sequential")(*args, **attrs)


@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def _moe_dispatch(x, w, idx, num_experts, rows):
    return _moe_dispatch_fwd(x, w, idx, num_experts, rows)[0]


def _moe_dispatch_fwd(x, w, idx, num_experts, rows):
    local = num_experts // n_pes()
    shapes = (jax.ShapeDtypeStruct((rows, x.shape[1]), x.dtype),
              jax.ShapeDtypeStruct((rows,), np.float32), jax.ShapeDtypeStruct((rows,), np.int32),
              jax.ShapeDtypeStruct((rows,), np.int32), jax.ShapeDtypeStruct((local,), np.int32),
              jax.ShapeDtypeStruct((), np.int32))
    out = tuple(_moe_call("symmetra_moe_dispatch", shapes, x, idx, w,
                          num_experts=np.int64(num_experts)))
    return out, (out[5], x.shape[0], w.shape[1])


def _moe_dispatch_bwd(num_experts, rows, res, cts):
    handle, tokens, top_k = res
    # A token's gradient is the sum of its rows' (unweighted); a weight's is its row's.
    dx = _moe_combine(cts[0], handle, tokens)
    dw = _moe_call("symmetra_moe_gather_slots",
                   jax.ShapeDtypeStruct((tokens, top_k), np.float32),
                   cts[1].astype(np.float32), handle)
    return dx, dw, None


_moe_dispatch.defvjp(_moe_dispatch_fwd, _moe_dispatch_bwd)


def _moe_combine_call(y, handle, tokens):
    return _moe_call("symmetra_moe_combine",
                     jax.ShapeDtypeStruct((tokens, y.shape[1]), y.dtype), y, handle)


def _moe_redispatch_call(x, handle, rows):
    return _moe_call("symmetra_moe_redispatch",
                     jax.ShapeDtypeStruct((rows, x.shape[1]), x.dtype), x, handle)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _moe_combine(y, handle, tokens):
    """Each token's rows summed (unweighted), back on its PE: [tokens, hidden]."""
    return _moe_combine_call(y, handle, tokens)


def _moe_combine_fwd(y, handle, tokens):
    return _moe_combine_call(y, handle, tokens), (handle, y.shape[0])


def _moe_combine_bwd(tokens, res, g):
    handle, rows = res
    return _moe_redispatch(g, handle, rows), None


_moe_combine.defvjp(_moe_combine_fwd, _moe_combine_bwd)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _moe_redispatch(x, handle, rows):
    """Tokens along a dispatch's routing into its rows: [rows, hidden]."""
    return _moe_redispatch_call(x, handle, rows)


def _moe_redispatch_fwd(x, handle, rows):
    return _moe_redispatch_call(x, handle, rows), (handle, x.shape[0])


def _moe_redispatch_bwd(rows, res, g):
    handle, tokens = res
    return _moe_combine(g, handle, tokens), None


_moe_redispatch.defvjp(_moe_redispatch_fwd, _moe_redispatch_bwd)


def moe_dispatch(x, topk_idx, topk_weights, num_experts, *, max_recv_rows=None):
    """Collective: sends each token (row of x, [tokens, hidden]) to the PEs holding its experts,
    once per PE (docs/moe.md). topk_idx [tokens, top_k] int32 or int64 (-1: no expert in that
    slot), topk_weights [tokens, top_k] float32; PE r holds experts [r*L, (r+1)*L), L =
    num_experts / n_pes(). max_recv_rows: room for received (token, expert) rows, default
    tokens * n_pes() * min(top_k, L), the most there can be. Returns a MoeDispatched.
    Differentiable in x and topk_weights (jax.grad): the backward sums each token's row gradients
    and returns each weight's gradient to its slot."""
    x = jax.numpy.asarray(x)
    topk_idx = jax.numpy.asarray(topk_idx)
    topk_weights = jax.numpy.asarray(topk_weights, dtype=np.float32)
    n = n_pes()
    if x.ndim != 2 or topk_idx.ndim != 2 or topk_idx.shape[0] != x.shape[0] or \
            topk_weights.shape != topk_idx.shape:
        raise ValueError(
            f"moe_dispatch: x must be [tokens, hidden] and topk_idx, topk_weights [tokens, top_k]; "
            f"got {x.shape}, {topk_idx.shape}, {topk_weights.shape}")
    if num_experts < n or num_experts % n:
        raise ValueError(f"moe_dispatch: num_experts {num_experts} is not a positive multiple of "
                         f"the {n} PEs")
    k = topk_idx.shape[1]
    rows = max_recv_rows or x.shape[0] * n * min(k, num_experts // n)
    return MoeDispatched(*_moe_dispatch(x, topk_weights, topk_idx, int(num_experts), int(rows)))


def moe_combine(y, dispatched, num_tokens):
    """Collective: out [num_tokens, hidden] on each PE, out[t] = the sum over t's experts of the
    routing weight times the expert's output row for t. y [max_recv_rows, hidden] holds the
    experts' outputs in dispatched.x's row order (rows past the received ones are ignored).
    Differentiable in y and in dispatched.weights (so in moe_dispatch's topk_weights)."""
    y = jax.numpy.asarray(y)
    return _moe_combine((y * dispatched.weights[:, None].astype(y.dtype)).astype(y.dtype),
                        dispatched.handle, int(num_tokens))

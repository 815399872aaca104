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

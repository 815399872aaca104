"""symmetra.jax: Symmetra's collectives as XLA FFI custom calls (docs/python.md "JAX").

Each JAX process is a PE (started by symrun, mpirun, srun, or numbered through a unique id), and
calls symmetra.init() before it traces. The functions below run under jax.jit and eagerly; each
is collective over every PE, like its symmetra counterpart: every PE must run the same program,
which calls them in the same order. The handlers run on the CPU platform today; the CUDA ones
(the platform stream, command buffers) come with the GPU step.

Importing this module registers the FFI targets with XLA; it does nothing collective.
"""

import jax
import numpy as np

from . import _symmetra as _ext
from . import my_pe, n_pes

if not hasattr(_ext, "_jax_cpu_handlers"):
    raise ImportError(
        "symmetra.jax: this symmetra was built without jaxlib's FFI headers: install jax, then "
        "build symmetra again (pip install .)"
    )

for _name, _capsule in _ext._jax_cpu_handlers().items():
    jax.ffi.register_ffi_target(_name, _capsule, platform="cpu")

_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}


def _op(op):
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(map(repr, _OPS))}, not {op!r}")
    return np.int32(_OPS[op])


def _call(target, shape, x, **attrs):
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

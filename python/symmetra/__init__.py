"""Symmetra for Python: symmetric memory, one-sided operations and collectives (docs/python.md).

A PE is a process, started by symrun, mpirun, srun or torchrun, or numbered by the program
itself (init(unique_id=..., rank=..., world_size=...)). Setup calls are collective and say so:
init, finalize, empty, zeros, free, Team.split_*, Team.destroy and the collectives. Nothing
collective happens anywhere else; importing this package starts nothing.

Errors: a wrong argument raises ValueError (or TypeError) naming it, before anything moves; what
the library reports raises SymmetraError (a RuntimeError) with its "[pe N] op: ..." message;
JobStopped when another PE failed or left; Timeout (a SymmetraError) when a collective or wait
saw nothing arrive within SYMMETRA_TIMEOUT_S, naming the PEs not yet arrived.
"""

import atexit as _atexit


def _load_extension():
    """Imports the extension. A CUDA build of libsymmetra needs the CUDA runtime,
    libcudart.so.13: where the loader finds none (no CUDA toolkit on its path), the copy that the
    nvidia-cuda-runtime wheel installs (PyTorch, CuPy and JAX bring it) is loaded first."""
    try:
        from . import _symmetra
    except ImportError as e:
        if "libcudart" not in str(e):
            raise
        import ctypes
        import glob
        import os

        try:
            import nvidia
        except ImportError:
            raise e from None
        found = [f for base in nvidia.__path__
                 for f in sorted(glob.glob(os.path.join(base, "*", "lib", "libcudart.so.1*")))]
        if not found:
            raise e from None
        ctypes.CDLL(found[-1], mode=ctypes.RTLD_GLOBAL)
        from . import _symmetra
    return _symmetra


_ext = _load_extension()
from ._symmetra import (  # noqa: F401  (the public names)
    Array,
    JobStopped,
    OutOfMemory,
    SymmetraError,
    Team,
    Timeout,
    all_gather,
    allreduce,
    alltoall,
    atomic_add,
    atomic_and,
    atomic_compare_swap,
    atomic_fetch,
    atomic_fetch_add,
    atomic_fetch_and,
    atomic_fetch_or,
    atomic_fetch_xor,
    atomic_or,
    atomic_set,
    atomic_swap,
    atomic_xor,
    barrier,
    broadcast,
    fence,
    finalize,
    free,
    g,
    get,
    get_unique_id,
    heap_used,
    initialized,
    my_pe,
    n_pes,
    on_gpu,
    p,
    pe_local,
    peer,
    permute,
    put,
    put_signal,
    quiet,
    reduce_scatter,
    signal_fetch,
    signal_op,
    signal_wait_until,
    sync,
    team_shared,
    team_world,
    test,
    wait_until,
)
from ._dtypes import dtype_code as _dtype_code

__version__ = "0.1.0"

_at_exit_registered = False


def init(*, unique_id=None, rank=None, world_size=None, backend=None, device=None):
    """Collective: joins the job. Without arguments, reads the launcher's environment (symrun,
    mpirun, srun, torchrun; a job of one PE without any). With unique_id (the bytes that
    get_unique_id() returned on PE 0), rank and world_size: joins as that PE, for programs that
    number their processes themselves. backend: 'cpu' or 'cuda' (default: SYMMETRA_BACKEND, else
    cpu); device: the CUDA device (default: the local rank's). Bounded by SYMMETRA_TIMEOUT_S.
    """
    global _at_exit_registered
    if unique_id is not None:
        if rank is None or world_size is None:
            raise ValueError("init: unique_id needs rank and world_size too")
        if not isinstance(unique_id, (bytes, bytearray)):
            raise TypeError("init: unique_id must be the bytes that get_unique_id() returned")
        unique_id = bytes(unique_id)
    elif rank is not None or world_size is not None:
        raise ValueError(
            "init: rank and world_size go with unique_id; without it the launcher numbers the PEs"
        )
    _ext._init(
        unique_id,
        -1 if rank is None else int(rank),
        -1 if world_size is None else int(world_size),
        backend or "",
        -1 if device is None else int(device),
    )
    if not _at_exit_registered:
        # A program that ends without finalize() leaves at once: no collective step at exit,
        # which would block it, and the others stop naming this PE instead of waiting for it.
        _atexit.register(_ext._leave)
        _at_exit_registered = True


def _shape(shape):
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"empty: shape must be an int or a sequence of ints, not {shape!r}") from None
    for s in shape:
        if s < 0:
            raise ValueError(f"empty: shape {shape} has a negative size")
    return shape


def _check_device(device, op):
    if device is None:
        return
    want = "cuda" if on_gpu() else "cpu"
    name = str(device).split(":")[0]
    if name != want:
        raise ValueError(
            f"{op}: device {device!r}, but this PE's heap is on {want} "
            f"(init(backend=...) chooses; every PE's heap is on one device)"
        )


def empty(shape, dtype="float32", device=None):
    """Collective: a symmetric array of `shape` and `dtype` (a name, a NumPy or torch dtype),
    uninitialized, on this PE's heap device ('cpu' or 'cuda'). The same shape and dtype on
    every PE, in the same order."""
    _check_device(device, "empty")
    return _ext._empty(list(_shape(shape)), _dtype_code(dtype, "empty"), False)


def zeros(shape, dtype="float32", device=None):
    """Collective: as empty(), filled with zeros on every PE before any PE returns."""
    _check_device(device, "zeros")
    return _ext._empty(list(_shape(shape)), _dtype_code(dtype, "zeros"), True)


def put_nbi(dest, src, pe):
    """put(..., nbi=True): returns at once; quiet() completes it. src must not change before."""
    put(dest, src, pe, nbi=True)


def get_nbi(dest, src, pe):
    """get(..., nbi=True): dest is complete after quiet()."""
    get(dest, src, pe, nbi=True)


def barrier_all(stream=None):
    """Collective over every PE: quiet, then waits until all have arrived (stream: in stream
    order, returning at once)."""
    barrier(None, stream)


def sync_all(stream=None):
    """Collective over every PE: waits until all have arrived."""
    sync(None, stream)

"""symmetra.jax on the CUDA platform: the FFI handlers enqueue on XLA's stream, under jax.jit,
with every PE a process on the GPU. Inputs come from the shared generator (every PE can make
every PE's input); every element is checked against NumPy."""

import numpy as np
import pytest
import torch

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import symmetra.jax as sj  # noqa: E402


def inputs(gen, n, shape):
    return [torch.randn(shape, generator=gen, device="cuda").cpu().numpy() for _ in range(n)]


def test_arrays_are_on_the_gpu():
    assert jax.devices()[0].platform == "gpu"


@pytest.mark.parametrize("jit", [True, False])
def test_collectives_under_jit_on_the_gpu(gen, me, n, jit):
    xs = inputs(gen, n, (3, 257))
    big = inputs(gen, n, (n * 5, 7))

    def f(x, b):
        return (sj.allreduce(x), sj.allreduce(x, op="max"), sj.all_gather(x),
                sj.reduce_scatter(b), sj.ring_shift(x))

    g = jax.jit(f) if jit else f
    s, mx, ag, rs, shifted = g(jnp.asarray(xs[me]), jnp.asarray(big[me]))
    np.testing.assert_allclose(np.asarray(s), np.sum(xs, axis=0), rtol=1e-5, atol=1e-5 * n)
    np.testing.assert_array_equal(np.asarray(mx), np.max(xs, axis=0))
    np.testing.assert_array_equal(np.asarray(ag), np.stack(xs))
    np.testing.assert_allclose(np.asarray(rs), np.sum(big, axis=0)[me * 5:(me + 1) * 5],
                               rtol=1e-5, atol=1e-5 * n)
    np.testing.assert_array_equal(np.asarray(shifted), xs[(me - 1) % n])


def test_permute_with_no_sender_gives_zeros(gen, me, n):
    xs = inputs(gen, n, (1000,))
    # PE 0 receives from nobody; every other PE from the one before it.
    frm = None if me == 0 else me - 1
    to = None if me == n - 1 else me + 1
    y = jax.jit(lambda x: sj.permute(x, to=to, from_=frm))(jnp.asarray(xs[me]))
    want = np.zeros_like(xs[me]) if me == 0 else xs[me - 1]
    np.testing.assert_array_equal(np.asarray(y), want)


def test_collectives_recorded_in_command_buffers(gen, me, n):
    """With the conftest's XLA_FLAGS, XLA records the handlers into command buffers: the compiled
    program says so, and replays on fresh inputs give the right answers, also where the
    workspace grows while XLA records (each size here is larger than any before it)."""
    g = jax.jit(lambda x: (sj.all_gather(x), sj.reduce_scatter(x), sj.ring_shift(x),
                           sj.allreduce(x)))
    for i, rows in enumerate((n * 3, n * 3, n * 300, n * 300, n * 3000)):
        xs = inputs(gen, n, (rows, 33))
        x = jnp.asarray(xs[me])
        if i == 0:
            assert "command_buffer" in g.lower(x).compile().as_text()
        ag, rs, shifted, s = g(x)
        np.testing.assert_array_equal(np.asarray(ag), np.stack(xs))
        block = rows // n
        np.testing.assert_allclose(np.asarray(rs),
                                   np.sum(xs, axis=0)[me * block:(me + 1) * block],
                                   rtol=1e-5, atol=1e-5 * n)
        np.testing.assert_array_equal(np.asarray(shifted), xs[(me - 1) % n])
        np.testing.assert_allclose(np.asarray(s), np.sum(xs, axis=0), rtol=1e-5, atol=1e-5 * n)

"""symmetra.jax: the collectives as XLA FFI custom calls under jax.jit (CPU platform), one
process per PE, against NumPy references on fresh random data. tools/python-test sets
SYMMETRA_REQUIRE_JAX=1, so a missing JAX fails there instead of skipping."""

import os

import numpy as np
import pytest

if os.environ.get("SYMMETRA_REQUIRE_JAX") == "1":
    import jax
else:
    jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import symmetra as s  # noqa: E402


@pytest.fixture(scope="module")
def sj():
    import symmetra.jax

    return symmetra.jax


def data(rng, n, shape, dtype=np.float32):
    return rng.standard_normal((n, *shape)).astype(dtype)


def test_allreduce_under_jit(sj, rng, me, n):
    x = data(rng, n, (5, 7))
    f = jax.jit(lambda v: sj.allreduce(v * 2.0) + 1.0)
    got = np.asarray(f(jnp.asarray(x[me])))
    again = np.asarray(f(jnp.asarray(x[me] + 1)))  # the compiled program, called again
    np.testing.assert_allclose(got, (2 * x).sum(0) + 1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(again, (2 * (x + 1)).sum(0) + 1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["max", "min", "prod"])
def test_allreduce_ops_eager(sj, rng, me, n, op):
    x = data(rng, n, (33,), np.float32)
    # NumPy float64 input: JAX makes it float32 (x64 off), and the result is declared so.
    got = np.asarray(sj.allreduce(x[me].astype(np.float64), op=op))
    ref = {"max": x.max(0), "min": x.min(0), "prod": x.prod(0)}[op]
    np.testing.assert_allclose(got, ref.astype(got.dtype), rtol=1e-5)


def test_integer_allreduce(sj, rng, me, n):
    x = rng.integers(-1000, 1000, size=(n, 100), dtype=np.int32)
    got = np.asarray(jax.jit(lambda v: sj.allreduce(v, op="sum"))(jnp.asarray(x[me])))
    np.testing.assert_array_equal(got, x.sum(0, dtype=np.int32))


def test_all_gather_and_reduce_scatter(sj, rng, me, n):
    x = data(rng, n, (4 * n, 3))

    @jax.jit
    def step(v):
        return sj.all_gather(v), sj.reduce_scatter(v)

    gathered, scattered = step(jnp.asarray(x[me]))
    np.testing.assert_array_equal(np.asarray(gathered), x)
    np.testing.assert_allclose(np.asarray(scattered), x.sum(0)[4 * me:4 * (me + 1)], rtol=1e-5,
                               atol=1e-5)


def test_ring_shift_and_chain(sj, rng, me, n):
    x = data(rng, n, (1000,))
    shifted = np.asarray(jax.jit(sj.ring_shift)(jnp.asarray(x[me])))
    back = np.asarray(jax.jit(lambda v: sj.ring_shift(v, shift=-1))(jnp.asarray(x[me])))
    chain = np.asarray(sj.permute(jnp.asarray(x[me]), me + 1 if me + 1 < n else None,
                                  me - 1 if me > 0 else None))
    np.testing.assert_array_equal(shifted, x[(me - 1) % n])
    np.testing.assert_array_equal(back, x[(me + 1) % n])
    np.testing.assert_array_equal(chain, x[me - 1] if me > 0 else np.zeros(1000, np.float32))


def test_ring_all_reduce_built_from_shifts(sj, rng, me, n):
    """A loop of ring shifts inside one jitted function (what ring attention does): n-1 steps
    accumulate every PE's block."""
    x = data(rng, n, (64,))

    @jax.jit
    def ring_sum(v):
        acc, cur = v, v
        for _ in range(n - 1):
            cur = sj.ring_shift(cur)
            acc = acc + cur
        return acc

    np.testing.assert_allclose(np.asarray(ring_sum(jnp.asarray(x[me]))), x.sum(0), rtol=1e-5,
                               atol=1e-5)


def test_errors(sj):
    with pytest.raises(ValueError, match="op must be one of"):
        sj.allreduce(jnp.ones(3), op="mean")
    with pytest.raises(ValueError, match="must split into"):
        sj.reduce_scatter(jnp.ones(()))
    if s.n_pes() > 1:
        with pytest.raises(ValueError, match="must split into"):
            sj.reduce_scatter(jnp.ones(s.n_pes() * 2 + 1))
    with pytest.raises(ValueError, match="is not a PE of this job"):
        sj.permute(jnp.ones(3), s.n_pes(), None)
    with pytest.raises(Exception, match="element type is not one Symmetra takes"):
        jax.block_until_ready(sj.allreduce(jnp.ones(3, jnp.complex64)))

"""symmetra.jax's mixture-of-experts calls (docs/moe.md) under jax.jit on the CPU platform, one
process per PE: dispatch, the experts, combine and their gradients against NumPy references that
know every PE's routing (every PE draws every PE's input from the shared generator)."""

import os

import numpy as np
import pytest

if os.environ.get("SYMMETRA_REQUIRE_JAX") == "1":
    import jax
else:
    jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402


@pytest.fixture(scope="module")
def sj():
    import symmetra.jax

    return symmetra.jax


def routing(rng, n, tokens, num_experts, top_k):
    """Every PE's top-k experts (distinct, some slots -1) and weights."""
    idx = np.stack([np.stack([rng.permutation(num_experts)[:top_k] for _ in range(tokens)])
                    for _ in range(n)]).astype(np.int32)
    idx[rng.random(idx.shape) < 0.2] = -1
    w = rng.uniform(0.5, 2.0, idx.shape).astype(np.float32)
    return idx, w


def expert_scale(d, me, local):
    """Each received row's factor, 1 + its global expert: the experts below multiply by it."""
    row = jnp.arange(d.x.shape[0])
    ends = jnp.cumsum(d.expert_counts)
    e = jnp.searchsorted(ends, row, side="right")
    return jnp.where(row < ends[-1], 1.0 + me * local + e, 0.0).astype(d.x.dtype)


@pytest.mark.parametrize("top_k", [1, 3])
def test_dispatch_combine_and_gradients(sj, rng, me, n, top_k):
    tokens, hidden, local = 6, 5, 2
    num_experts = local * n
    top_k = min(top_k, num_experts)
    x = rng.standard_normal((n, tokens, hidden)).astype(np.float32)
    g = rng.standard_normal((n, tokens, hidden)).astype(np.float32)
    idx, w = routing(rng, n, tokens, num_experts, top_k)

    def layer(xs, ws):
        d = sj.moe_dispatch(xs, idx[me], ws, num_experts)
        y = d.x * expert_scale(d, me, local)[:, None]
        return sj.moe_combine(y, d, tokens), d

    @jax.jit
    def loss(xs, ws):
        out, _ = layer(xs, ws)
        return jnp.sum(out * g[me]), out

    (value, out), (dx, dw) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(
        jnp.asarray(x[me]), jnp.asarray(w[me]))
    d = jax.jit(lambda xs, ws: layer(xs, ws)[1])(jnp.asarray(x[me]), jnp.asarray(w[me]))

    # The rows this PE holds: for each local expert, the (rank, token) pairs in order.
    want = [(src, t, s, int(idx[src, t, s])) for e in range(me * local, (me + 1) * local)
            for src in range(n) for t in range(tokens) for s in range(top_k)
            if idx[src, t, s] == e]
    rows = len(want)
    counts = np.asarray(d.expert_counts)
    assert counts.sum() == rows
    np.testing.assert_array_equal(
        counts, [sum(1 for q in want if q[3] == e) for e in range(me * local, (me + 1) * local)])
    np.testing.assert_array_equal(np.asarray(d.src_rank)[:rows], [q[0] for q in want])
    np.testing.assert_array_equal(np.asarray(d.src_token)[:rows], [q[1] for q in want])
    np.testing.assert_array_equal(np.asarray(d.weights)[:rows], [w[q[0], q[1], q[2]] for q in want])
    np.testing.assert_array_equal(np.asarray(d.x)[:rows], [x[q[0], q[1]] for q in want])
    assert not np.asarray(d.x)[rows:].any()

    # out[t] = sum_k w (1 + e) x[t]; its gradients under loss = sum(out * g).
    scale = np.where(idx[me] >= 0, 1.0 + idx[me], 0.0)              # [tokens, top_k]
    ref_out = (w[me] * scale).sum(1)[:, None] * x[me]
    np.testing.assert_allclose(np.asarray(out), ref_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(float(value), float((ref_out * g[me]).sum()), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(dx), (w[me] * scale).sum(1)[:, None] * g[me],
                               rtol=1e-5, atol=1e-5)
    ref_dw = scale * (x[me] * g[me]).sum(1)[:, None]
    np.testing.assert_allclose(np.asarray(dw), ref_dw, rtol=1e-5, atol=1e-5)


def test_bad_expert_is_an_error_on_every_pe(sj, me, n):
    idx = np.zeros((2, 1), np.int32)
    if me == n - 1:
        idx[1, 0] = 2 * n  # past the 2n experts
    with pytest.raises(Exception, match=rf"team rank {n - 1} \(pe {n - 1}\): topk_idx\[1\]\[0\] = "
                                        rf"{2 * n} is not an expert"):
        sj.moe_dispatch(np.ones((2, 4), np.float32), idx, np.ones((2, 1), np.float32), 2 * n)

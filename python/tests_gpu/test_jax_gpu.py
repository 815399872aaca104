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


@pytest.mark.parametrize("causal", [True, False])
def test_ring_attention_on_the_gpu(gen, n, causal):
    """symmetra.jax.ring_attention's GPU path (cuDNN blocks on XLA's stream) under jax.jit with
    its vjp, in bfloat16 with GQA, against torch's attention in float64 on the same inputs."""
    from test_ring_attention_gpu import reference

    batch, q_heads, kv_heads, dim, chunk = 1, 4, 2, 64, 64
    tokens = 2 * n * chunk
    make = lambda h: torch.randn(  # noqa: E731
        batch, tokens, h, dim, generator=gen, device="cuda", dtype=torch.float64
    ).to(torch.bfloat16).double()
    q, k, v, dout = (make(h) for h in (q_heads, kv_heads, kv_heads, q_heads))
    want = reference(q, k, v, dout, causal)
    pos = torch.as_tensor(sj.zigzag_positions(tokens), device="cuda")
    mine = [jnp.asarray(t[:, pos].float().cpu().numpy()).astype(jnp.bfloat16)
            for t in (q, k, v, dout)]

    def f(q_, k_, v_, g):
        out, pull = jax.vjp(lambda a, b, c: sj.ring_attention(a, b, c, causal), q_, k_, v_)
        return (out,) + pull(g)

    got = jax.jit(f)(*mine)
    for x, ref, name in zip(got, want, ("out", "dq", "dk", "dv")):
        assert x.dtype == jnp.bfloat16, name
        np.testing.assert_allclose(np.asarray(x.astype(jnp.float32)), ref[:, pos].cpu().numpy(),
                                   rtol=3.5e-2, atol=3.5e-2, err_msg=name)

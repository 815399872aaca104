"""symmetra.torch.ring_attention on the CPU backend against full attention on one PE: the same
random q, k, v and dout on every PE (one seed), each PE's zigzag share through the ring, and out
and dq, dk, dv from autograd checked element by element against torch's own autograd of full
attention in float64."""

import pytest
import torch

import symmetra
import symmetra.torch as st


def full_attention(q, k, v, causal):
    """Plain attention over the whole sequence, in q's type: [batch, tokens, heads, dim]."""
    group = q.shape[2] // k.shape[2]
    k = k.repeat_interleave(group, dim=2)
    v = v.repeat_interleave(group, dim=2)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / q.shape[-1] ** 0.5
    if causal:
        t = q.shape[1]
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
    return torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), v)


def inputs(gen, n, q_heads, kv_heads, batch=2, dim=16, per_chunk=5):
    t = 2 * n * per_chunk
    make = lambda h: torch.randn(batch, t, h, dim, generator=gen, dtype=torch.float64)  # noqa: E731
    return make(q_heads), make(kv_heads), make(kv_heads), make(q_heads)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("kv_heads", [4, 2])
# float64 agrees to 1e-6, not to its own precision: the ring keeps each row's LSE in float32
# (kernels/ring_attention.hpp), and the backward recomputes the softmax from it.
@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-6), (torch.float32, 1e-5)])
def test_ring_attention_and_its_gradient(gen, me, n, causal, kv_heads, dtype, tol):
    q, k, v, dout = inputs(gen, n, 4, kv_heads)
    pos = st.zigzag_positions(q.shape[1])
    # The reference: full attention in float64 on every PE, its gradients by autograd.
    rq, rk, rv = (t.clone().requires_grad_() for t in (q, k, v))
    ref = full_attention(rq, rk, rv, causal)
    ref.backward(dout)
    # The ring: this PE's share, in dtype.
    mq, mk, mv = (t[:, pos].to(dtype).requires_grad_() for t in (q, k, v))
    out = st.ring_attention(mq, mk, mv, causal=causal)
    out.backward(dout[:, pos].to(dtype))
    assert out.dtype == dtype
    torch.testing.assert_close(out.double(), ref.detach()[:, pos], rtol=tol, atol=tol)
    for got, want, name in ((mq.grad, rq.grad, "dq"), (mk.grad, rk.grad, "dk"),
                            (mv.grad, rv.grad, "dv")):
        torch.testing.assert_close(got.double(), want[:, pos], rtol=tol, atol=tol, msg=name)


def test_ring_attention_bfloat16(gen, n):
    q, k, v, dout = inputs(gen, n, 4, 2)
    pos = st.zigzag_positions(q.shape[1])
    ref = full_attention(q, k, v, True)
    out = st.ring_attention(*(t[:, pos].to(torch.bfloat16) for t in (q, k, v)), causal=True)
    torch.testing.assert_close(out.double(), ref[:, pos], rtol=2.5e-2, atol=2.5e-2)


def test_ring_attention_bad_shapes(n):
    q = torch.zeros(1, 2 * n + 1, 4, 8)  # tokens per PE: the sequence is not 2N chunks
    with pytest.raises(symmetra.SymmetraError, match="2N|multiple"):
        st.ring_attention(q, q, q)
    with pytest.raises(ValueError, match="k .* and v .* differ"):
        st.ring_attention(torch.zeros(1, 2, 4, 8), torch.zeros(1, 2, 2, 8),
                          torch.zeros(1, 2, 4, 8))
    with pytest.raises(ValueError, match="q must be a 4-d tensor"):
        st.ring_attention(torch.zeros(2, 4, 8), torch.zeros(1, 2, 2, 8), torch.zeros(1, 2, 2, 8))

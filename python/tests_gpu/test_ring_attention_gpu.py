"""symmetra.torch.ring_attention on the GPU backend (cuDNN SDPA blocks, the ring on streams;
docs/ring_attention.md) against torch's own attention in float64: the same random q, k, v and
dout on every PE (one seed), each PE's zigzag share through the ring, out and the gradients
from autograd checked element by element. 2 PEs as processes sharing the GPU."""

import pytest
import torch
import torch.nn.functional as F

import symmetra
import symmetra.torch as st


def reference(q, k, v, dout, causal):
    """torch's attention over the whole sequence in float64, and its gradients by autograd.
    Tensors are [batch, tokens, heads, dim]; torch's are [batch, heads, tokens, dim]."""
    rq, rk, rv = (t.clone().requires_grad_() for t in (q, k, v))
    out = F.scaled_dot_product_attention(
        rq.transpose(1, 2), rk.transpose(1, 2), rv.transpose(1, 2), is_causal=causal,
        enable_gqa=True,
    ).transpose(1, 2)
    out.backward(dout)
    return out.detach(), rq.grad, rk.grad, rv.grad


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("kv_heads", [4, 2])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_ring_attention_gpu(gen, n, causal, kv_heads, dtype):
    batch, q_heads, dim, chunk = 2, 4, 64, 64
    tokens = 2 * n * chunk
    make = lambda h: torch.randn(  # noqa: E731
        batch, tokens, h, dim, generator=gen, device="cuda", dtype=torch.float64)
    # The inputs as the ring gets them (rounded to dtype), so the reference is their attention.
    q, k, v, dout = (make(h).to(dtype).double() for h in (q_heads, kv_heads, kv_heads, q_heads))
    want = reference(q, k, v, dout, causal)
    pos = st.zigzag_positions(tokens).cuda()
    mq, mk, mv = (t[:, pos].to(dtype).requires_grad_() for t in (q, k, v))
    out = st.ring_attention(mq, mk, mv, causal=causal)
    out.backward(dout[:, pos].to(dtype))
    # The bounds: bf16 2.5e-2, 3.5e-2 with GQA; fp16 has 3 more mantissa bits.
    tol = 1e-2 if dtype == torch.float16 else (2.5e-2 if kv_heads == q_heads else 3.5e-2)
    assert out.dtype == dtype and out.is_cuda
    for got, ref, name in ((out, want[0], "out"), (mq.grad, want[1], "dq"),
                           (mk.grad, want[2], "dk"), (mv.grad, want[3], "dv")):
        torch.testing.assert_close(got.double(), ref[:, pos], rtol=tol, atol=tol, msg=name)


def test_ring_attention_gpu_refuses_float32(n):
    q = torch.zeros(1, 2 * n * 8, 2, 64, device="cuda")
    with pytest.raises(symmetra.SymmetraError, match="bfloat16 or float16"):
        st.ring_attention(q, q, q)

// Full attention on one PE in fp64, the reference of the ring-attention tests (CPU path:
// ring_attention_test.cpp; GPU path: ring_attention_gpu_test.cu), and their element checks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "symmetra/core/float16.hpp"
#include "symmetra/kernels/ring_attention.hpp"

namespace symmetra::testing {

using symmetra::bfloat16;
using symmetra::half;
using symmetra::kernels::AttentionShape;
using symmetra::kernels::zigzag_position;

// Full attention over the whole sequence in fp64, written the textbook way (a softmax matrix and
// its Jacobian), independent of the ring's online softmax and delta trick.
struct Reference {
  AttentionShape s;
  std::vector<double> q, k, v, dout;  // [B, S, H, D]
  std::vector<double> out, lse, dq, dk, dv;

  std::size_t qi(int b, std::int64_t t, int h) const {
    return ((static_cast<std::size_t>(b) * s.seq_len + t) * s.q_heads + h) * s.head_dim;
  }
  std::size_t ki(int b, std::int64_t t, int g) const {
    return ((static_cast<std::size_t>(b) * s.seq_len + t) * s.kv_heads + g) * s.head_dim;
  }

  // round: what the inputs become in the type under test (bf16, fp16), so that the reference
  // is the exact attention of the inputs the ring gets; null: none.
  Reference(const AttentionShape& shape, std::uint64_t seed, double (*round)(double) = nullptr)
      : s(shape) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    auto fill = [&](std::vector<double>& x, std::size_t n) {
      x.resize(n);
      for (double& e : x) e = round != nullptr ? round(normal(gen)) : normal(gen);
    };
    const std::size_t nq = static_cast<std::size_t>(s.batch) * s.seq_len * s.q_heads * s.head_dim;
    const std::size_t nk = static_cast<std::size_t>(s.batch) * s.seq_len * s.kv_heads * s.head_dim;
    fill(q, nq);
    fill(k, nk);
    fill(v, nk);
    fill(dout, nq);
    out.assign(nq, 0);
    dq.assign(nq, 0);
    dk.assign(nk, 0);
    dv.assign(nk, 0);
    lse.assign(static_cast<std::size_t>(s.batch) * s.q_heads * s.seq_len, 0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
    const int group = s.q_heads / s.kv_heads, d_ = s.head_dim;
    const std::int64_t n = s.seq_len;
    std::vector<double> p(n * n), dp(n * n);
    for (int b = 0; b < s.batch; ++b)
      for (int h = 0; h < s.q_heads; ++h) {
        const int g = h / group;
        for (std::int64_t i = 0; i < n; ++i) {
          double mx = -INFINITY;
          for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (int d = 0; d < d_; ++d) dot += q[qi(b, i, h) + d] * k[ki(b, j, g) + d];
            p[i * n + j] = (s.causal && j > i) ? -INFINITY : scale * dot;
            mx = std::max(mx, p[i * n + j]);
          }
          double sum = 0;
          for (std::int64_t j = 0; j < n; ++j) sum += std::exp(p[i * n + j] - mx);
          lse[(static_cast<std::size_t>(b) * s.q_heads + h) * n + i] = mx + std::log(sum);
          for (std::int64_t j = 0; j < n; ++j) p[i * n + j] = std::exp(p[i * n + j] - mx) / sum;
          for (std::int64_t j = 0; j < n; ++j)
            for (int d = 0; d < d_; ++d) out[qi(b, i, h) + d] += p[i * n + j] * v[ki(b, j, g) + d];
        }
        // dP = dO V^T; dS = P (dP - rowsum(P dP)); dQ = scale dS K; dK = scale dS^T Q;
        // dV = P^T dO.
        for (std::int64_t i = 0; i < n; ++i) {
          double row = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (int d = 0; d < d_; ++d) dot += dout[qi(b, i, h) + d] * v[ki(b, j, g) + d];
            dp[i * n + j] = dot;
            row += p[i * n + j] * dot;
          }
          for (std::int64_t j = 0; j < n; ++j) {
            const double ds = p[i * n + j] * (dp[i * n + j] - row);
            for (int d = 0; d < d_; ++d) {
              dq[qi(b, i, h) + d] += scale * ds * k[ki(b, j, g) + d];
              dk[ki(b, j, g) + d] += scale * ds * q[qi(b, i, h) + d];
              dv[ki(b, j, g) + d] += p[i * n + j] * dout[qi(b, i, h) + d];
            }
          }
        }
      }
  }

  // PE `rank`'s zigzag tokens of a [B, S, heads, D] tensor, as T.
  template <class T>
  std::vector<T> local(const std::vector<double>& x, int heads, int rank, int n_pes) const {
    const std::int64_t local_tokens = s.seq_len / n_pes;
    const std::size_t row = static_cast<std::size_t>(heads) * s.head_dim;
    std::vector<T> out_(static_cast<std::size_t>(s.batch) * local_tokens * row);
    for (int b = 0; b < s.batch; ++b)
      for (std::int64_t i = 0; i < local_tokens; ++i) {
        const std::int64_t t = zigzag_position(i, rank, n_pes, s.seq_len);
        for (std::size_t e = 0; e < row; ++e)
          out_[(static_cast<std::size_t>(b) * local_tokens + i) * row + e] =
              static_cast<T>(x[(static_cast<std::size_t>(b) * s.seq_len + t) * row + e]);
      }
    return out_;
  }
  std::vector<double> local_lse(int rank, int n_pes) const {
    const std::int64_t local_tokens = s.seq_len / n_pes;
    std::vector<double> out_(static_cast<std::size_t>(s.batch) * s.q_heads * local_tokens);
    for (int bh = 0; bh < s.batch * s.q_heads; ++bh)
      for (std::int64_t i = 0; i < local_tokens; ++i)
        out_[bh * local_tokens + i] =
            lse[bh * s.seq_len + zigzag_position(i, rank, n_pes, s.seq_len)];
    return out_;
  }
};

// Within 1e-5 for fp32 (the bound) and 1e-10 for fp64, relative to max(1, |ref|);
// fp64 gradients within 1e-5, as fp32: the backward reads the forward's fp32 LSE, whose rounding
// (about 6e-8 of values of a few units) every softmax weight inherits, and sums of 40 such
// weights add it up. Over 7,200 fp64 gradient checks the worst was 6.5e-7, and CI once saw
// 1.06e-6, past the 1e-6 bound this used to be; fp32's own worst over 6,400 was 1.8e-6.
// The 16-bit types: each element within atol = rtol = 2.5e-2 for bf16 (the bound for
// the GPU path) and 5e-3 for fp16, and the whole tensor within a relative norm of 1e-2 and 2e-3
// (a wrong block moves the norm far more). Their outputs are rounded once from fp32, and the
// backward's delta reads the rounded out, as FlashAttention's does: over 6 runs of every case
// the worst bf16 element was off by 1.7e-2 of max(1, |ref|) (dk), fp16's by 2.6e-3.
template <class T>
double tolerance(bool gradient) {
  if constexpr (std::is_same_v<T, bfloat16>) return 2.5e-2;
  if constexpr (std::is_same_v<T, half>) return 5e-3;
  return sizeof(T) == 4 || gradient ? 1e-5 : 1e-10;
}

// An element as double, for the 16-bit types too (their conversion is to float, explicitly).
template <class T>
double as_double(T x) {
  return static_cast<double>(static_cast<float>(x));
}
inline double as_double(double x) {
  return x;
}

// tol: each element's bound; 0: tolerance<T> (gradients are what starts with 'd').
template <class T, class U>
void expect_near_all(const std::vector<T>& got, const std::vector<U>& ref, const std::string& what,
                     int pe, double tol = 0) {
  constexpr bool k16 = sizeof(T) == 2;
  if (tol == 0) tol = tolerance<T>(what[0] == 'd');
  ASSERT_EQ(got.size(), ref.size()) << what;
  std::size_t bad = 0, worst = 0;
  double worst_err = 0, diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double r = static_cast<double>(ref[i]), d = std::abs(as_double(got[i]) - r);
    const double err = k16 ? d / (1 + std::abs(r)) : d / std::max(1.0, std::abs(r));
    diff2 += d * d;
    ref2 += r * r;
    if (err > tol) ++bad;
    if (err > worst_err) worst_err = err, worst = i;
  }
  EXPECT_EQ(bad, 0u) << "[pe " << pe << "] " << what << ": " << bad << " of " << got.size()
                     << " elements off; worst at " << worst << ": " << as_double(got[worst])
                     << " against " << ref[worst];
  if (k16)
    EXPECT_LE(std::sqrt(diff2 / std::max(ref2, 1e-30)), tol / 2.5)
        << "[pe " << pe << "] " << what << ": relative norm of the error";
}

}  // namespace symmetra::testing

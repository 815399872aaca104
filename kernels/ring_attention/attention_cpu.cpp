#include "attention_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace symmetra::kernels::cpu {
namespace {

struct Index {
  const Block& g;
  std::size_t q(int b, std::int64_t i, int h) const {
    return ((static_cast<std::size_t>(b) * g.q_tokens + i) * g.q_heads + h) * g.head_dim;
  }
  std::size_t k(int b, std::int64_t j, int kh) const {
    return ((static_cast<std::size_t>(b) * g.k_tokens + j) * g.kv_heads + kh) * g.head_dim;
  }
  std::size_t row(int b, int h, std::int64_t i) const {
    return (static_cast<std::size_t>(b) * g.q_heads + h) * g.q_tokens + i;
  }
  bool visible(std::int64_t i, std::int64_t j) const {
    return !g.causal || g.k_pos[j] <= g.q_pos[i];
  }
};

template <class T>
T dot(const T* a, const T* b, int n) {
  T s = 0;
  for (int d = 0; d < n; ++d) s += a[d] * b[d];
  return s;
}

}  // namespace

template <class T>
void attend(const Block& g, const T* q, const T* k, const T* v, T* o, T* lse) {
  const Index at{g};
  const int group = g.q_heads / g.kv_heads, dim = g.head_dim;
  const T scale = static_cast<T>(g.scale);
  std::vector<T> s(g.k_tokens), ob(dim);
  for (int b = 0; b < g.batch; ++b)
    for (int h = 0; h < g.q_heads; ++h)
      for (std::int64_t i = 0; i < g.q_tokens; ++i) {
        const T* qi = q + at.q(b, i, h);
        T m = -std::numeric_limits<T>::infinity();
        for (std::int64_t j = 0; j < g.k_tokens; ++j) {
          s[j] = at.visible(i, j) ? scale * dot(qi, k + at.k(b, j, h / group), dim)
                                  : -std::numeric_limits<T>::infinity();
          m = std::max(m, s[j]);
        }
        if (m == -std::numeric_limits<T>::infinity()) continue;  // no key of this block is seen
        T l = 0;
        std::fill(ob.begin(), ob.end(), T{0});
        for (std::int64_t j = 0; j < g.k_tokens; ++j) {
          if (s[j] == -std::numeric_limits<T>::infinity()) continue;
          const T p = std::exp(s[j] - m);
          l += p;
          const T* vj = v + at.k(b, j, h / group);
          for (int d = 0; d < dim; ++d) ob[d] += p * vj[d];
        }
        const T block_lse = m + std::log(l);
        T& run = lse[at.row(b, h, i)];
        T* oi = o + at.q(b, i, h);
        if (run == -std::numeric_limits<T>::infinity()) {
          for (int d = 0; d < dim; ++d) oi[d] = ob[d] / l;
          run = block_lse;
          continue;
        }
        // The online-softmax merge of the running (O, LSE) with the block's.
        const T hi = std::max(run, block_lse);
        const T merged = hi + std::log(std::exp(run - hi) + std::exp(block_lse - hi));
        const T keep = std::exp(run - merged), add = std::exp(block_lse - merged) / l;
        for (int d = 0; d < dim; ++d) oi[d] = oi[d] * keep + ob[d] * add;
        run = merged;
      }
}

template <class T>
void attend_backward(const Block& g, const T* q, const T* k, const T* v, const T* dout,
                     const float* lse, const T* delta, T* dq, T* dk, T* dv) {
  const Index at{g};
  const int group = g.q_heads / g.kv_heads, dim = g.head_dim;
  const T scale = static_cast<T>(g.scale);
  for (int b = 0; b < g.batch; ++b)
    for (int h = 0; h < g.q_heads; ++h)
      for (std::int64_t i = 0; i < g.q_tokens; ++i) {
        const T* qi = q + at.q(b, i, h);
        const T* doi = dout + at.q(b, i, h);
        T* dqi = dq + at.q(b, i, h);
        const T li = static_cast<T>(lse[at.row(b, h, i)]), di = delta[at.row(b, h, i)];
        for (std::int64_t j = 0; j < g.k_tokens; ++j) {
          if (!at.visible(i, j)) continue;
          const std::size_t kj = at.k(b, j, h / group);
          const T p = std::exp(scale * dot(qi, k + kj, dim) - li);
          const T ds = p * (dot(doi, v + kj, dim) - di);
          for (int d = 0; d < dim; ++d) {
            dv[kj + d] += p * doi[d];
            dqi[d] += scale * ds * k[kj + d];
            dk[kj + d] += scale * ds * qi[d];
          }
        }
      }
}

template void attend<float>(const Block&, const float*, const float*, const float*, float*, float*);
template void attend<double>(const Block&, const double*, const double*, const double*, double*,
                             double*);
template void attend_backward<float>(const Block&, const float*, const float*, const float*,
                                     const float*, const float*, const float*, float*, float*,
                                     float*);
template void attend_backward<double>(const Block&, const double*, const double*, const double*,
                                      const double*, const float*, const double*, double*, double*,
                                      double*);

}  // namespace symmetra::kernels::cpu

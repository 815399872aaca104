// Plain attention on one key/value block, on the CPU: the blocks of the ring's CPU path
// (ring_attention.hpp). Accumulates in T (fp32 or fp64); positions are sequence positions, so
// the causal mask holds across the zigzag's chunks.
#pragma once

#include <cstdint>

namespace symmetra::kernels::cpu {

struct Block {
  int batch, q_heads, kv_heads, head_dim;
  std::int64_t q_tokens, k_tokens;
  const std::int64_t* q_pos;  // sequence position of each query token
  const std::int64_t* k_pos;  // and of each key token of the block
  bool causal;
  double scale;
};

// Folds softmax(scale q k^T) v over this block into the running normalized output `o` [batch,
// q_tokens, q_heads, head_dim] and log-sum-exp `lse` [batch, q_heads, q_tokens] (-inf: no key
// seen yet), with the online-softmax rule.
template <class T>
void attend(const Block& g, const T* q, const T* k, const T* v, T* o, T* lse);

// The block's share of the gradients: adds into dq (this PE's queries) and dk, dv (the block's
// keys), from the forward's lse and delta = rowsum(dout * out) [batch, q_heads, q_tokens].
template <class T>
void attend_backward(const Block& g, const T* q, const T* k, const T* v, const T* dout,
                     const float* lse, const T* delta, T* dq, T* dk, T* dv);

}  // namespace symmetra::kernels::cpu

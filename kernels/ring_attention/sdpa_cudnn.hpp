// Attention blocks of the ring's GPU path: cuDNN's fused SDPA (flash attention) forward with its
// statistics (the LSE) and backward, through the cuDNN frontend's graph API. Built only where
// the frontend's headers and cuDNN were found (SYMMETRA_KERNELS_CUDNN).
//
// A block is this PE's queries against one key/value block of the ring. Under the zigzag split
// and a causal mask every block is one of four pieces, each a dense rectangle (ring_gpu.cu says
// why): the diagonal (own block, causal), all against all (a full mask), the late queries
// against all keys, or all queries against the early keys. One cuDNN graph per piece and
// direction, built once in the constructor.
//
// Tensors are this PE's [batch, local, heads, head_dim] (row-major, the ring's layout); a piece
// reads and writes only its rows (Rows), at their offsets. Statistics (the LSE, fp32) are packed
// [batch, q_heads, q_len] for the piece's q_len rows.
//
// Threads: one Sdpa belongs to one PE's thread; calls enqueue on the given stream and return.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "symmetra/data_type.hpp"
#include "symmetra/kernels/ring_attention.hpp"
#include "symmetra/stream.hpp"

namespace symmetra::kernels::gpu {

enum class Piece { kDiagonal, kAll, kQueriesLate, kKeysEarly };

// The rows of a piece, in local tokens: queries [q_off, q_off + q_len), keys [k_off, ...).
struct Rows {
  std::int64_t q_off, q_len, k_off, k_len;
  bool causal;
};
Rows rows_of(Piece p, std::int64_t local);

class Sdpa {
 public:
  // Builds the graphs of `pieces`, forward and backward. type: kBfloat16 or kHalf. Throws Error,
  // prefixed with `[pe N] ring_attention: `, when cuDNN refuses (no GPU path for this shape).
  Sdpa(const AttentionShape& shape, std::int64_t local, DataType type,
       const std::vector<Piece>& pieces, int pe);
  ~Sdpa();
  Sdpa(const Sdpa&) = delete;
  Sdpa& operator=(const Sdpa&) = delete;

  // o (the rows of the piece's queries) and its statistics `stats`, packed.
  void forward(Piece p, const void* q, const void* k, const void* v, void* o, float* stats,
               Stream s);
  // dq of the piece's query rows, dk and dv of its key rows (overwritten, not added), from the
  // final o and its lse (packed for the piece's query rows).
  void backward(Piece p, const void* q, const void* k, const void* v, const void* o,
                const void* dout, const float* lse, void* dq, void* dk, void* dv, Stream s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace symmetra::kernels::gpu

// Ring-attention context parallelism on Symmetra (docs/ring_attention.md): attention over a
// sequence split across a team's PEs, each PE's key/value block travelling the ring by
// put-with-signal while the PEs compute attention against the block in hand.
//
// The split is zigzag: the sequence is cut into 2N chunks (N: the team's size), and the PE of
// team rank r holds chunks r and 2N-1-r, in that order, so that causal work is balanced. Every
// PE's q, k, v, out, lse, dout, dq, dk and dv hold its own 2 chunks.
//
// Layouts (row-major): q, out, dout, dq [batch, local_tokens, q_heads, head_dim]; k, v, dk, dv
// [batch, local_tokens, kv_heads, head_dim]; lse [batch, q_heads, local_tokens] in fp32 (the
// natural log of each query row's softmax denominator, scores scaled). kv_heads divides q_heads:
// query head h reads key/value head h / (q_heads / kv_heads) (GQA).
//
// The ring: each step, a PE forwards the key/value block it holds to the next PE (put-with-signal
// into one of that PE's two buffers) and computes attention against it; the receiver returns a
// credit once it has read a buffer, and no sender writes a buffer before its credit arrived.
// (O, LSE) merge in the accumulation type with the online-softmax rule. The backward pass sends
// the blocks round again, with their dK/dV accumulators on a second channel; after the last step
// each accumulator takes one more hop, home to its block's owner.
//
// Two paths, chosen by the runtime's backend:
// - CPU backend: plain attention behind the ring protocol, on fp32, fp64, bf16 or fp16 inputs
//   in host memory, blocking. The 16-bit ones travel the ring as they are and are computed in
//   fp32: scores, the (O, LSE) merge, dQ and the travelling dK/dV accumulators.
// - GPU backend (builds with cuDNN): bf16 or fp16 inputs in device memory. cuDNN's SDPA computes
//   each block on the caller's stream (the compute stream); the ring's puts, signals and credits
//   run on two communication streams of the object's own, joined back into the caller's stream
//   by events, so the calls enqueue and return. The merge, dQ and the dK/dV accumulators are
//   fp32, as on the CPU path; cuDNN's block outputs (O, dQ, dK, dV) are 16-bit before they are
//   accumulated.
//
// Threads: one RingAttention belongs to one PE; forward and backward are collective over the
// team, made by every member in the same order, one thread at a time. Construction and
// destruction are collective over the world, as symmetric allocation is: PEs outside the team
// construct it too, and call nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symmetra/data_type.hpp"
#include "symmetra/runtime.hpp"
#include "symmetra/stream.hpp"
#include "symmetra/team.hpp"

namespace symmetra::kernels {

struct Channel;

struct AttentionShape {
  int batch = 1;
  int q_heads = 1;
  int kv_heads = 1;  // divides q_heads
  int head_dim = 64;
  std::int64_t seq_len = 0;  // the whole sequence, across the team
  bool causal = true;        // a query sees the keys at and before its position
  double scale = 0;          // the scores' factor; 0: 1/sqrt(head_dim)
};

struct RingAttentionOptions {
  // Called before the PE computes against the block of `step` (pass 0: forward, 1: backward):
  // for instrumentation, and for the tests that slow one receiver to show that no block is
  // overwritten before it was read.
  std::function<void(int pass, int step)> before_step;
  // Benchmarks only, GPU path: every step computes its block against this PE's own keys and
  // values and nothing is exchanged, so the results are wrong. What is left is the ring's own
  // attention kernels and merges: the ideal that the ring's overhead is measured against
  // (bench/ring_attention_perf.cu).
  bool compute_only = false;
  // Benchmarks only, GPU path, PEs as threads of one process: the ring's messages and credits
  // go by cudaMemcpyAsync and CUDA events instead of put-with-signal (the baseline a ring on
  // plain CUDA would be; ring_attention/copy_channel.hpp). Same results.
  bool exchange_by_copies = false;
};

// The zigzag split for a team of n: tokens per PE (seq_len / n), and the sequence position of
// local token `i` of team rank `rank`.
std::int64_t zigzag_local_tokens(std::int64_t seq_len, int n);
std::int64_t zigzag_position(std::int64_t i, int rank, int n, std::int64_t seq_len);

class RingAttention {
 public:
  // Collective over the world: checks the shape (seq_len a multiple of 2N, q_heads a multiple of
  // kv_heads: Error naming what is wrong, nothing padded) and allocates the symmetric buffers of
  // the two channels. type: kFloat, kDouble, kBfloat16 or kHalf.
  RingAttention(Runtime& rt, const Team& team, const AttentionShape& shape, DataType type,
                RingAttentionOptions options = {});
  // Collective over the world: frees the buffers.
  ~RingAttention();
  RingAttention(const RingAttention&) = delete;
  RingAttention& operator=(const RingAttention&) = delete;

  const AttentionShape& shape() const { return shape_; }
  std::int64_t local_tokens() const { return local_; }

  // Collective: out and lse of this PE's queries over the whole sequence. stream: null on the
  // CPU backend (host memory, returns when done); on the GPU backend the stream the call is
  // ordered on (device memory; returns once enqueued; null is CUDA's default stream).
  void forward(const void* q, const void* k, const void* v, void* out, float* lse,
               Stream stream = nullptr);
  // Collective: dq, dk, dv of this PE's tokens, from the forward's out and lse and the
  // gradient dout. dk and dv arrive from the last PE that used them, so they are complete when
  // this returns.
  void backward(const void* q, const void* k, const void* v, const void* out, const float* lse,
                const void* dout, void* dq, void* dk, void* dv, Stream stream = nullptr);

 private:
  struct Gpu;  // the GPU path's streams, events, cuDNN graphs and scratch (ring_gpu.cu)
  struct GpuDelete {
    void operator()(Gpu* g) const;
  };
  void check_call(const char* op, Stream stream) const;
  // The GPU path (ring_gpu.cu, built with cuDNN): its set-up (what is wrong, "" if nothing),
  // and the two passes, enqueued on `stream`.
  std::string make_gpu();
  void quiesce_gpu();          // waits for this PE's ring streams (the destructor's first step)
  void attach_gpu_channels();  // the GPU path's view of kv_ and dkv_, once they exist
  void forward_gpu(const void* q, const void* k, const void* v, void* out, float* lse,
                   Stream stream);
  void backward_gpu(const void* q, const void* k, const void* v, const void* out, const float* lse,
                    const void* dout, void* dq, void* dk, void* dv, Stream stream);
  // This PE's own block, [k | v], into own_: what step 0 computes against and sends.
  template <class T>
  void pack_own(const T* k, const T* v);
  template <class T>
  void forward_t(const T* q, const T* k, const T* v, T* out, float* lse);
  template <class T>
  void backward_t(const T* q, const T* k, const T* v, const T* out, const float* lse, const T* dout,
                  T* dq, T* dk, T* dv);

  Runtime& rt_;
  AttentionShape shape_;
  DataType type_;
  RingAttentionOptions options_;
  int rank_ = 0, n_ = 1;
  std::int64_t local_ = 0;               // tokens per PE
  std::size_t kv_elems_ = 0;             // one of k or v: batch * local * kv_heads * head_dim
  std::unique_ptr<Channel> kv_;          // key/value blocks
  std::unique_ptr<Channel> dkv_;         // their dK/dV accumulators (backward)
  std::vector<std::byte> own_;           // this PE's block, packed [k | v], what step 0 sends
  std::vector<std::byte> stage_;         // the dK/dV accumulators this PE sends on
  std::unique_ptr<Gpu, GpuDelete> gpu_;  // the GPU backend's path; null on the CPU backend
};

}  // namespace symmetra::kernels

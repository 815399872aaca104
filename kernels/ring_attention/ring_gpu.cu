// The ring's GPU path (ring_attention.hpp): cuDNN SDPA blocks on the caller's stream, the ring
// on two communication streams, fp32 merges and accumulators in small kernels.
//
// Pieces. Under a causal mask and the zigzag split, PE r's queries against the block of owner o
// form one dense rectangle, so every step is one cuDNN call without a mask tensor:
// - o == r (step 0): the local causal diagonal; local token order is sequence order.
// - o < r: the owner's early chunk precedes both of r's chunks and its late chunk follows both:
//   all queries against the early keys.
// - o > r: both of the owner's chunks lie after r's early chunk and before its late one: the late
//   queries against all keys.
// Each piece is half of a full block, so every PE does the same work at every step. A full mask
// is all against all.
//
// Streams. S is the caller's stream; K carries the key/value channel, D the dK/dV channel
// (backward), R the key/value credits. Each step: K waits for the block and forwards it to the
// next PE; S computes against it and merges; R returns the block's credit once both are done.
// The credits must not be on K: K's next forward would wait for S, and with 4 PEs or more the
// PEs' forwards would wait for each other's credits in a circle. In the backward, D waits for
// the block's accumulators, and sends them on once S added this PE's share into them, in place.
// Events join K, D and R back into S at the end, so the caller's stream orders everything. One
// event per kind suffices: each wait is enqueued before the next record of its event.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "channel.hpp"
#include "copy_channel.hpp"
#include "sdpa_cudnn.hpp"
#include "symmetra/kernels/ring_attention.hpp"

namespace symmetra::kernels {

using gpu::Piece;
using gpu::Rows;

namespace {

__device__ float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ float to_float(__half x) {
  return __half2float(x);
}
template <class T>
__device__ T from_float(float x);
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__device__ __half from_float<__half>(float x) {
  return __float2half(x);
}

// Folds a block's (o_blk, l_blk) into the running (o_acc, l_acc) by the online-softmax rule, for
// the piece's query rows: a warp per (batch, head, row), striding over the rows, since the grid is
// capped (blocks_for) and a long sequence has more rows than the grid has warps. o: [B, L, H, D];
// l_acc [B, H, L]; l_blk packed [B, H, q_len]. `first`: the running pair holds nothing yet (not
// even zeros).
template <class T>
__global__ void merge_kernel(float* o_acc, float* l_acc, const T* o_blk, const float* l_blk, int B,
                             int H, int D, long long L, long long q_off, long long q_len,
                             bool first) {
  const long long rows = static_cast<long long>(B) * H * q_len;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const int lane = threadIdx.x % 32;
  for (long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
       row < rows; row += warps) {
    const long long bh = row / q_len, i = row % q_len;
    const long long b = bh / H, h = bh % H, s = q_off + i;
    const long long li = bh * L + s;
    const long long oi = ((b * L + s) * H + h) * D;
    const float lb = l_blk[row];
    float wa = 0, wb = 1, l_new = lb;
    if (!first) {
      const float la = l_acc[li], m = fmaxf(la, lb);
      if (m == -INFINITY) continue;  // neither has seen a key: nothing to fold
      l_new = m + logf(expf(la - m) + expf(lb - m));
      wa = expf(la - l_new);
      wb = expf(lb - l_new);
    }
    for (int d = lane; d < D; d += 32)
      o_acc[oi + d] = (first ? 0.f : wa * o_acc[oi + d]) + wb * to_float(o_blk[oi + d]);
    if (lane == 0) l_acc[li] = l_new;
  }
}

// acc (+)= part over rows [off, off + len) of [B, L, row] tensors; init: acc = part there.
template <class T>
__global__ void add_rows_kernel(float* acc, const T* part, long long L, long long row,
                                long long off, long long len, long long total, bool init) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long b = e / (len * row), r = e % (len * row);
    const long long at = (b * L + off) * row + r;
    const float x = to_float(part[at]);
    acc[at] = init ? x : acc[at] + x;
  }
}

template <class T>
__global__ void store_kernel(T* dst, const float* src, long long n) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[e] = from_float<T>(src[e]);
}

unsigned blocks_for(long long n, int threads) {
  const long long b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

cudaStream_t cu(Stream s) {
  return reinterpret_cast<cudaStream_t>(s);
}

}  // namespace

struct RingAttention::Gpu {
  int pe = 0;
  // Elements of this PE's q (and out, dq), of k (and v), and rows of its LSE.
  std::size_t q_elems = 0, kv_elems = 0, rows = 0;
  std::unique_ptr<gpu::Sdpa> sdpa;
  // K, D and R of the header comment.
  cudaStream_t kv_stream = nullptr, dkv_stream = nullptr, credit_stream = nullptr;
  cudaEvent_t start = nullptr, arrived = nullptr, sent = nullptr, done = nullptr,
              dkv_arrived = nullptr, added = nullptr, end[3] = {nullptr, nullptr, nullptr};
  float* o_acc = nullptr;     // [B, L, Hq, D] the running output
  void* o_blk = nullptr;      // [B, L, Hq, D] a block's output, 16-bit
  float* l_blk = nullptr;     // [B, Hq, L] a block's LSE, packed by rows
  float* lse_part = nullptr;  // [B, Hq, L] the final LSE's rows of a piece, packed
  float* dq_acc = nullptr;    // [B, L, Hq, D]
  void* dq_blk = nullptr;     // 16-bit block gradients
  void* dk_blk = nullptr;
  void* dv_blk = nullptr;
  float* stage = nullptr;  // [dk | dv] accumulators of this PE's own block (step 0)
  // The channels as the passes use them: Symmetra's stream forms, or the copies baseline.
  std::unique_ptr<gpu::StreamChannel> kv, dkv;

  void check(cudaError_t e, const char* what) const {
    if (e != cudaSuccess)
      throw Error("[pe " + std::to_string(pe) + "] ring_attention: " + what + ": " +
                  cudaGetErrorString(e));
  }
  template <class P>
  void alloc(P*& p, std::size_t bytes) {
    void* raw = nullptr;
    check(cudaMalloc(&raw, bytes), "cudaMalloc");
    p = static_cast<P*>(raw);
  }
  // Waits for the ring's streams: every message this PE expects has come, every one it sent
  // has landed.
  void quiesce() const {
    for (cudaStream_t s : {kv_stream, dkv_stream, credit_stream})
      if (s != nullptr) cudaStreamSynchronize(s);
  }
  // cudaFree waits for the whole GPU: only after every PE quiesced (~RingAttention).
  ~Gpu() {
    quiesce();
    for (void* p :
         {static_cast<void*>(o_acc), o_blk, static_cast<void*>(l_blk), static_cast<void*>(lse_part),
          static_cast<void*>(dq_acc), dq_blk, dk_blk, dv_blk, static_cast<void*>(stage)})
      cudaFree(p);
    for (cudaEvent_t e : {start, arrived, sent, done, dkv_arrived, added, end[0], end[1], end[2]})
      if (e != nullptr) cudaEventDestroy(e);
    for (cudaStream_t s : {kv_stream, dkv_stream, credit_stream})
      if (s != nullptr) cudaStreamDestroy(s);
  }
  void warm_up(const std::vector<Piece>& pieces);
  // Step t's key/value block into kb, vb: this PE's own (k, v) at step 0 or without exchange,
  // else the one that arrives on K, which K forwards to the next PE unless t is the last step.
  // Returns whether it came from the previous PE (and so needs its credit returned).
  bool take_block(gpu::StreamChannel& kv, int t, int n, bool exchange, const void*& kb,
                  const void*& vb) const {
    const bool x = t > 0 && exchange;
    if (x) {
      const std::byte* block = kv.receive_on(reinterpret_cast<Stream>(kv_stream));
      kb = block;
      vb = block + kv_elems * 2;
      record(arrived, kv_stream);
    }
    if (t < n - 1 && exchange)
      kv.send_on(kb, kv_elems * 2, vb, reinterpret_cast<Stream>(kv_stream));
    if (x) record(sent, kv_stream);
    return x;
  }
  void wait(cudaStream_t s, cudaEvent_t e) const {
    check(cudaStreamWaitEvent(s, e, 0), "cudaStreamWaitEvent");
  }
  void record(cudaEvent_t e, cudaStream_t s) const {
    check(cudaEventRecord(e, s), "cudaEventRecord");
  }
  // The credit of the block S just computed against, once S is done with it and K sent it on,
  // on R: a release on K would make K's next forward wait for S, and the forwards of all PEs
  // wait for each other's credits in a circle (4 PEs or more).
  void release_kv(gpu::StreamChannel& kv, cudaStream_t S) const {
    record(done, S);
    wait(credit_stream, sent);
    wait(credit_stream, done);
    kv.release_on(reinterpret_cast<Stream>(credit_stream));
  }
  // The caller's stream waits for the ring's streams: everything of the call is before what the
  // caller enqueues next.
  void join(cudaStream_t S) const {
    const cudaStream_t ring[3] = {kv_stream, dkv_stream, credit_stream};
    for (int i = 0; i < 3; ++i) {
      record(end[i], ring[i]);
      wait(S, end[i]);
    }
  }
};

void RingAttention::GpuDelete::operator()(Gpu* g) const {
  delete g;
}

void RingAttention::quiesce_gpu() {
  if (gpu_) gpu_->quiesce();
}

void RingAttention::attach_gpu_channels() {
  if (options_.exchange_by_copies) {
    gpu_->kv = std::make_unique<gpu::CopyChannel>(rt_, *kv_);
    gpu_->dkv = std::make_unique<gpu::CopyChannel>(rt_, *dkv_);
  } else {
    gpu_->kv = std::make_unique<gpu::SymmetraChannel>(*kv_);
    gpu_->dkv = std::make_unique<gpu::SymmetraChannel>(*dkv_);
  }
}

// Loads every kernel the ring launches, cuDNN's and its own, by running each once on zeros.
// A kernel's first launch loads its module lazily, and loading waits for all work on the GPU:
// during a call, that includes other PEs' streams held by the ring's waits for this PE, which
// would then never come (docs/gpu_backend.md, "PEs that share a GPU"). In the constructor no
// PE waits on the GPU yet.
void RingAttention::Gpu::warm_up(const std::vector<Piece>& pieces) {
  Gpu& g = *this;
  const cudaStream_t s = g.kv_stream;
  for (auto [p, bytes] : {std::pair<void*, std::size_t>{g.o_blk, q_elems * 2},
                          {g.dq_blk, q_elems * 2},
                          {g.dk_blk, kv_elems * 2},
                          {g.dv_blk, kv_elems * 2},
                          {g.l_blk, rows * 4},
                          {g.stage, kv_elems * 8}})
    g.check(cudaMemsetAsync(p, 0, bytes, s), "cudaMemsetAsync");
  auto* st = reinterpret_cast<Stream>(s);
  std::byte* dk16 = reinterpret_cast<std::byte*>(g.stage);  // 16-bit dk, dv: scratch for once
  for (Piece p : pieces) {
    g.sdpa->forward(p, g.dq_blk, g.dk_blk, g.dv_blk, g.o_blk, g.l_blk, st);
    g.sdpa->backward(p, g.o_blk, g.dk_blk, g.dv_blk, g.o_blk, g.o_blk, g.l_blk, g.dq_blk, dk16,
                     dk16 + kv_elems * 2, st);
  }
  cudaFuncAttributes a;
  g.check(cudaFuncGetAttributes(&a, merge_kernel<__nv_bfloat16>), "loading the ring's kernels");
  g.check(cudaFuncGetAttributes(&a, merge_kernel<__half>), "loading the ring's kernels");
  g.check(cudaFuncGetAttributes(&a, add_rows_kernel<__nv_bfloat16>), "loading the ring's kernels");
  g.check(cudaFuncGetAttributes(&a, add_rows_kernel<__half>), "loading the ring's kernels");
  g.check(cudaFuncGetAttributes(&a, store_kernel<__nv_bfloat16>), "loading the ring's kernels");
  g.check(cudaFuncGetAttributes(&a, store_kernel<__half>), "loading the ring's kernels");
  g.check(cudaStreamSynchronize(s), "warming up cuDNN's SDPA");
}

std::string RingAttention::make_gpu() {
  auto g = std::unique_ptr<Gpu, GpuDelete>(new Gpu);
  g->pe = rt_.my_pe();
  try {
    std::vector<Piece> pieces;
    if (!shape_.causal)
      pieces = {Piece::kAll};
    else if (n_ == 1)
      pieces = {Piece::kDiagonal};
    else
      pieces = {Piece::kDiagonal, Piece::kQueriesLate, Piece::kKeysEarly};
    g->sdpa = std::make_unique<gpu::Sdpa>(shape_, local_, type_, pieces, rt_.my_pe());
    for (cudaStream_t* s : {&g->kv_stream, &g->dkv_stream, &g->credit_stream})
      g->check(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), "cudaStreamCreate");
    for (cudaEvent_t* e : {&g->start, &g->arrived, &g->sent, &g->done, &g->dkv_arrived, &g->added,
                           &g->end[0], &g->end[1], &g->end[2]})
      g->check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");
    g->q_elems = static_cast<std::size_t>(shape_.batch) * local_ * shape_.q_heads * shape_.head_dim;
    g->kv_elems = kv_elems_;
    g->rows = static_cast<std::size_t>(shape_.batch) * shape_.q_heads * local_;
    g->alloc(g->o_acc, g->q_elems * 4);
    g->alloc(g->o_blk, g->q_elems * 2);
    g->alloc(g->l_blk, g->rows * 4);
    g->alloc(g->lse_part, g->rows * 4);
    g->alloc(g->dq_acc, g->q_elems * 4);
    g->alloc(g->dq_blk, g->q_elems * 2);
    g->alloc(g->dk_blk, kv_elems_ * 2);
    g->alloc(g->dv_blk, kv_elems_ * 2);
    g->alloc(g->stage, 2 * kv_elems_ * 4);
    g->warm_up(pieces);
  } catch (const Error& e) {
    // The message goes to every PE through the constructor's agreement; drop the prefix.
    const std::string what = e.what();
    const std::string tag = "ring_attention: ";
    const auto at = what.find(tag);
    return at == std::string::npos ? what : what.substr(at + tag.size());
  }
  gpu_ = std::move(g);
  return "";
}

namespace {

// The piece of step t: this PE (rank) against the block of owner (rank - t) mod n.
Piece piece_of(const AttentionShape& s, int rank, int n, int t) {
  if (!s.causal) return Piece::kAll;
  if (t == 0) return Piece::kDiagonal;
  const int owner = (rank - t + n) % n;
  return owner < rank ? Piece::kKeysEarly : Piece::kQueriesLate;
}

template <class T>
void add_rows(float* acc, const void* part, const AttentionShape& s, std::int64_t local, int heads,
              std::int64_t off, std::int64_t len, bool init, cudaStream_t st) {
  const long long row = static_cast<long long>(heads) * s.head_dim;
  const long long total = static_cast<long long>(s.batch) * len * row;
  add_rows_kernel<T><<<blocks_for(total, 256), 256, 0, st>>>(acc, static_cast<const T*>(part),
                                                             local, row, off, len, total, init);
}

template <class T>
void store(void* dst, const float* src, std::size_t n, cudaStream_t st) {
  store_kernel<T><<<blocks_for(static_cast<long long>(n), 256), 256, 0, st>>>(
      static_cast<T*>(dst), src, static_cast<long long>(n));
}

// The CUDA type of the ring's 16-bit element type.
template <class F>
void with_cuda_type(DataType t, F&& f) {
  if (t == DataType::kHalf)
    f(__half{});
  else
    f(__nv_bfloat16{});
}

}  // namespace

void RingAttention::forward_gpu(const void* q, const void* k, const void* v, void* out, float* lse,
                                Stream stream) {
  Gpu& g = *gpu_;
  const cudaStream_t S = cu(stream), K = g.kv_stream;
  const bool exchange = !options_.compute_only;
  g.record(g.start, S);
  g.wait(K, g.start);  // k and v are ready
  with_cuda_type(type_, [&](auto tag) {
    using T = decltype(tag);
    for (int t = 0; t < n_; ++t) {
      const void *kb = k, *vb = v;
      const bool x = g.take_block(*g.kv, t, n_, exchange, kb, vb);
      if (x) g.wait(S, g.arrived);
      if (options_.before_step) options_.before_step(0, t);
      const Piece p = piece_of(shape_, rank_, n_, t);
      const Rows r = gpu::rows_of(p, local_);
      g.sdpa->forward(p, q, kb, vb, g.o_blk, g.l_blk, stream);
      const long long warps = static_cast<long long>(shape_.batch) * shape_.q_heads * r.q_len;
      merge_kernel<T><<<blocks_for(warps * 32, 256), 256, 0, S>>>(
          g.o_acc, lse, static_cast<const T*>(g.o_blk), g.l_blk, shape_.batch, shape_.q_heads,
          shape_.head_dim, local_, r.q_off, r.q_len, t == 0);
      g.check(cudaGetLastError(), "merge kernel launch");
      if (x) g.release_kv(*g.kv, S);
    }
    store<T>(out, g.o_acc, g.q_elems, S);
  });
  g.join(S);
}

void RingAttention::backward_gpu(const void* q, const void* k, const void* v, const void* out,
                                 const float* lse, const void* dout, void* dq, void* dk, void* dv,
                                 Stream stream) {
  Gpu& g = *gpu_;
  const cudaStream_t S = cu(stream), K = g.kv_stream, D = g.dkv_stream;
  const bool exchange = !options_.compute_only;
  g.record(g.start, S);
  g.wait(K, g.start);
  g.wait(D, g.start);
  with_cuda_type(type_, [&](auto tag) {
    using T = decltype(tag);
    for (int t = 0; t < n_; ++t) {
      const void *kb = k, *vb = v;
      const bool x = g.take_block(*g.kv, t, n_, exchange, kb, vb);
      // The block's accumulators from the PEs that used it before; at step 0 it starts here.
      float* acc = g.stage;
      if (x) {
        acc = reinterpret_cast<float*>(g.dkv->receive_on(D));
        g.record(g.dkv_arrived, D);
      }
      if (x) g.wait(S, g.arrived);
      if (options_.before_step) options_.before_step(1, t);
      const Piece p = piece_of(shape_, rank_, n_, t);
      const Rows r = gpu::rows_of(p, local_);
      const float* lse_p = lse;
      if (r.q_len != local_) {  // cuDNN reads the piece's rows of the LSE packed
        g.check(cudaMemcpy2DAsync(g.lse_part, r.q_len * 4, lse + r.q_off, local_ * 4, r.q_len * 4,
                                  static_cast<std::size_t>(shape_.batch) * shape_.q_heads,
                                  cudaMemcpyDeviceToDevice, S),
                "cudaMemcpy2DAsync");
        lse_p = g.lse_part;
      }
      g.sdpa->backward(p, q, kb, vb, out, dout, lse_p, g.dq_blk, g.dk_blk, g.dv_blk, stream);
      if (x) g.release_kv(*g.kv, S);
      add_rows<T>(g.dq_acc, g.dq_blk, shape_, local_, shape_.q_heads, r.q_off, r.q_len, t == 0, S);
      if (x) g.wait(S, g.dkv_arrived);
      add_rows<T>(acc, g.dk_blk, shape_, local_, shape_.kv_heads, r.k_off, r.k_len, t == 0, S);
      add_rows<T>(acc + kv_elems_, g.dv_blk, shape_, local_, shape_.kv_heads, r.k_off, r.k_len,
                  t == 0, S);
      g.check(cudaGetLastError(), "accumulate kernel launch");
      if (!exchange) continue;
      g.record(g.added, S);
      // On with the accumulators: to the next PE's step t + 1, or home after the last step.
      g.wait(D, g.added);
      g.dkv->send_on(acc, D);
      if (t > 0) g.dkv->release_on(D);
    }
    store<T>(dq, g.dq_acc, g.q_elems, S);
    const float* home = g.stage;
    if (exchange) {
      home = reinterpret_cast<const float*>(g.dkv->receive_on(D));
      g.record(g.dkv_arrived, D);
      g.wait(S, g.dkv_arrived);
    }
    store<T>(dk, home, kv_elems_, S);
    store<T>(dv, home + kv_elems_, kv_elems_, S);
    if (exchange) {
      g.record(g.added, S);
      g.wait(D, g.added);
      g.dkv->release_on(D);
    }
  });
  g.join(S);
}

}  // namespace symmetra::kernels

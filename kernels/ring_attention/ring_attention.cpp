// The ring (ring_attention.hpp): two channels of double buffers with signals and credits, and
// the forward and backward passes over them, on the public API alone.
#include "symmetra/kernels/ring_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "attention_cpu.hpp"
#include "channel.hpp"
#include "symmetra/core/float16.hpp"

namespace symmetra::kernels {

namespace {
// The type a block is computed and accumulated in: fp32 for the 16-bit inputs (bf16 and fp16
// travel the ring as they are, half the bytes; scores, the merge and the dK/dV accumulators are
// fp32), else the input type itself.
template <class T>
using Accum = std::conditional_t<sizeof(T) == 2, float, T>;

std::size_t accum_size(DataType t) {
  return t == DataType::kDouble ? 8 : 4;
}

// `n` elements of `src` as A: a view of src where T is A, else converted into `buf`.
template <class A, class T>
const A* as_accum(const T* src, std::size_t n, std::vector<A>& buf) {
  if constexpr (std::is_same_v<A, T>) {
    return src;
  } else {
    buf.resize(n);
    for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<A>(src[i]);
    return buf.data();
  }
}

template <class T, class A>
void store(const A* src, std::size_t n, T* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = T(static_cast<float>(src[i]));
}
template <class A>
void store(const A* src, std::size_t n, A* dst) {
  std::copy(src, src + n, dst);
}
}  // namespace

std::int64_t zigzag_local_tokens(std::int64_t seq_len, int n) {
  return seq_len / n;
}

std::int64_t zigzag_position(std::int64_t i, int rank, int n, std::int64_t seq_len) {
  const std::int64_t chunk = seq_len / (2 * n);
  return i < chunk ? rank * chunk + i : (2 * n - 1 - rank) * chunk + (i - chunk);
}

RingAttention::RingAttention(Runtime& rt, const Team& team, const AttentionShape& shape,
                             DataType type, RingAttentionOptions options)
    : rt_(rt), shape_(shape), type_(type), options_(std::move(options)) {
  const std::string pe = "[pe " + std::to_string(rt.my_pe()) + "] ring_attention: ";
  const bool member = team.valid() && team.my_pe() >= 0;
  n_ = member ? team.n_pes() : 1;
  rank_ = member ? team.my_pe() : -1;
  // What is wrong with the call, "" if nothing: checked on the members, agreed on by all PEs
  // below, so that a wrong shape is an error everywhere instead of a wait for the others.
  std::string wrong;
  if (type != DataType::kFloat && type != DataType::kDouble && type != DataType::kBfloat16 &&
      type != DataType::kHalf)
    wrong = "the element type must be float32, float64, bfloat16 or float16";
  else if (shape.batch < 1 || shape.q_heads < 1 || shape.kv_heads < 1 || shape.head_dim < 1)
    wrong = "batch, heads and head_dim must be positive";
  else if (shape.q_heads % shape.kv_heads != 0)
    wrong = "q_heads " + std::to_string(shape.q_heads) + " is not a multiple of kv_heads " +
            std::to_string(shape.kv_heads);
  else if (member && (shape.seq_len <= 0 || shape.seq_len % (2 * n_) != 0))
    wrong = "seq_len " + std::to_string(shape.seq_len) + " does not split into 2 x " +
            std::to_string(n_) +
            " equal chunks (the zigzag split): pad the sequence to a multiple of " +
            std::to_string(2 * n_);
  else if (rt.on_gpu() && type != DataType::kBfloat16 && type != DataType::kHalf)
    wrong =
        "the GPU path takes bfloat16 or float16 inputs (cuDNN's SDPA); fp32 and fp64 run "
        "on the CPU backend";
  if (shape_.scale == 0) shape_.scale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
  local_ = wrong.empty() && member ? zigzag_local_tokens(shape.seq_len, n_) : 0;
  kv_elems_ = static_cast<std::size_t>(std::max(shape.batch, 0)) * local_ *
              std::max(shape.kv_heads, 0) * std::max(shape.head_dim, 0);
  // The GPU path's cuDNN graphs, before the agreement below, so that a shape cuDNN refuses is an
  // error on every PE.
  if (wrong.empty() && member && rt.on_gpu()) wrong = make_gpu();
  // [k | v] in the input type, [dk | dv] in the accumulation type. Symmetric allocation is
  // collective over the world: PEs outside the team allocate the members' size, which they learn
  // here, with whether any member objected.
  constexpr std::uint64_t kWrong = ~std::uint64_t{0};
  const std::uint64_t mine = !wrong.empty() && member ? kWrong
                             : member                 ? 2 * kv_elems_ * data_type_size(type)
                                                      : 0;
  // Through symmetric memory, which is device memory on the GPU backend: the host forms of put
  // and get move the values.
  auto* box = static_cast<std::uint64_t*>(rt.allocate(2 * sizeof(std::uint64_t)));
  std::uint64_t message = 0;
  rt.putmem(box, &mine, sizeof mine, rt.my_pe());
  rt.allreduce(rt.team_world(), box + 1, box, 1, coll::ReduceOp::kMax);
  rt.getmem(&message, box + 1, sizeof message, rt.my_pe());
  rt.free(box);
  if (message == kWrong)
    throw Error(pe + (wrong.empty() ? "a member of the ring's team refused its shape" : wrong));
  const std::size_t dmessage = message / data_type_size(type) * accum_size(type);
  kv_ = std::make_unique<Channel>(rt, team, message);
  dkv_ = std::make_unique<Channel>(rt, team, dmessage);
  if (!rt.on_gpu()) {  // the CPU path's host staging
    own_.resize(message);
    stage_.resize(dmessage);
  }
  if (gpu_) attach_gpu_channels();
  rt.barrier_all();  // every PE's words are zero before any message comes
}

RingAttention::~RingAttention() {
  try {
    // Every PE's streams first: their waits are for the others' messages. Then the GPU path's
    // memory (cudaFree waits for the whole GPU, so only once no PE waits on it).
    quiesce_gpu();
    rt_.barrier_all();  // no message is in flight to a buffer about to go
    gpu_.reset();
    dkv_.reset();
    kv_.reset();
  } catch (const std::exception&) {
  }
}

void RingAttention::check_call(const char* op, Stream stream) const {
  if (rank_ < 0)
    throw Error("[pe " + std::to_string(rt_.my_pe()) + "] ring_attention." + op +
                ": this PE is not a member of the ring's team");
  if (!rt_.on_gpu() && stream != nullptr)
    throw Error("[pe " + std::to_string(rt_.my_pe()) + "] ring_attention." + op +
                ": a stream was given, but the runtime runs the CPU backend (host memory, no "
                "streams): pass none");
}

#ifndef SYMMETRA_KERNELS_CUDNN
// Built without cuDNN: the GPU backend's runtime gets a construction error, on every PE.
std::string RingAttention::make_gpu() {
  return "this build of symmetra::kernels has no GPU path: it was built without cuDNN and the "
         "cuDNN frontend's headers (docs/ring_attention.md, Building)";
}
void RingAttention::GpuDelete::operator()(Gpu*) const {}
void RingAttention::quiesce_gpu() {}
void RingAttention::attach_gpu_channels() {}
void RingAttention::forward_gpu(const void*, const void*, const void*, void*, float*, Stream) {}
void RingAttention::backward_gpu(const void*, const void*, const void*, const void*, const float*,
                                 const void*, void*, void*, void*, Stream) {}
#endif

namespace {

// The block geometry of this PE's queries against the block of `owner`.
struct Positions {
  std::vector<std::int64_t> mine, theirs;
  Positions(std::int64_t local, int rank, int n, std::int64_t seq) : mine(local), theirs(local) {
    for (std::int64_t i = 0; i < local; ++i) mine[i] = zigzag_position(i, rank, n, seq);
  }
  void owner(int o, int n, std::int64_t seq) {
    for (std::size_t i = 0; i < theirs.size(); ++i)
      theirs[i] = zigzag_position(static_cast<std::int64_t>(i), o, n, seq);
  }
};

cpu::Block block_of(const AttentionShape& s, std::int64_t local, const Positions& p) {
  return {s.batch, s.q_heads,     s.kv_heads,      s.head_dim, local,
          local,   p.mine.data(), p.theirs.data(), s.causal,   s.scale};
}

}  // namespace

template <class T>
void RingAttention::pack_own(const T* k, const T* v) {
  std::memcpy(own_.data(), k, kv_elems_ * sizeof(T));
  std::memcpy(own_.data() + kv_elems_ * sizeof(T), v, kv_elems_ * sizeof(T));
}

template <class T>
void RingAttention::forward_t(const T* q, const T* k, const T* v, T* out, float* lse) {
  using A = Accum<T>;
  const std::size_t q_elems =
      static_cast<std::size_t>(shape_.batch) * local_ * shape_.q_heads * shape_.head_dim;
  const std::size_t rows = static_cast<std::size_t>(shape_.batch) * shape_.q_heads * local_;
  std::vector<A> o(q_elems, A{0}), l(rows, -std::numeric_limits<A>::infinity());
  std::vector<A> q_buf, kv_buf;
  const A* qa = as_accum<A>(q, q_elems, q_buf);
  pack_own(k, v);
  Positions pos(local_, rank_, n_, shape_.seq_len);
  for (int t = 0; t < n_; ++t) {
    const auto* block = reinterpret_cast<const T*>(t == 0 ? own_.data() : kv_->receive());
    if (t < n_ - 1) kv_->send(block);  // on to the next member before computing
    if (options_.before_step) options_.before_step(0, t);
    pos.owner((rank_ - t + n_) % n_, n_, shape_.seq_len);
    const A* kv = as_accum<A>(block, 2 * kv_elems_, kv_buf);  // a view of block where T is A
    cpu::attend(block_of(shape_, local_, pos), qa, kv, kv + kv_elems_, o.data(), l.data());
    if (t > 0) kv_->release();
  }
  store(o.data(), q_elems, out);
  for (std::size_t r = 0; r < rows; ++r) lse[r] = static_cast<float>(l[r]);
}

template <class T>
void RingAttention::backward_t(const T* q, const T* k, const T* v, const T* out, const float* lse,
                               const T* dout, T* dq, T* dk, T* dv) {
  using A = Accum<T>;
  const int dim = shape_.head_dim;
  const std::size_t q_elems =
      static_cast<std::size_t>(shape_.batch) * local_ * shape_.q_heads * dim;
  std::vector<A> q_buf, out_buf, dout_buf, kv_buf, dq_acc(q_elems, A{0});
  const A* qa = as_accum<A>(q, q_elems, q_buf);
  const A* outa = as_accum<A>(out, q_elems, out_buf);
  const A* douta = as_accum<A>(dout, q_elems, dout_buf);
  const std::size_t rows = static_cast<std::size_t>(shape_.batch) * shape_.q_heads * local_;
  // delta = rowsum(dout * out), in the lse's order [batch, q_heads, tokens].
  std::vector<A> delta(rows);
  for (int b = 0; b < shape_.batch; ++b)
    for (std::int64_t i = 0; i < local_; ++i)
      for (int h = 0; h < shape_.q_heads; ++h) {
        const std::size_t at =
            ((static_cast<std::size_t>(b) * local_ + i) * shape_.q_heads + h) * dim;
        A s = 0;
        for (int d = 0; d < dim; ++d) s += douta[at + d] * outa[at + d];
        delta[(static_cast<std::size_t>(b) * shape_.q_heads + h) * local_ + i] = s;
      }
  pack_own(k, v);
  auto* stage = reinterpret_cast<A*>(stage_.data());
  Positions pos(local_, rank_, n_, shape_.seq_len);
  for (int t = 0; t < n_; ++t) {
    const auto* block = reinterpret_cast<const T*>(t == 0 ? own_.data() : kv_->receive());
    // The block's dK/dV from the members that used it before: zeros where it starts.
    const auto* acc = t == 0 ? nullptr : reinterpret_cast<const A*>(dkv_->receive());
    if (t < n_ - 1) kv_->send(block);
    if (options_.before_step) options_.before_step(1, t);
    if (acc != nullptr)
      std::copy(acc, acc + 2 * kv_elems_, stage);
    else
      std::fill(stage, stage + 2 * kv_elems_, A{0});
    pos.owner((rank_ - t + n_) % n_, n_, shape_.seq_len);
    const A* kv = as_accum<A>(block, 2 * kv_elems_, kv_buf);
    cpu::attend_backward(block_of(shape_, local_, pos), qa, kv, kv + kv_elems_, douta, lse,
                         delta.data(), dq_acc.data(), stage, stage + kv_elems_);
    // On with the block's accumulators: to the next member's step t + 1, or (after the last
    // step) home to the block's owner, which is the next member then.
    dkv_->send(stage);
    if (t > 0) {
      kv_->release();
      dkv_->release();
    }
  }
  store(dq_acc.data(), q_elems, dq);
  const auto* home = reinterpret_cast<const A*>(dkv_->receive());
  store(home, kv_elems_, dk);
  store(home + kv_elems_, kv_elems_, dv);
  dkv_->release();
}

namespace {
// Calls f(T{}) with the element type of `t` (the constructor admitted only these four).
template <class F>
void with_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat:
      return f(float{});
    case DataType::kDouble:
      return f(double{});
    case DataType::kBfloat16:
      return f(bfloat16{});
    default:
      return f(half{});
  }
}
}  // namespace

void RingAttention::forward(const void* q, const void* k, const void* v, void* out, float* lse,
                            Stream stream) {
  check_call("forward", stream);
  if (gpu_) return forward_gpu(q, k, v, out, lse, stream);
  with_type(type_, [&](auto tag) {
    using T = decltype(tag);
    forward_t(static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v),
              static_cast<T*>(out), lse);
  });
}

void RingAttention::backward(const void* q, const void* k, const void* v, const void* out,
                             const float* lse, const void* dout, void* dq, void* dk, void* dv,
                             Stream stream) {
  check_call("backward", stream);
  if (gpu_) return backward_gpu(q, k, v, out, lse, dout, dq, dk, dv, stream);
  with_type(type_, [&](auto tag) {
    using T = decltype(tag);
    backward_t(static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v),
               static_cast<const T*>(out), lse, static_cast<const T*>(dout), static_cast<T*>(dq),
               static_cast<T*>(dk), static_cast<T*>(dv));
  });
}

}  // namespace symmetra::kernels

// cuDNN SDPA blocks (sdpa_cudnn.hpp) through the cuDNN frontend's graph API.
#include "sdpa_cudnn.hpp"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>
#include <unordered_map>

#include "symmetra/error.hpp"

// The frontend is header-only; its JSON serialization is not used.
#define CUDNN_FRONTEND_SKIP_JSON_LIB
#include <cudnn_frontend.h>

namespace symmetra::kernels::gpu {

namespace fe = cudnn_frontend;

namespace {
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };
}  // namespace

Rows rows_of(Piece p, std::int64_t local) {
  const std::int64_t half = local / 2;
  switch (p) {
    case Piece::kDiagonal:
      return {0, local, 0, local, true};
    case Piece::kAll:
      return {0, local, 0, local, false};
    case Piece::kQueriesLate:
      return {half, local - half, 0, local, false};
    default:  // kKeysEarly
      return {0, local, 0, half, false};
  }
}

struct Sdpa::Impl {
  AttentionShape shape;
  std::int64_t local = 0;
  int pe = 0;
  fe::DataType_t io = fe::DataType_t::BFLOAT16;
  cudnnHandle_t handle = nullptr;
  void* workspace = nullptr;
  std::shared_ptr<fe::graph::Graph> fwd[4], bwd[4];

  std::string prefix() const { return "[pe " + std::to_string(pe) + "] ring_attention: "; }
  void check(fe::error_t e, const char* what) const {
    if (e.is_bad())
      throw Error(prefix() + "cuDNN " + what + ": " + e.get_message() +
                  " (no cuDNN SDPA for this shape on this GPU)");
  }
  // [batch, heads, rows, head_dim] of the ring's [batch, local, heads, head_dim] layout.
  std::vector<std::int64_t> dim(int heads, std::int64_t rows) const {
    return {shape.batch, heads, rows, shape.head_dim};
  }
  std::vector<std::int64_t> stride(int heads) const {
    const std::int64_t d = shape.head_dim;
    return {local * heads * d, d, heads * d, 1};
  }
  std::shared_ptr<fe::graph::Tensor_attributes> tensor(fe::graph::Graph& g, const char* name,
                                                       Uid uid, int heads, std::int64_t rows) {
    return g.tensor(fe::graph::Tensor_attributes()
                        .set_name(name)
                        .set_uid(uid)
                        .set_dim(dim(heads, rows))
                        .set_stride(stride(heads)));
  }
  std::vector<std::int64_t> stats_dim(std::int64_t rows) const {
    return {shape.batch, shape.q_heads, rows, 1};
  }
  std::vector<std::int64_t> stats_stride(std::int64_t rows) const {
    return {shape.q_heads * rows, rows, 1, 1};
  }
  std::shared_ptr<fe::graph::Graph> new_graph() const {
    auto g = std::make_shared<fe::graph::Graph>();
    g->set_io_data_type(io)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    return g;
  }
  void build(fe::graph::Graph& g, const char* what) {
    check(g.build(handle, {fe::HeurMode_t::A}), what);
  }

  // A graph output of uid with the ring's layout for `heads` x `rows`.
  void output(fe::graph::Tensor_attributes& t, Uid uid, int heads, std::int64_t rows) const {
    t.set_output(true).set_uid(uid).set_dim(dim(heads, rows)).set_stride(stride(heads));
  }
  // The causal mask of a piece that has one (the diagonal), on SDPA's forward or backward
  // attributes.
  template <class Attributes>
  static void mask(Attributes& opt, const Rows& r) {
    if (r.causal)
      opt.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
          .set_diagonal_band_right_bound(0);
  }

  std::shared_ptr<fe::graph::Graph> forward_graph(const Rows& r) {
    auto g = new_graph();
    auto q = tensor(*g, "q", kQ, shape.q_heads, r.q_len);
    auto k = tensor(*g, "k", kK, shape.kv_heads, r.k_len);
    auto v = tensor(*g, "v", kV, shape.kv_heads, r.k_len);
    auto opt = fe::graph::SDPA_attributes()
                   .set_name("ring_block")
                   .set_generate_stats(true)
                   .set_attn_scale(static_cast<float>(shape.scale));
    mask(opt, r);
    auto [o, stats] = g->sdpa(q, k, v, opt);
    output(*o, kO, shape.q_heads, r.q_len);
    stats->set_output(true)
        .set_uid(kStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim(stats_dim(r.q_len))
        .set_stride(stats_stride(r.q_len));
    build(*g, "SDPA forward");
    return g;
  }

  std::shared_ptr<fe::graph::Graph> backward_graph(const Rows& r) {
    auto g = new_graph();
    auto q = tensor(*g, "q", kQ, shape.q_heads, r.q_len);
    auto k = tensor(*g, "k", kK, shape.kv_heads, r.k_len);
    auto v = tensor(*g, "v", kV, shape.kv_heads, r.k_len);
    auto o = tensor(*g, "o", kO, shape.q_heads, r.q_len);
    auto dout = tensor(*g, "dout", kDO, shape.q_heads, r.q_len);
    auto stats = g->tensor(fe::graph::Tensor_attributes()
                               .set_name("stats")
                               .set_uid(kStats)
                               .set_dim(stats_dim(r.q_len))
                               .set_stride(stats_stride(r.q_len))
                               .set_data_type(fe::DataType_t::FLOAT));
    auto opt = fe::graph::SDPA_backward_attributes()
                   .set_name("ring_block_backward")
                   .set_attn_scale(static_cast<float>(shape.scale));
    mask(opt, r);
    auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dout, stats, opt);
    output(*dq, kDQ, shape.q_heads, r.q_len);
    output(*dk, kDK, shape.kv_heads, r.k_len);
    output(*dv, kDV, shape.kv_heads, r.k_len);
    build(*g, "SDPA backward");
    return g;
  }

  // The address of row `row` of a [batch, local, heads, head_dim] tensor at `base`.
  void* at(const void* base, int heads, std::int64_t row) const {
    const std::size_t bytes = static_cast<std::size_t>(row) * heads * shape.head_dim * 2;
    return static_cast<std::byte*>(const_cast<void*>(base)) + bytes;
  }
  void run(fe::graph::Graph& g, std::unordered_map<std::int64_t, void*>& pack, Stream s,
           const char* what) {
    if (cudnnSetStream(handle, reinterpret_cast<cudaStream_t>(s)) != CUDNN_STATUS_SUCCESS)
      throw Error(prefix() + "cudnnSetStream failed");
    check(g.execute(handle, pack, workspace), what);
  }
};

Sdpa::Sdpa(const AttentionShape& shape, std::int64_t local, DataType type,
           const std::vector<Piece>& pieces, int pe)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.shape = shape;
  m.local = local;
  m.pe = pe;
  if (type != DataType::kBfloat16 && type != DataType::kHalf)
    throw Error(m.prefix() +
                "the GPU path takes bfloat16 or float16 inputs (cuDNN's SDPA); fp32 and fp64 "
                "run on the CPU backend");
  m.io = type == DataType::kHalf ? fe::DataType_t::HALF : fe::DataType_t::BFLOAT16;
  if (cudnnCreate(&m.handle) != CUDNN_STATUS_SUCCESS)
    throw Error(m.prefix() + "cudnnCreate failed: is cuDNN 9 (libcudnn.so.9) installed?");
  std::int64_t most = 0;
  for (Piece p : pieces) {
    const int i = static_cast<int>(p);
    const Rows r = rows_of(p, local);
    m.fwd[i] = m.forward_graph(r);
    m.bwd[i] = m.backward_graph(r);
    std::int64_t ws = 0;
    m.check(m.fwd[i]->get_workspace_size(ws), "workspace size");
    most = std::max(most, ws);
    m.check(m.bwd[i]->get_workspace_size(ws), "workspace size");
    most = std::max(most, ws);
  }
  if (most > 0 && cudaMalloc(&m.workspace, static_cast<std::size_t>(most)) != cudaSuccess)
    throw Error(m.prefix() + "cannot allocate cuDNN's workspace of " + std::to_string(most) +
                " bytes");
}

Sdpa::~Sdpa() {
  cudaFree(impl_->workspace);
  if (impl_->handle != nullptr) cudnnDestroy(impl_->handle);
}

void Sdpa::forward(Piece p, const void* q, const void* k, const void* v, void* o, float* stats,
                   Stream s) {
  Impl& m = *impl_;
  const Rows r = rows_of(p, m.local);
  const int hq = m.shape.q_heads, hk = m.shape.kv_heads;
  std::unordered_map<std::int64_t, void*> pack{{kQ, m.at(q, hq, r.q_off)},
                                               {kK, m.at(k, hk, r.k_off)},
                                               {kV, m.at(v, hk, r.k_off)},
                                               {kO, m.at(o, hq, r.q_off)},
                                               {kStats, stats}};
  m.run(*m.fwd[static_cast<int>(p)], pack, s, "SDPA forward");
}

void Sdpa::backward(Piece p, const void* q, const void* k, const void* v, const void* o,
                    const void* dout, const float* lse, void* dq, void* dk, void* dv, Stream s) {
  Impl& m = *impl_;
  const Rows r = rows_of(p, m.local);
  const int hq = m.shape.q_heads, hk = m.shape.kv_heads;
  std::unordered_map<std::int64_t, void*> pack{
      {kQ, m.at(q, hq, r.q_off)},     {kK, m.at(k, hk, r.k_off)},
      {kV, m.at(v, hk, r.k_off)},     {kO, m.at(o, hq, r.q_off)},
      {kDO, m.at(dout, hq, r.q_off)}, {kStats, const_cast<float*>(lse)},
      {kDQ, m.at(dq, hq, r.q_off)},   {kDK, m.at(dk, hk, r.k_off)},
      {kDV, m.at(dv, hk, r.k_off)}};
  m.run(*m.bwd[static_cast<int>(p)], pack, s, "SDPA backward");
}

}  // namespace symmetra::kernels::gpu

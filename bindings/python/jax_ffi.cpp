// XLA FFI handlers for symmetra.jax (docs/python.md "JAX"): all-reduce, all-gather,
// reduce-scatter and permute as custom calls that run under jax.jit, one process per PE. Built
// where jaxlib's headers are found at build time (jax.ffi.include_dir()).
//
// XLA owns the buffers a handler gets: private memory of the PE's device. The all-reduce takes
// them as they are; the others move through a symmetric workspace of this process, which grows
// collectively inside these calls (they are collective, and every PE runs the same compiled
// program, so every PE grows it at the same call to the same size).
//
// Two platforms, one body each: on CPU the handler runs the host forms on the thread XLA
// executes on; on CUDA it enqueues the stream forms on XLA's stream (PlatformStream) and returns,
// so the copies in and out of the workspace are stream operations too. No CUDA header is needed:
// a Stream is CUstream_st*, and the extension calls only the public API.
#include <xla/ffi/api/ffi.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings/python/common.hpp"
#include "bindings/python/jax_common.hpp"
#include "symmetra/kernels/ring_attention.hpp"

namespace ffi = xla::ffi;

namespace symmetra::python {
void jax_moe_cpu_handlers(nb::dict& d);  // jax_moe.cpp

int jax_data_type_of(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::S8:
      return static_cast<int>(DataType::kInt8);
    case ffi::DataType::U8:
      return static_cast<int>(DataType::kUint8);
    case ffi::DataType::S16:
      return static_cast<int>(DataType::kInt16);
    case ffi::DataType::U16:
      return static_cast<int>(DataType::kUint16);
    case ffi::DataType::S32:
      return static_cast<int>(DataType::kInt32);
    case ffi::DataType::U32:
      return static_cast<int>(DataType::kUint32);
    case ffi::DataType::S64:
      return static_cast<int>(DataType::kInt64);
    case ffi::DataType::U64:
      return static_cast<int>(DataType::kUint64);
    case ffi::DataType::F16:
      return static_cast<int>(DataType::kHalf);
    case ffi::DataType::BF16:
      return static_cast<int>(DataType::kBfloat16);
    case ffi::DataType::F32:
      return static_cast<int>(DataType::kFloat);
    case ffi::DataType::F64:
      return static_cast<int>(DataType::kDouble);
    default:
      return -1;
  }
}

namespace {

// The workspace: symmetric parts of `part` bytes each: source, dest, and on the GPU a third of
// zeros (what a permute with no sender gives: a stream copy from it).
struct Workspace {
  std::byte* base = nullptr;
  std::size_t part = 0;
  std::byte* dest() const { return base + part; }
  std::byte* zeros() const { return base + 2 * part; }
};
Workspace g_ws;
// Outgrown workspaces on the GPU: work that XLA queued before may still read them, and this
// extension has no stream to wait on without the CUDA runtime; freed at finalize (at most as
// much again as the last one, since each is twice the one before).
std::vector<std::byte*>* g_old_ws = new std::vector<std::byte*>();

Workspace& workspace(Runtime& r, std::size_t bytes, Stream s) {
  if (bytes <= g_ws.part) return g_ws;
  if (g_ws.base != nullptr) {
    if (s != nullptr)
      g_old_ws->push_back(g_ws.base);
    else
      r.free(g_ws.base);
  }
  g_ws.part = std::max<std::size_t>(bytes, 2 * g_ws.part);
  g_ws.base = static_cast<std::byte*>(r.allocate((s != nullptr ? 3 : 2) * g_ws.part));
  if (s != nullptr) {  // the zeros, in stream order before any use of them
    // A copy from pageable memory is staged before the call returns: the buffer may change after.
    static std::vector<std::byte> zeros;
    if (zeros.size() < g_ws.part) zeros.resize(g_ws.part);
    r.putmem_on_stream(g_ws.zeros(), zeros.data(), g_ws.part, r.my_pe(), s);
  }
  return g_ws;
}

// What every handler does first: the Runtime, and a call over the world with x's type; y of
// that type and of out_per / in_per times x's elements (what the Python wrapper declared).
// `s`: XLA's stream on the CUDA platform, null on the CPU one; the heap must be on that side.
ffi::Error start(const char* op, ffi::AnyBuffer x, const ffi::AnyBuffer& y, std::size_t out_per,
                 std::size_t in_per, Stream s, Runtime** r, coll::Call* c) {
  *r = rt_or_null();
  if (*r == nullptr)
    return ffi::Error::InvalidArgument(std::string("symmetra.jax.") + op +
                                       ": symmetra is not initialized: call symmetra.init() first");
  if ((*r)->on_gpu() != (s != nullptr))
    return ffi::Error::InvalidArgument(
        std::string("symmetra.jax.") + op + ": this PE's heap is on the " +
        ((*r)->on_gpu() ? "GPU but the array is on the CPU: put it on the GPU (jax.device_put)"
                        : "CPU but the array is on the GPU: init(backend='cuda') for GPU arrays"));
  const int t = jax_data_type_of(x.element_type());
  if (t < 0)
    return ffi::Error::InvalidArgument(std::string("symmetra.jax.") + op +
                                       ": the element type is not one Symmetra takes (int8-64, "
                                       "uint8-64, float16, bfloat16, float32, float64)");
  if (y.element_type() != x.element_type() ||
      y.element_count() * in_per != x.element_count() * out_per)
    return ffi::Error::InvalidArgument(std::string("symmetra.jax.") + op +
                                       ": the result's type or size does not match the input's: "
                                       "call it through symmetra.jax, which declares them");
  c->type = static_cast<DataType>(t);
  c->team = (*r)->team_world().handle();
  return ffi::Error::Success();
}

// The world's size, 1 before init (start() reports that).
std::size_t n_world() {
  const Runtime* r = rt_or_null();
  return r != nullptr ? static_cast<std::size_t>(r->n_pes()) : 1;
}

ffi::Error allreduce_impl(Stream s, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y,
                          std::int32_t op) {
  Runtime* r = nullptr;
  coll::Call c;
  if (auto e = start("allreduce", x, *y, 1, 1, s, &r, &c); e.failure()) return e;
  c.kind = coll::Kind::kAllreduce;
  c.op = static_cast<coll::ReduceOp>(op);
  c.source = x.untyped_data();
  c.dest = y->untyped_data();
  c.nelems = x.element_count();
  return guarded("allreduce", [&] { r->collective(c, s); });
}

// Through the workspace: x in, the collective `c` (its kind's fields set), y out; on `s` where
// it is not null. A permute with no sender (c.from < 0) gives zeros, as jax.lax.ppermute.
ffi::Error through_workspace(const char* op, Stream s, ffi::AnyBuffer x,
                             ffi::Result<ffi::AnyBuffer> y, std::size_t out_per, std::size_t in_per,
                             coll::Call c) {
  Runtime* r = nullptr;
  // Sets the type and team only.
  if (auto e = start(op, x, *y, out_per, in_per, s, &r, &c); e.failure()) return e;
  const std::size_t in = x.size_bytes(), out = y->size_bytes();
  const bool no_sender = c.kind == coll::Kind::kPermute && c.from < 0;
  return guarded(op, [&] {
    Workspace& ws = workspace(*r, std::max(in, out), s);
    c.source = ws.base;
    c.dest = ws.dest();
    if (s == nullptr) {
      std::memcpy(ws.base, x.untyped_data(), in);
      if (no_sender) std::memset(c.dest, 0, out);
      r->collective(c);
      std::memcpy(y->untyped_data(), c.dest, out);
    } else {
      const int me = r->my_pe();
      r->putmem_on_stream(ws.base, x.untyped_data(), in, me, s);
      r->collective(c, s);
      r->getmem_on_stream(y->untyped_data(), no_sender ? ws.zeros() : ws.dest(), out, me, s);
    }
  });
}

ffi::Error all_gather_impl(Stream s, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  coll::Call c;
  c.kind = coll::Kind::kFcollect;
  c.nelems = x.element_count();  // one member's block
  return through_workspace("all_gather", s, x, y, n_world(), 1, c);
}

ffi::Error reduce_scatter_impl(Stream s, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y,
                               std::int32_t op) {
  coll::Call c;
  c.kind = coll::Kind::kReduceScatter;
  c.op = static_cast<coll::ReduceOp>(op);
  c.nelems = y->element_count();  // this member's block
  return through_workspace("reduce_scatter", s, x, y, 1, n_world(), c);
}

ffi::Error permute_impl(Stream s, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, std::int32_t to,
                        std::int32_t from) {
  coll::Call c;
  c.kind = coll::Kind::kPermute;
  c.to = to;
  c.from = from;
  c.nelems = x.element_count();
  c.chunk = std::max<std::size_t>(c.nelems, 1);
  return through_workspace("permute", s, x, y, 1, 1, c);
}

// The CPU forms: no stream.
ffi::Error allreduce_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, std::int32_t op) {
  return allreduce_impl(nullptr, x, y, op);
}
ffi::Error all_gather_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  return all_gather_impl(nullptr, x, y);
}
ffi::Error reduce_scatter_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, std::int32_t op) {
  return reduce_scatter_impl(nullptr, x, y, op);
}
ffi::Error permute_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, std::int32_t to,
                       std::int32_t from) {
  return permute_impl(nullptr, x, y, to, from);
}

// Ring attention (kernels/ring_attention): the ring of each shape from ring.cpp's cache.

// q [batch, tokens, q_heads, dim], k and v [batch, tokens, kv_heads, dim]: the ring of that shape.
ffi::Error ring_for(const char* op, Stream s, ffi::AnyBuffer q, ffi::AnyBuffer k, ffi::AnyBuffer v,
                    std::int32_t causal, kernels::RingAttention** ring) {
  Runtime* r = nullptr;
  coll::Call unused;
  if (auto e = start(op, q, q, 1, 1, s, &r, &unused); e.failure()) return e;
  const auto qd = q.dimensions(), kd = k.dimensions();
  const std::string pre = std::string("symmetra.jax.") + op + ": ";
  if (qd.size() != 4 || kd.size() != 4 || k.dimensions() != v.dimensions() || qd[0] != kd[0] ||
      qd[1] != kd[1] || qd[3] != kd[3])
    return ffi::Error::InvalidArgument(
        pre +
        "q must be [batch, tokens, q_heads, head_dim] and k, v [batch, tokens, kv_heads, "
        "head_dim], alike");
  const ffi::DataType t = q.element_type();
  if (t != k.element_type() || k.element_type() != v.element_type() ||
      (t != ffi::DataType::F32 && t != ffi::DataType::F64 && t != ffi::DataType::BF16 &&
       t != ffi::DataType::F16))
    return ffi::Error::InvalidArgument(pre +
                                       "q, k and v must be of one type: float32, float64, "
                                       "bfloat16 or float16");
  const RingDims dims{qd[0], qd[1], qd[2], kd[2], qd[3], causal != 0};
  return guarded(op, [&] {
    *ring = &ring_of(*r, dims, static_cast<DataType>(jax_data_type_of(q.element_type())));
  });
}

// `s`: XLA's stream on the CUDA platform (the ring's GPU path enqueues there), null on the CPU.
ffi::Error ring_forward_impl(Stream s, ffi::AnyBuffer q, ffi::AnyBuffer k, ffi::AnyBuffer v,
                             ffi::Result<ffi::AnyBuffer> out, ffi::Result<ffi::AnyBuffer> lse,
                             std::int32_t causal) {
  kernels::RingAttention* ring = nullptr;
  if (auto e = ring_for("ring_attention", s, q, k, v, causal, &ring); e.failure()) return e;
  return guarded("ring_attention", [&] {
    ring->forward(q.untyped_data(), k.untyped_data(), v.untyped_data(), out->untyped_data(),
                  static_cast<float*>(lse->untyped_data()), s);
  });
}

ffi::Error ring_backward_impl(Stream s, ffi::AnyBuffer q, ffi::AnyBuffer k, ffi::AnyBuffer v,
                              ffi::AnyBuffer out, ffi::AnyBuffer lse, ffi::AnyBuffer dout,
                              ffi::Result<ffi::AnyBuffer> dq, ffi::Result<ffi::AnyBuffer> dk,
                              ffi::Result<ffi::AnyBuffer> dv, std::int32_t causal) {
  kernels::RingAttention* ring = nullptr;
  const char* op = "ring_attention (backward)";
  if (auto e = ring_for(op, s, q, k, v, causal, &ring); e.failure()) return e;
  return guarded(op, [&] {
    ring->backward(q.untyped_data(), k.untyped_data(), v.untyped_data(), out.untyped_data(),
                   static_cast<const float*>(lse.untyped_data()), dout.untyped_data(),
                   dq->untyped_data(), dk->untyped_data(), dv->untyped_data(), s);
  });
}

ffi::Error ring_forward_cpu(ffi::AnyBuffer q, ffi::AnyBuffer k, ffi::AnyBuffer v,
                            ffi::Result<ffi::AnyBuffer> out, ffi::Result<ffi::AnyBuffer> lse,
                            std::int32_t causal) {
  return ring_forward_impl(nullptr, q, k, v, out, lse, causal);
}
ffi::Error ring_backward_cpu(ffi::AnyBuffer q, ffi::AnyBuffer k, ffi::AnyBuffer v,
                             ffi::AnyBuffer out, ffi::AnyBuffer lse, ffi::AnyBuffer dout,
                             ffi::Result<ffi::AnyBuffer> dq, ffi::Result<ffi::AnyBuffer> dk,
                             ffi::Result<ffi::AnyBuffer> dv, std::int32_t causal) {
  return ring_backward_impl(nullptr, q, k, v, out, lse, dout, dq, dk, dv, causal);
}

// The ring handlers' arguments and results after `b`: the CPU binding, or the CUDA one, which
// takes XLA's stream first. q, k, v -> out, lse; and q, k, v, out, lse, dout -> dq, dk, dv.
template <class Binding>
auto ring_forward_args(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<std::int32_t>("causal");
}
template <class Binding>
auto ring_backward_args(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<std::int32_t>("causal");
}

}  // namespace

// The handlers as C symbols (XLA's calling convention), each callable from several PEs' XLA
// runtimes, one per process.
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxAllreduceCpu, allreduce_cpu,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().Attr<std::int32_t>("op"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxAllGatherCpu, all_gather_cpu,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxReduceScatterCpu, reduce_scatter_cpu,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().Attr<std::int32_t>("op"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxRingForwardCpu, ring_forward_cpu,
                              ring_forward_args(ffi::Ffi::Bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxRingBackwardCpu, ring_backward_cpu,
                              ring_backward_args(ffi::Ffi::Bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxPermuteCpu, permute_cpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int32_t>("to")
                                  .Attr<std::int32_t>("from"));

// The CUDA forms, on XLA's stream. Each enqueues stream forms only (capturable), so XLA may
// record it into a command buffer (a CUDA graph). A workspace that grows while XLA records is
// allocated then, collectively, as outside: every PE records the same program at the same call
// (a replayed record calls no handler, and needs no growth, having grown when it was recorded).
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxAllreduceCuda, allreduce_impl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<Stream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int32_t>("op"),
                              {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxAllGatherCuda, all_gather_impl,
    ffi::Ffi::Bind().Ctx<ffi::PlatformStream<Stream>>().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>(),
    {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxReduceScatterCuda, reduce_scatter_impl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<Stream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int32_t>("op"),
                              {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxPermuteCuda, permute_impl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<Stream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int32_t>("to")
                                  .Attr<std::int32_t>("from"),
                              {ffi::Traits::kCmdBufferCompatible});

// Ring attention on XLA's stream (the GPU path: cuDNN blocks, the ring on streams of its own).
// Not command-buffer compatible: each call numbers the ring's messages anew on the host, so a
// replay of a recorded call would wait for numbers already used.
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxRingForwardCuda, ring_forward_impl,
    ring_forward_args(ffi::Ffi::Bind().Ctx<ffi::PlatformStream<Stream>>()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxRingBackwardCuda, ring_backward_impl,
    ring_backward_args(ffi::Ffi::Bind().Ctx<ffi::PlatformStream<Stream>>()));

void bind_jax(nb::module_& m) {
  m.def("_jax_cpu_handlers", [] {
    nb::dict d;
    d["symmetra_allreduce"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxAllreduceCpu));
    d["symmetra_all_gather"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxAllGatherCpu));
    d["symmetra_reduce_scatter"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxReduceScatterCpu));
    d["symmetra_permute"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxPermuteCpu));
    d["symmetra_ring_attention_fwd"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxRingForwardCpu));
    d["symmetra_ring_attention_bwd"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxRingBackwardCpu));
    jax_moe_cpu_handlers(d);
    return d;
  });
  m.def("_jax_cuda_handlers", [] {
    nb::dict d;
    d["symmetra_allreduce"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxAllreduceCuda));
    d["symmetra_all_gather"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxAllGatherCuda));
    d["symmetra_reduce_scatter"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxReduceScatterCuda));
    d["symmetra_permute"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxPermuteCuda));
    d["symmetra_ring_attention_fwd"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxRingForwardCuda));
    d["symmetra_ring_attention_bwd"] =
        nb::capsule(reinterpret_cast<void*>(&SymmetraJaxRingBackwardCuda));
    return d;
  });
}

void release_jax_state() {
  // The workspaces, every PE alike (each grew at the same calls). Work still queued on the GPU
  // cannot see them reused: finalize follows, and nothing is allocated in between.
  if (Runtime* r = rt_or_null()) {
    for (std::byte* p : *g_old_ws) r->free(p);
    g_old_ws->clear();
    if (g_ws.base != nullptr) r->free(g_ws.base);
    g_ws = Workspace{};
  }
}

}  // namespace symmetra::python

// Ring attention for Python (kernels/ring_attention, docs/ring_attention.md): symmetra.torch's
// autograd function calls the bindings here, and symmetra.jax's FFI handlers the same cache.
// One RingAttention per shape and type, made collectively at the first call with that shape
// (every PE runs the same program, so every PE makes it at the same call) and kept until
// finalize (release_rings). Never destroyed at exit: its destructor is collective.
#include <nanobind/stl/tuple.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

using RingKey = std::tuple<RingDims, int>;
std::map<RingKey, std::unique_ptr<kernels::RingAttention>>* g_rings =
    new std::map<RingKey, std::unique_ptr<kernels::RingAttention>>();

// One tensor of a ring call: memory of this PE holding `elems` elements of `type`.
void* ring_arg(Runtime& r, nb::handle h, const char* op, const char* arg, int type,
               std::size_t elems) {
  const Buffer b = buffer(h, op, arg);
  check_device(r, b, op, arg);
  if (b.dtype != type)
    throw nb::value_error((std::string(op) + ": " + arg + " holds " + dtype_name(b.dtype) +
                           " but needs " + dtype_name(type))
                              .c_str());
  if (b.count != elems)
    throw nb::value_error((std::string(op) + ": " + arg + " has " + std::to_string(b.count) +
                           " elements; its shape needs " + std::to_string(elems))
                              .c_str());
  return b.data;
}

}  // namespace

kernels::RingAttention& ring_of(Runtime& r, const RingDims& d, DataType type) {
  const RingKey key{d, static_cast<int>(type)};
  auto it = g_rings->find(key);
  if (it != g_rings->end()) return *it->second;
  kernels::AttentionShape shape;
  shape.batch = static_cast<int>(std::get<0>(d));
  shape.seq_len = std::get<1>(d) * r.n_pes();
  shape.q_heads = static_cast<int>(std::get<2>(d));
  shape.kv_heads = static_cast<int>(std::get<3>(d));
  shape.head_dim = static_cast<int>(std::get<4>(d));
  shape.causal = std::get<5>(d) != 0;
  auto ring = std::make_unique<kernels::RingAttention>(r, r.team_world(), shape, type);
  return *g_rings->emplace(key, std::move(ring)).first->second;
}

void release_rings() {
  g_rings->clear();  // collective, in the map's order: alike on every PE
}

void bind_ring(nb::module_& m) {
  // dims: batch, local tokens, q_heads, kv_heads, head_dim, causal. The tensors are this PE's
  // (symmetra.torch checks their shapes and names them); here their types and sizes.
  m.def(
      "_ring_attention",
      [](bool forward, nb::handle q, nb::handle k, nb::handle v, nb::handle out, nb::handle lse,
         nb::handle dout, nb::handle dq, nb::handle dk, nb::handle dv, const RingDims& d,
         nb::handle stream) {
        const char* op = forward ? "ring_attention" : "ring_attention (backward)";
        Runtime& r = rt(op);
        // The GPU path enqueues on this stream and returns; the CPU path blocks.
        const Stream st = stream_of(r, stream, op).value_or(nullptr);
        const auto [b, t, hq, hkv, hd, causal] = d;
        (void)causal;
        const int type = buffer(q, op, "q").dtype;
        if (type != static_cast<int>(DataType::kFloat) &&
            type != static_cast<int>(DataType::kDouble) &&
            type != static_cast<int>(DataType::kBfloat16) &&
            type != static_cast<int>(DataType::kHalf))
          throw nb::value_error((std::string(op) + ": q holds " + dtype_name(type) +
                                 "; ring attention takes float32, float64, bfloat16 and float16")
                                    .c_str());
        const auto qn = static_cast<std::size_t>(b * t * hq * hd);
        const auto kn = static_cast<std::size_t>(b * t * hkv * hd);
        const auto ln = static_cast<std::size_t>(b * hq * t);
        const int f32 = static_cast<int>(DataType::kFloat);
        const void* qp = ring_arg(r, q, op, "q", type, qn);
        const void* kp = ring_arg(r, k, op, "k", type, kn);
        const void* vp = ring_arg(r, v, op, "v", type, kn);
        void* op_ = ring_arg(r, out, op, "out", type, qn);
        auto* lp = static_cast<float*>(ring_arg(r, lse, op, "lse", f32, ln));
        kernels::RingAttention& ring = ring_of(r, d, static_cast<DataType>(type));
        if (forward) {
          nb::gil_scoped_release release;  // the ring waits for the other PEs
          ring.forward(qp, kp, vp, op_, lp, st);
          return;
        }
        const void* gp = ring_arg(r, dout, op, "dout", type, qn);
        void* dqp = ring_arg(r, dq, op, "dq", type, qn);
        void* dkp = ring_arg(r, dk, op, "dk", type, kn);
        void* dvp = ring_arg(r, dv, op, "dv", type, kn);
        nb::gil_scoped_release release;
        ring.backward(qp, kp, vp, op_, lp, gp, dqp, dkp, dvp, st);
      },
      nb::arg("forward"), nb::arg("q"), nb::arg("k"), nb::arg("v"), nb::arg("out"), nb::arg("lse"),
      nb::arg("dout").none(), nb::arg("dq").none(), nb::arg("dk").none(), nb::arg("dv").none(),
      nb::arg("dims"), nb::arg("stream").none() = nb::none(),
      "Collective: symmetra.torch.ring_attention's forward (out, lse from q, k, v) or backward "
      "(dq, dk, dv from q, k, v, out, lse, dout); on the GPU backend enqueued on `stream`.");
}

}  // namespace symmetra::python

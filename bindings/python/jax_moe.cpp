// XLA FFI handlers of symmetra.jax's mixture-of-experts calls (docs/moe.md, Python): dispatch,
// combine (unweighted: symmetra.jax applies the weights, so that JAX differentiates them),
// redispatch and gather_slots, on the CPU platform (the GPU backend's dispatcher is not built
// yet). XLA's shapes are static: a dispatch's outputs have room for `max_recv_rows` rows, of which
// the first sum(expert_counts) are filled and the rest zero. Its routing stays in moe.cpp under a
// number, the handle the Python side passes to the calls that retrace it.
#include <xla/ffi/api/ffi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bindings/python/common.hpp"
#include "bindings/python/jax_common.hpp"

namespace ffi = xla::ffi;

namespace symmetra::python {
namespace {

Runtime& cpu_runtime(const char* op) {
  Runtime* r = rt_or_null();
  if (r == nullptr) throw Error("symmetra is not initialized: call symmetra.init() first");
  if (r->on_gpu())
    throw Error(std::string(op) +
                " runs on the CPU backend only for now: the GPU backend's dispatcher is not "
                "built yet (docs/moe.md)");
  return *r;
}

DataType payload_type(ffi::AnyBuffer x) {
  const int t = jax_data_type_of(x.element_type());
  if (t < 0) throw Error("the tokens' element type is not one Symmetra takes");
  return static_cast<DataType>(t);
}

// The dims of a 2-d buffer, [rows, cols]; Error naming `what` otherwise.
std::pair<std::int64_t, std::int64_t> dims2(const ffi::AnyBuffer& b, const char* what) {
  const auto d = b.dimensions();
  if (d.size() != 2) throw Error(std::string(what) + " must be 2-d");
  return {d[0], d[1]};
}

// The first `rows` rows of `src`, `each` bytes a row, into `out`; the rest of out zero.
void fill_rows(ffi::Result<ffi::AnyBuffer>& out, const void* src, std::int64_t rows,
               std::size_t each) {
  auto* o = static_cast<std::byte*>(out->untyped_data());
  std::memcpy(o, src, rows * each);
  std::memset(o + rows * each, 0, out->size_bytes() - rows * each);
}

// The dispatcher and routing that a handle argument names.
std::pair<ep::Dispatcher*, ep::Handle> handle_of(const ffi::AnyBuffer& handle, const char* op) {
  return moe_find(*static_cast<const std::int32_t*>(handle.untyped_data()), op);
}

ffi::Error dispatch(ffi::AnyBuffer x, ffi::AnyBuffer idx, ffi::AnyBuffer w,
                    ffi::Result<ffi::AnyBuffer> recv_x, ffi::Result<ffi::AnyBuffer> recv_w,
                    ffi::Result<ffi::AnyBuffer> src_rank, ffi::Result<ffi::AnyBuffer> src_token,
                    ffi::Result<ffi::AnyBuffer> counts, ffi::Result<ffi::AnyBuffer> handle,
                    std::int64_t num_experts) {
  return guarded("moe_dispatch", [&] {
    Runtime& r = cpu_runtime("moe_dispatch");
    const auto [tokens, hidden] = dims2(x, "x");
    const auto [itokens, top_k] = dims2(idx, "topk_idx");
    if (itokens != tokens || w.element_count() != idx.element_count() ||
        w.element_type() != ffi::DataType::F32)
      throw Error("topk_idx and topk_weights must be [tokens, top_k], the weights float32");
    if (idx.element_type() != ffi::DataType::S32 && idx.element_type() != ffi::DataType::S64)
      throw Error("topk_idx must be int32 or int64");
    ep::Config c;
    c.max_tokens = static_cast<int>(tokens);
    c.hidden = static_cast<int>(hidden);
    c.type = payload_type(x);
    c.num_experts = static_cast<int>(num_experts);
    c.top_k = static_cast<int>(top_k);
    c.max_recv_rows = recv_x->dimensions()[0];
    ep::Dispatcher& d = moe_of(r, c);
    std::vector<std::int64_t> ids(idx.element_count());
    for (std::size_t i = 0; i < ids.size(); ++i)
      ids[i] = idx.element_type() == ffi::DataType::S64
                   ? static_cast<const std::int64_t*>(idx.untyped_data())[i]
                   : static_cast<const std::int32_t*>(idx.untyped_data())[i];
    const ep::Received got =
        d.dispatch(x.untyped_data(), c.type, ids.data(),
                   static_cast<const float*>(w.untyped_data()), static_cast<int>(tokens));
    fill_rows(recv_x, got.x, got.rows, static_cast<std::size_t>(hidden) * data_type_size(c.type));
    fill_rows(recv_w, got.weights, got.rows, sizeof(float));
    fill_rows(src_rank, got.src_rank, got.rows, sizeof(std::int32_t));
    fill_rows(src_token, got.src_token, got.rows, sizeof(std::int32_t));
    std::memcpy(counts->untyped_data(), got.expert_counts,
                d.local_experts() * sizeof(std::int32_t));
    *static_cast<std::int32_t*>(handle->untyped_data()) = moe_keep(d, got.handle);
  });
}

ffi::Error combine(ffi::AnyBuffer y, ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> out) {
  return guarded("moe_combine", [&] {
    cpu_runtime("moe_combine");
    auto [d, h] = handle_of(handle, "moe_combine");
    d->combine(y.untyped_data(), payload_type(y), h, out->untyped_data(),
               ep::Weighting::kUnweighted);
  });
}

ffi::Error redispatch(ffi::AnyBuffer x, ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> rows) {
  return guarded("moe_redispatch", [&] {
    cpu_runtime("moe_redispatch");
    auto [d, h] = handle_of(handle, "moe_redispatch");
    const ep::Received got = d->redispatch(x.untyped_data(), payload_type(x), h);
    fill_rows(rows, got.x, got.rows, rows->size_bytes() / rows->dimensions()[0]);
  });
}

ffi::Error gather_slots(ffi::AnyBuffer per_row, ffi::AnyBuffer handle,
                        ffi::Result<ffi::AnyBuffer> out) {
  return guarded("moe_gather_slots", [&] {
    cpu_runtime("moe_gather_slots");
    auto [d, h] = handle_of(handle, "moe_gather_slots");
    d->gather_slots(static_cast<const float*>(per_row.untyped_data()), h,
                    static_cast<float*>(out->untyped_data()));
  });
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(SymmetraJaxMoeDispatchCpu, dispatch,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int64_t>("num_experts"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxMoeCombineCpu, combine,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxMoeRedispatchCpu, redispatch,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    SymmetraJaxMoeGatherSlotsCpu, gather_slots,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

void jax_moe_cpu_handlers(nb::dict& d) {
  d["symmetra_moe_dispatch"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxMoeDispatchCpu));
  d["symmetra_moe_combine"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxMoeCombineCpu));
  d["symmetra_moe_redispatch"] = nb::capsule(reinterpret_cast<void*>(&SymmetraJaxMoeRedispatchCpu));
  d["symmetra_moe_gather_slots"] =
      nb::capsule(reinterpret_cast<void*>(&SymmetraJaxMoeGatherSlotsCpu));
}

}  // namespace symmetra::python

// The remote branch of the data path (device/impl/remote.hpp) over the Runtime's transport:
// symmetric addresses become offsets in the heap slot, the same on every PE, and go to the
// transport (src/transport/transport.hpp).
#include "runtime/remote_path.hpp"

#include "symmetra/device/impl/check.hpp"

namespace symmetra::detail {
namespace {

Transport& transport_of(const device::Context& ctx) {
  return *static_cast<Transport*>(ctx.remote->transport);
}

void put(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  transport_of(ctx).put(ctx, pe, device::remote_offset(ctx, dest), src, bytes);
}
void get(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  transport_of(ctx).get(ctx, pe, dest, device::remote_offset(ctx, src), bytes);
}
void get_nbi(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  transport_of(ctx).get_nbi(ctx, pe, dest, device::remote_offset(ctx, src), bytes);
}
std::uint64_t amo(const device::Context& ctx, AmoOp op, DataType type, void* dest,
                  std::uint64_t value, std::uint64_t cond, int pe) {
  return transport_of(ctx).atomic(ctx, pe, device::remote_offset(ctx, dest), op, type, value, cond);
}
void put_signal(const device::Context& ctx, void* dest, const void* src, std::size_t bytes,
                std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe) {
  transport_of(ctx).put_signal(ctx, pe, device::remote_offset(ctx, dest), src, bytes,
                               device::remote_offset(ctx, sig), value, op);
}
void sync_signal(const device::Context& ctx, std::uint64_t* sig, std::uint64_t value, SignalOp op,
                 int pe) {
  transport_of(ctx).sync_signal(ctx, pe, device::remote_offset(ctx, sig), value, op);
}
void fence(const device::Context& ctx) {
  transport_of(ctx).fence(ctx);
}
void quiet(const device::Context& ctx) {
  transport_of(ctx).quiet(ctx);
}
void progress(const device::Context& ctx) {
  transport_of(ctx).progress();
}

}  // namespace

device::RemoteOps remote_ops(Transport* transport) {
  return {.put = put,
          .get = get,
          .get_nbi = get_nbi,
          .amo = amo,
          .put_signal = put_signal,
          .sync_signal = sync_signal,
          .fence = fence,
          .quiet = quiet,
          .progress = progress,
          .deliveries_ring = transport->deliveries_ring(),
          .moves_device_memory = transport->moves_device_memory(),
          .transport = transport,
          .device_heap = nullptr,
          .device_heap_bytes = 0,
          .pe_host = nullptr};
}

}  // namespace symmetra::detail

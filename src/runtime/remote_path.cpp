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

// The offset of symmetric `p` in its heap slot: where Context::peer puts it in this PE's own
// slot (static data through its window), less the slot's start.
std::uint64_t offset_of(const device::Context& ctx, const void* p) {
  return static_cast<std::uint64_t>(ctx.peer(static_cast<const std::byte*>(p), ctx.my_pe) -
                                    ctx.heap_base);
}

void put(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  transport_of(ctx).put(ctx, pe, offset_of(ctx, dest), src, bytes);
}
void get(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  transport_of(ctx).get(ctx, pe, dest, offset_of(ctx, src), bytes);
}
std::uint64_t amo(const device::Context& ctx, AmoOp op, DataType type, void* dest,
                  std::uint64_t value, std::uint64_t cond, int pe) {
  return transport_of(ctx).atomic(ctx, pe, offset_of(ctx, dest), op, type, value, cond);
}
void put_signal(const device::Context& ctx, void* dest, const void* src, std::size_t bytes,
                std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe) {
  transport_of(ctx).put_signal(ctx, pe, offset_of(ctx, dest), src, bytes, offset_of(ctx, sig),
                               value, op);
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
  device::RemoteOps ops{};
  ops.put = put;
  ops.get = get;
  ops.amo = amo;
  ops.put_signal = put_signal;
  ops.fence = fence;
  ops.quiet = quiet;
  ops.progress = progress;
  ops.deliveries_ring = transport->deliveries_ring();
  ops.transport = transport;
  return ops;
}

}  // namespace symmetra::detail

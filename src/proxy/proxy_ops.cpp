#include "proxy/proxy_ops.hpp"

#include <string>

namespace symmetra::detail {
namespace dd = device::detail;

namespace {

Proxy& proxy_of(const device::Context& ctx) {
  return *static_cast<Proxy*>(ctx.remote->transport);
}

[[noreturn]] void wait_failed(const device::Context& ctx, const char* op, Proxy& proxy,
                              device::ProxyWait why, std::uint64_t end, std::uint64_t done) {
  if (why == device::ProxyWait::kStopped) {
    const std::string failure = proxy.failure();
    dd::host_fatalf(ctx, op, "the proxy thread has stopped%s%s", failure.empty() ? "" : ": ",
                    failure.empty() ? " (the runtime was finalized)" : failure.c_str());
  }
  dd::host_fatalf(ctx, op,
                  "the proxy thread took no request for %.0f s: it has done the ring up to "
                  "position %llu, and this request ends at %llu (a stalled proxy; "
                  "SYMMETRA_TIMEOUT_S sets the bound)",
                  static_cast<double>(ctx.timeout_ns) / 1e9, static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(end));
}

// Posts `r`; with `wait`, returns once the proxy has done it.
void post(const device::Context& ctx, const char* op, const dd::ProxyRequest& r, bool wait) {
  Proxy& proxy = proxy_of(ctx);
  std::uint64_t end = 0, done = 0;
  auto w = dd::proxy_post(proxy.ring(), r.e, r.n, ctx.timeout_ns, &end, &done);
  if (w == device::ProxyWait::kOk && wait)
    w = dd::proxy_wait_done(proxy.ring(), end, ctx.timeout_ns, &done);
  if (w != device::ProxyWait::kOk) wait_failed(ctx, op, proxy, w, end, done);
}

void put(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  // A put of a word's size or less carries its bytes: p and the LL packets' 8-byte stores.
  if (bytes <= 8 && (bytes & (bytes - 1)) == 0) {
    std::uint64_t v = 0;
    std::memcpy(&v, src, bytes);
    post(
        ctx, "put",
        dd::proxy_put_inline(pe, device::remote_offset(ctx, dest), v, static_cast<unsigned>(bytes)),
        false);
    return;
  }
  post(ctx, "put", dd::proxy_put(pe, device::remote_offset(ctx, dest), src, bytes, true), true);
}

void get(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  post(ctx, "get", dd::proxy_get(pe, dest, device::remote_offset(ctx, src), bytes, true), true);
}

void get_nbi(const device::Context& ctx, void* dest, const void* src, std::size_t bytes, int pe) {
  post(ctx, "get_nbi", dd::proxy_get(pe, dest, device::remote_offset(ctx, src), bytes, false),
       false);
}

std::uint64_t amo(const device::Context& ctx, AmoOp op, DataType type, void* dest,
                  std::uint64_t value, std::uint64_t cond, int pe) {
  // Atomics complete on return (RemoteOps), so every one waits; the result lands here.
  std::uint64_t result = 0;
  post(ctx, "atomic",
       dd::proxy_amo(pe, device::remote_offset(ctx, dest), static_cast<unsigned>(op),
                     static_cast<unsigned>(type), value, cond, &result),
       true);
  return result;
}

void put_signal(const device::Context& ctx, void* dest, const void* src, std::size_t bytes,
                std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe) {
  post(
      ctx, "put_signal",
      dd::proxy_put_signal(pe, device::remote_offset(ctx, dest), src, bytes,
                           device::remote_offset(ctx, sig), value, static_cast<unsigned>(op), true),
      true);
}

void sync_signal(const device::Context& ctx, std::uint64_t* sig, std::uint64_t value, SignalOp op,
                 int pe) {
  post(ctx, "signal",
       dd::proxy_sync_signal(pe, device::remote_offset(ctx, sig), value, static_cast<unsigned>(op)),
       false);
}

void fence(const device::Context& ctx) {
  post(ctx, "fence", dd::proxy_fence(), false);
}

void quiet(const device::Context& ctx) {
  post(ctx, "quiet", dd::proxy_quiet(), true);
}

void progress(const device::Context& ctx) {
  proxy_of(ctx).transport()->progress();
}

}  // namespace

device::RemoteOps proxy_remote_ops(Proxy* proxy) {
  return {.put = put,
          .get = get,
          .get_nbi = get_nbi,
          .amo = amo,
          .put_signal = put_signal,
          .sync_signal = sync_signal,
          .fence = fence,
          .quiet = quiet,
          .progress = progress,
          .deliveries_ring = proxy->transport()->deliveries_ring(),
          .moves_device_memory = false,  // a CPU producer's: host memory
          .transport = proxy,
          .device_heap = nullptr,
          .device_heap_bytes = 0,
          .pe_host = nullptr};
}

}  // namespace symmetra::detail

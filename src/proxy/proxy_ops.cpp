#include "proxy/proxy_ops.hpp"

#include <cstring>
#include <string>

namespace symmetra::detail {
namespace dd = device::detail;

namespace {

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

}  // namespace

void ProxyPath::post(const device::Context& ctx, const char* op, const dd::ProxyRequest& r,
                     bool wait) {
  std::uint64_t end = 0, done = 0;
  auto w = dd::proxy_post(proxy_.ring(), r.e, r.n, ctx.timeout_ns, &end, &done);
  if (w == device::ProxyWait::kOk && wait)
    w = dd::proxy_wait_done(proxy_.ring(), end, ctx.timeout_ns, &done);
  if (w != device::ProxyWait::kOk) wait_failed(ctx, op, proxy_, w, end, done);
}

void ProxyPath::put(const device::Context& ctx, int pe, std::uint64_t offset, const void* src,
                    std::size_t bytes) {
  // A put of a word's size or less carries its bytes: p and the LL packets' 8-byte stores.
  if (bytes <= 8 && (bytes & (bytes - 1)) == 0) {
    std::uint64_t v = 0;
    std::memcpy(&v, src, bytes);
    post(ctx, "put", dd::proxy_put_inline(pe, offset, v, static_cast<unsigned>(bytes)), false);
    return;
  }
  post(ctx, "put", dd::proxy_put(pe, offset, src, bytes, true), true);
}

void ProxyPath::get(const device::Context& ctx, int pe, void* dest, std::uint64_t offset,
                    std::size_t bytes) {
  post(ctx, "get", dd::proxy_get(pe, dest, offset, bytes, true), true);
}

void ProxyPath::get_nbi(const device::Context& ctx, int pe, void* dest, std::uint64_t offset,
                        std::size_t bytes) {
  post(ctx, "get_nbi", dd::proxy_get(pe, dest, offset, bytes, false), false);
}

std::uint64_t ProxyPath::atomic(const device::Context& ctx, int pe, std::uint64_t offset, AmoOp op,
                                DataType type, std::uint64_t value, std::uint64_t cond) {
  // Atomics complete on return (RemotePath), so every one waits; the result lands here.
  std::uint64_t result = 0;
  post(ctx, "atomic",
       dd::proxy_amo(pe, offset, static_cast<unsigned>(op), static_cast<unsigned>(type), value,
                     cond, &result),
       true);
  return result;
}

void ProxyPath::put_signal(const device::Context& ctx, int pe, std::uint64_t offset,
                           const void* src, std::size_t bytes, std::uint64_t sig_offset,
                           std::uint64_t value, SignalOp op) {
  post(ctx, "put_signal",
       dd::proxy_put_signal(pe, offset, src, bytes, sig_offset, value, static_cast<unsigned>(op),
                            true),
       true);
}

void ProxyPath::sync_signal(const device::Context& ctx, int pe, std::uint64_t sig_offset,
                            std::uint64_t value, SignalOp op) {
  post(ctx, "signal", dd::proxy_sync_signal(pe, sig_offset, value, static_cast<unsigned>(op)),
       false);
}

void ProxyPath::fence(const device::Context& ctx) {
  post(ctx, "fence", dd::proxy_fence(), false);
}

void ProxyPath::quiet(const device::Context& ctx) {
  post(ctx, "quiet", dd::proxy_quiet(), true);
}

}  // namespace symmetra::detail

// The host's remote path through the proxy (docs/proxy.md): a device::RemotePath whose every
// operation is a request on the proxy's ring, posted by the calling host thread, instead of a
// call into the transport. The GPU's remote branch posts the same requests; this is how CI runs
// the ring protocol, with the API and collectives suites as its producers (SYMMETRA_PROXY=1).
//
// Threads: any thread of the PE, as RemotePath says. Blocking forms wait (bounded) for their
// request to be done; p-sized puts travel inside the request and do not wait; fence posts and
// returns; quiet waits for the proxy's acknowledgement. A wait that fails ends the job with a
// message naming the ring position and the proxy's progress.
#pragma once

#include "proxy/proxy.hpp"
#include "symmetra/device/impl/remote.hpp"

namespace symmetra::detail {

class ProxyPath final : public device::RemotePath {
 public:
  // Posts to `proxy`, which outlives this.
  explicit ProxyPath(Proxy* proxy) : proxy_(*proxy) {}

  void put(const device::Context& ctx, int pe, std::uint64_t offset, const void* src,
           std::size_t bytes) override;
  void get(const device::Context& ctx, int pe, void* dest, std::uint64_t offset,
           std::size_t bytes) override;
  void get_nbi(const device::Context& ctx, int pe, void* dest, std::uint64_t offset,
               std::size_t bytes) override;
  std::uint64_t atomic(const device::Context& ctx, int pe, std::uint64_t offset, AmoOp op,
                       DataType type, std::uint64_t value, std::uint64_t cond) override;
  void put_signal(const device::Context& ctx, int pe, std::uint64_t offset, const void* src,
                  std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                  SignalOp op) override;
  void sync_signal(const device::Context& ctx, int pe, std::uint64_t sig_offset,
                   std::uint64_t value, SignalOp op) override;
  void fence(const device::Context& ctx) override;
  void quiet(const device::Context& ctx) override;
  void progress() override { proxy_.transport()->progress(); }
  bool deliveries_ring() const override { return proxy_.transport()->deliveries_ring(); }
  // A CPU producer's buffers are host memory: moves_device_memory stays false.

 private:
  // Posts `r`; with `wait`, returns once the proxy has done it.
  void post(const device::Context& ctx, const char* op, const device::detail::ProxyRequest& r,
            bool wait);

  Proxy& proxy_;
};

}  // namespace symmetra::detail

// The proxy of a GPU PE's kernels (docs/proxy.md, "GPU producers"): the ring in memory that
// kernels and the proxy thread both see, the staging of device memory through a pinned bounce
// buffer, and the Proxy that drains the ring into the Runtime's transport. Made at init where a
// GPU PE has PEs on other hosts; stopped before the transport goes.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/backend.hpp"
#include "proxy/proxy.hpp"

namespace symmetra::detail {

class GpuProxy {
 public:
  // A ring of 2^log2_slots entries and its proxy, issuing into `transport` for the PE `*ctl`
  // describes. Throws Error where the backend cannot map the memory.
  GpuProxy(Backend& backend, Transport* transport, const device::Context* ctl,
           std::uint32_t log2_slots);
  ~GpuProxy();
  GpuProxy(const GpuProxy&) = delete;
  GpuProxy& operator=(const GpuProxy&) = delete;

  // What kernels post to (Context::proxy).
  const device::ProxyRing& ring() const { return ring_; }
  Proxy& proxy() { return *proxy_; }

 private:
  class Staging;
  device::ProxyRing ring_{};
  std::unique_ptr<Staging> staging_;
  std::unique_ptr<Proxy> proxy_;
};

}  // namespace symmetra::detail

#include "runtime/gpu_proxy.hpp"

#include <string>

#include "backend/staging.hpp"
#include "core/log.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {
namespace dd = device::detail;

// Device memory through the backend's copies: a kernel's put source, get destination or large
// result is device memory, which the transport cannot touch unless it moves device memory
// itself, and then only in the device heap it registered (RemotePath::moves_device_memory).
class GpuProxy::Staging final : public ProxyStaging {
 public:
  Staging(Backend& b, const device::RemotePath& remote, std::byte* bounce, std::size_t bytes,
          const std::byte* outbox, std::size_t outbox_bytes)
      : b_(b),
        remote_(remote),
        bounce_(bounce),
        bytes_(bytes),
        outbox_(outbox),
        outbox_end_(outbox + outbox_bytes) {}
  bool staged(const void* p, std::size_t n) const override {
    const auto* b = static_cast<const std::byte*>(p);
    if (b >= outbox_ && b < outbox_end_) return false;  // the ring's outbox: host memory
    return detail::staged(remote_, p, n, b_.is_device_memory(p));
  }
  bool device(const void* p) const override { return b_.is_device_memory(p); }
  void to_host(void* dst, const void* src, std::size_t n) override {
    b_.proxy_copy(dst, src, n, false);
  }
  void to_staged(void* dst, const void* src, std::size_t n) override {
    b_.proxy_copy(dst, src, n, true);
  }
  std::byte* bounce() override { return bounce_; }
  std::size_t bounce_bytes() const override { return bytes_; }

 private:
  Backend& b_;
  const device::RemotePath& remote_;  // the runtime's, which outlives the proxy
  std::byte* bounce_;
  std::size_t bytes_;
  const std::byte* outbox_;  // null (none) or pinned host memory
  const std::byte* outbox_end_;
};

namespace {

constexpr std::size_t kLine = 64;  // the control words each on a cache line of their own

}  // namespace

GpuProxy::GpuProxy(Backend& backend, Transport* transport, const device::Context* ctl,
                   std::uint32_t log2_slots) {
  const std::size_t slots = std::size_t{1} << log2_slots;
  // slots | done | state | results (two words per slot), in one mapping; tail in device memory,
  // where the GPU's atomics run (the proxy never reads it: entries carry their own flags).
  const std::size_t bytes = 3 * slots * sizeof(std::uint64_t) + 2 * kLine;
  std::string why;
  auto* base = static_cast<std::byte*>(backend.pinned_host_memory(bytes, true, &why));
  std::uint64_t* tail = base != nullptr ? backend.device_words(1, &why) : nullptr;
  auto* bounce =
      tail != nullptr
          ? static_cast<std::byte*>(backend.pinned_host_memory(kBounceBytes, false, &why))
          : nullptr;
  if (bounce == nullptr)
    throw_on_pe(ctl->my_pe,
                "init: the proxy ring for this GPU's kernels to reach other hosts: " + why);
  ring_.slots = reinterpret_cast<std::uint64_t*>(base);
  ring_.done = reinterpret_cast<std::uint64_t*>(base + slots * sizeof(std::uint64_t));
  ring_.state = reinterpret_cast<std::uint32_t*>(base + slots * sizeof(std::uint64_t) + kLine);
  ring_.results =
      reinterpret_cast<std::uint64_t*>(base + slots * sizeof(std::uint64_t) + 2 * kLine);
  ring_.tail = tail;
  ring_.log2_slots = log2_slots;
  // The outbox (device::ProxyRing::outbox): without it small puts are staged as larger ones.
  const std::size_t outbox_bytes = dd::proxy_outbox_bytes(log2_slots);
  ring_.outbox = static_cast<std::byte*>(backend.pinned_host_memory(outbox_bytes, true, &why));
  if (ring_.outbox == nullptr)
    SYMMETRA_LOG(kWarn, ctl->my_pe,
                 "no outbox for the proxy ring (%s): kernels' small puts to other hosts are "
                 "staged and waited for",
                 why.c_str());
  staging_ = std::make_unique<Staging>(backend, *ctl->remote, bounce, kBounceBytes, ring_.outbox,
                                       ring_.outbox != nullptr ? outbox_bytes : 0);
  proxy_ = std::make_unique<Proxy>(ring_, transport, ctl, staging_.get());
}

GpuProxy::~GpuProxy() {
  proxy_.reset();  // stops the thread's work on this ring before the staging goes
}

}  // namespace symmetra::detail

// The loopback transport: the test transport of docs/transports.md. It reaches the PEs of other
// forced hosts on this machine (SYMMETRA_HOSTS, symrun --hosts) through the machine's shared
// heap mapping, behind the same interface as a network transport: keys are exchanged at
// registration, every access is checked against what its target registered, and delivery
// keeps the interface's promises (whole 8-byte words, data before signal, the target woken
// when it sleeps on the words). So CI runs the remote path of every operation and collective.
// Delivery is done by the initiator, complete on return: fence, quiet and progress have
// nothing to wait for.
#pragma once

#include <atomic>
#include <memory>

#include "transport/transport.hpp"

namespace symmetra::detail {

class LoopbackTransport final : public Transport {
 public:
  static Result<std::unique_ptr<Transport>> connect(const TransportParams& params);

  const char* name() const override { return "loopback"; }
  Status register_memory(std::byte* local, std::uint64_t offset, std::uint64_t bytes,
                         const HeapAccess* access) override;
  void put(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
           std::size_t bytes) override;
  void get(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
           std::size_t bytes) override;
  std::uint64_t atomic(const device::Context& ctl, int pe, std::uint64_t offset, AmoOp op,
                       DataType type, std::uint64_t value, std::uint64_t cond) override;
  void put_signal(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
                  std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                  SignalOp op) override;
  void fence(const device::Context& ctl) override;
  void quiet(const device::Context& ctl) override;
  void progress() override {}
  bool deliveries_ring() const override { return true; }

 private:
  // What one PE registered: ranges of its slot, merged where they touch (heap growth extends
  // the last one). Written by the setup thread while other threads of this PE may read:
  // ranges only grow, published by `count` and `bytes` releases.
  static constexpr int kMaxRanges = 16;
  struct Range {
    std::uint64_t offset = 0;
    std::atomic<std::uint64_t> bytes{0};
  };
  struct Peer {
    bool remote = false;
    std::atomic<int> count{0};
    Range ranges[kMaxRanges];
  };

  LoopbackTransport(Bootstrap& bs, std::byte* mapping, std::uint64_t stride, int n);
  // PE pe's byte at `offset`, after checking that [offset, offset + bytes) is registered.
  std::byte* target(const device::Context& ctl, const char* op, int pe, std::uint64_t offset,
                    std::size_t bytes) const;
  // Rings PE pe's doorbell if it sleeps on [offset, offset + bytes).
  void wake(int pe, std::uint64_t offset, std::size_t bytes) const;

  Bootstrap& bs_;
  std::byte* mapping_;  // where PE 0's heap slot is mapped in this process
  std::uint64_t stride_;
  int n_;
  std::unique_ptr<Peer[]> peers_;
};

}  // namespace symmetra::detail

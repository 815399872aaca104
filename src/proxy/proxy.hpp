// The proxy (docs/proxy.md): a CPU thread that drains a channel of requests
// (device/impl/proxy_ring.hpp) into a transport, for producers that cannot call the transport
// themselves: GPU threads, and, in tests and with SYMMETRA_PROXY=1, the host's own remote
// branch (proxy/proxy_ops.hpp), so that CI runs the protocol with a CPU producer.
//
// One thread per process serves every Proxy (ring) of the process, in turns of at most 256
// requests per ring, as NVSHMEM's one proxy per process does: PEs that are threads of one
// process (and a GPU PE's several rings, later) cost one CPU, not one each. The thread starts
// with the first Proxy and ends when the last one stops.
//
// Threads: the proxy thread takes the requests; stop() and the accessors from any thread.
// Ordering: requests are issued in ring order, each into the transport as its producer would
// have issued it, so the transport's ordering rules (transport/transport.hpp) hold between the
// requests of one ring. `done` is written after the request's transport call returned.
// Bounds: the proxy never waits on a producer; a producer's waits are bounded (proxy_ring.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/proxy_ring.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {

// Ring memory in ordinary host memory, zeroed (the CPU producer's channel). The GPU's lives in
// pinned, device-mapped memory that its backend allocates.
class HostProxyMemory {
 public:
  explicit HostProxyMemory(std::uint32_t log2_slots);
  const device::ProxyRing& ring() const { return ring_; }

 private:
  std::unique_ptr<std::uint64_t[]> words_;  // slots, then tail, done, state: 64 bytes apart
  device::ProxyRing ring_{};
};

// Producer memory that the transport cannot reach: a GPU producer's put source, get
// destination or atomic result in device memory, where the transport moves host memory only
// (UCX without CUDA support). The proxy stages those bytes through `bounce()`, chunk by chunk
// (docs/proxy.md, "Staging"). Threads: the proxy thread's; each copy is complete on return.
class ProxyStaging {
 public:
  virtual ~ProxyStaging() = default;
  // Whether [p, p + bytes) must be staged (is not memory the transport reads and writes).
  virtual bool staged(const void* p, std::size_t bytes) const = 0;
  // Whether the CPU cannot store to p (device memory): an atomic's result goes by to_staged.
  virtual bool device(const void* p) const = 0;
  virtual void to_host(void* dst, const void* src, std::size_t bytes) = 0;    // src staged
  virtual void to_staged(void* dst, const void* src, std::size_t bytes) = 0;  // dst staged
  // Host memory the transport reads and writes (pinned for a GPU), and its size: one chunk.
  virtual std::byte* bounce() = 0;
  virtual std::size_t bounce_bytes() const = 0;
};

class Proxy {
 public:
  // Has the process's proxy thread serve `ring` (zeroed memory that outlives the Proxy),
  // issuing into `transport` on behalf of the PE `*ctl` describes (the transport's messages
  // name it; read live, so the caller may refresh it). Starts the thread if none runs.
  // `staging` (may be null: nothing staged) outlives the Proxy.
  Proxy(const device::ProxyRing& ring, Transport* transport, const device::Context* ctl,
        ProxyStaging* staging = nullptr);
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  const device::ProxyRing& ring() const { return ring_; }
  Transport* transport() const { return transport_; }
  // Takes every request already posted, marks the ring stopped (a producer's wait then ends
  // with kStopped) and waits until the proxy thread has let go of it. Idempotent.
  void stop();
  // Proxy threads running in this process (0 or 1), for tests.
  static int threads_running();
  // Requests taken so far, and how many times the proxy wrote `done` (its batches).
  std::uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }
  std::uint64_t done_writes() const { return done_writes_.load(std::memory_order_relaxed); }
  // Tests: a stalled proxy takes nothing while `stalled` and leaves the ring's state running,
  // as a proxy thread stuck in the network would.
  void stall_for_test(bool stalled) { stalled_.store(stalled, std::memory_order_relaxed); }
  // Why the proxy stopped on its own (the ring's state is kProxyFailed); empty otherwise.
  std::string failure() const;

 private:
  friend class ProxyThread;
  // One turn of the proxy thread on this ring: takes up to kTurn requests; when it took none,
  // publishes, and if stopping, marks the ring stopped and returns true (finished). A transport
  // call that throws marks the ring failed, with the message, and finishes it too.
  static constexpr int kTurn = 256;
  bool turn(bool* took);
  bool finish_failed(const std::exception& e);
  // Takes the request at head_ if all its entries are written; false if not (yet).
  bool take_one();
  void issue(const std::uint64_t* e);
  // The staged forms of put, put_signal and get: chunk by chunk through the bounce buffer.
  void put_staged(int pe, std::uint64_t dest, const std::byte* src, std::uint64_t bytes);
  void put_signal_staged(int pe, std::uint64_t dest, const std::byte* src, std::uint64_t bytes,
                         std::uint64_t sig, std::uint64_t value, SignalOp op);
  void get_staged(int pe, std::byte* dest, std::uint64_t src, std::uint64_t bytes);
  void publish();

  device::ProxyRing ring_;
  Transport* transport_;
  const device::Context* ctl_;
  ProxyStaging* staging_;
  std::uint64_t head_ = 0;          // the proxy thread's own: the next position to take
  std::uint64_t published_ = 0;     // the last value written to ring_.done
  std::deque<std::uint64_t> held_;  // fetches whose producer has not taken the result (publish)
  std::atomic<bool> stop_{false};
  std::atomic<bool> stalled_{false};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> done_writes_{0};
  mutable std::mutex failure_mu_;
  std::string failure_;
  bool registered_ = false;  // the proxy thread serves it (guarded by the thread's mutex)
};

}  // namespace symmetra::detail

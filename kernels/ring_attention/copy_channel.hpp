// The ring's exchange without Symmetra's put-with-signal, for the benchmark's baseline
// (RingAttentionOptions::exchange_by_copies): cudaMemcpyAsync into the next PE's buffer and CUDA
// events, as a ring written on plain CUDA would do it. Same protocol as Channel's stream forms
// (two buffers, message m in buffer m % 2, a credit per message read), same buffers.
//
// A stream can only wait for an event already recorded, so each wait first waits on the host
// until the other PE's thread has recorded the event of that message: host counters, published
// after each record. Per buffer one event suffices: the other side cannot record the buffer's
// event for message m + 2 before this side released message m. So the PEs must be threads of
// one process (the events and counters are shared through a registry); elsewhere the first call
// says so.
//
// Threads: one PE's thread per object; the registry is shared by the PEs of the process.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "channel.hpp"
#include "symmetra/error.hpp"

namespace symmetra::kernels::gpu {

// What the ring's GPU passes call: Channel's stream forms, or these copies.
struct StreamChannel {
  virtual ~StreamChannel() = default;
  virtual void send_on(const void* a, std::size_t a_bytes, const void* b, Stream s) = 0;
  virtual std::byte* receive_on(Stream s) = 0;
  virtual void release_on(Stream s) = 0;
  void send_on(const void* src, Stream s) { send_on(nullptr, 0, src, s); }
};

// Channel's stream forms: put-with-signal, signal waits, the credit's atomic add.
struct SymmetraChannel final : StreamChannel {
  Channel& c;
  explicit SymmetraChannel(Channel& ch) : c(ch) {}
  using StreamChannel::send_on;
  void send_on(const void* a, std::size_t a_bytes, const void* b, Stream s) override {
    c.send_on(a, a_bytes, b, s);
  }
  std::byte* receive_on(Stream s) override { return c.receive_on(s); }
  void release_on(Stream s) override { c.release_on(s); }
};

class CopyChannel final : public StreamChannel {
 public:
  // Registers this PE's side under the channel's identity (PE 0's address of its buffers, the
  // same in every thread of the process).
  CopyChannel(Runtime& rt, Channel& c) : rt_(rt), c_(c) {
    for (cudaEvent_t* e : {&arrived_[0], &arrived_[1], &released_[0], &released_[1]})
      if (cudaEventCreateWithFlags(e, cudaEventDisableTiming) != cudaSuccess)
        throw Error(prefix() + "cudaEventCreate failed");
    key_ = rt.ptr(c.slot[0], 0);
    if (key_ != nullptr) {
      std::lock_guard<std::mutex> lock(mutex());
      registry()[key_][rt.my_pe()] = this;
    }
  }
  ~CopyChannel() override {
    if (key_ != nullptr) {
      std::lock_guard<std::mutex> lock(mutex());
      auto it = registry().find(key_);
      if (it != registry().end()) {
        it->second.erase(rt_.my_pe());
        if (it->second.empty()) registry().erase(it);
      }
    }
    for (cudaEvent_t e : {arrived_[0], arrived_[1], released_[0], released_[1]})
      cudaEventDestroy(e);
  }

  using StreamChannel::send_on;
  void send_on(const void* a, std::size_t a_bytes, const void* b, Stream s) override {
    CopyChannel& next = peer(c_.next);
    const std::uint64_t m = ++c_.sent;
    const int j = static_cast<int>(m % 2);
    if (m > 2) {  // the next PE read message m - 2, the last one in this buffer
      wait_for(next.released_count_, m - 2, "its credit");
      check(cudaStreamWaitEvent(cu(s), next.released_[j], 0), "cudaStreamWaitEvent");
    }
    auto* dest = static_cast<std::byte*>(rt_.ptr(c_.slot[j], c_.next));
    if (a_bytes > 0) check(cudaMemcpyAsync(dest, a, a_bytes, cudaMemcpyDefault, cu(s)), "copy");
    check(cudaMemcpyAsync(dest + a_bytes, b, c_.bytes - a_bytes, cudaMemcpyDefault, cu(s)), "copy");
    // The event lives at the receiver: it waits for it.
    check(cudaEventRecord(next.arrived_[j], cu(s)), "cudaEventRecord");
    next.arrived_count_.store(m, std::memory_order_release);
  }
  std::byte* receive_on(Stream s) override {
    const std::uint64_t m = ++c_.received;
    const int j = static_cast<int>(m % 2);
    wait_for(arrived_count_, m, "a message");
    check(cudaStreamWaitEvent(cu(s), arrived_[j], 0), "cudaStreamWaitEvent");
    return c_.slot[j];
  }
  void release_on(Stream s) override {
    const std::uint64_t m = ++releases_;
    check(cudaEventRecord(released_[m % 2], cu(s)), "cudaEventRecord");
    released_count_.store(m, std::memory_order_release);
  }

 private:
  static cudaStream_t cu(Stream s) { return reinterpret_cast<cudaStream_t>(s); }
  static std::mutex& mutex() {
    static std::mutex* m = new std::mutex();
    return *m;
  }
  static std::map<const void*, std::map<int, CopyChannel*>>& registry() {
    static auto* r = new std::map<const void*, std::map<int, CopyChannel*>>();
    return *r;
  }
  std::string prefix() const {
    return "[pe " + std::to_string(rt_.my_pe()) + "] ring_attention (copies): ";
  }
  void check(cudaError_t e, const char* what) const {
    if (e != cudaSuccess) throw Error(prefix() + what + ": " + cudaGetErrorString(e));
  }
  CopyChannel& peer(int pe) {
    std::lock_guard<std::mutex> lock(mutex());
    auto it = key_ != nullptr ? registry().find(key_) : registry().end();
    if (it == registry().end() || it->second.count(pe) == 0)
      throw Error(prefix() + "PE " + std::to_string(pe) +
                  " is not a thread of this process: the copies baseline needs every PE of the "
                  "ring as a thread of one process");
    return *it->second.at(pe);
  }
  // Until the other PE's thread has recorded event `want` (bounded by SYMMETRA_TIMEOUT_S).
  void wait_for(const std::atomic<std::uint64_t>& count, std::uint64_t want,
                const char* what) const {
    const char* env = std::getenv("SYMMETRA_TIMEOUT_S");
    const double limit = env != nullptr ? std::atof(env) : 60.0;
    const auto start = std::chrono::steady_clock::now();
    while (count.load(std::memory_order_acquire) < want) {
      std::this_thread::yield();
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit)
        throw Error(prefix() + "waited " + std::to_string(limit) + " s for " + what);
    }
  }

  Runtime& rt_;
  Channel& c_;
  const void* key_ = nullptr;
  cudaEvent_t arrived_[2] = {nullptr, nullptr};   // recorded by the previous PE after its copy
  cudaEvent_t released_[2] = {nullptr, nullptr};  // recorded here once a buffer was read
  std::atomic<std::uint64_t> arrived_count_{0};   // messages whose arrival event is recorded
  std::atomic<std::uint64_t> released_count_{0};  // messages whose release event is recorded
  std::uint64_t releases_ = 0;                    // this side's releases so far
};

}  // namespace symmetra::kernels::gpu

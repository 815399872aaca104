// The proxy ring protocol (device/impl/proxy_ring.hpp, src/proxy/) with CPU threads as the
// producers, writing the entries a GPU would: every request kind reaches the transport with
// its fields intact and in ring order, across many laps of a small ring; producers short of
// space wait instead of overwriting; quiet is acknowledged only after every earlier request
// reached the transport and its quiet; a fence sits where it was posted; `done` is written in
// batches; and a stopped, failed or stalled proxy ends a producer's wait with the reason, within
// its bound.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/blocked.hpp"
#include "proxy/proxy.hpp"
#include "symmetra/device/impl/proxy_ring.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {
namespace {
namespace dd = device::detail;
using device::ProxyWait;

// What the proxy asked of the transport, one record per call.
struct Call {
  enum Kind { kPut, kGet, kAtomic, kPutSignal, kFence, kQuiet } kind;
  int pe = 0;
  std::uint64_t offset = 0;
  std::vector<unsigned char> data;  // a put's bytes, read from its source during the call
  std::uint64_t sig_offset = 0, value = 0, cond = 0;
  int op = 0, type = 0;
  std::uintptr_t dest = 0;  // a get's destination
  std::size_t bytes = 0;
};

// Producer memory the transport must not touch (GPU memory, say): addresses in `shadow`, which
// stand for the bytes of `memory` at the same offsets. The proxy must stage them through the
// bounce buffer; the recording transport counts every such address it is handed instead of
// touching it, and a proxy that wrote one itself would leave `memory` unchanged.
class TaggedStaging final : public ProxyStaging {
 public:
  static constexpr std::size_t kBytes = 4096;
  explicit TaggedStaging(std::size_t chunk) : memory(kBytes), bounce_(chunk) {}
  static bool tagged(const void* p) {
    const auto* b = static_cast<const unsigned char*>(p);
    return b >= shadow && b < shadow + kBytes;
  }
  void* address(std::size_t at) { return shadow + at; }
  // moved: memory the transport moves itself (UCX with CUDA and the device heap), still out of
  // the CPU's reach.
  bool staged(const void* p, std::size_t) const override { return tagged(p) && !moved; }
  bool device(const void* p) const override { return tagged(p); }
  bool moved = false;
  void to_host(void* dst, const void* src, std::size_t n) override {
    std::memcpy(dst, &memory.at(offset(src)), n);
  }
  void to_staged(void* dst, const void* src, std::size_t n) override {
    std::memcpy(&memory.at(offset(dst)), src, n);
  }
  std::byte* bounce() override { return bounce_.data(); }
  std::size_t bounce_bytes() const override { return bounce_.size(); }
  std::vector<unsigned char> memory;

 private:
  static std::size_t offset(const void* p) {
    return static_cast<std::size_t>(static_cast<const unsigned char*>(p) - shadow);
  }
  alignas(64) static inline unsigned char shadow[kBytes] = {};
  std::vector<std::byte> bounce_;
};

// A transport that records what it is asked. Its results are functions of their arguments, so
// a test can check what the producer got back. Threads: the proxy's.
class RecordingTransport final : public Transport {
 public:
  const char* name() const override { return "recording"; }
  Status register_memory(std::byte*, std::uint64_t, std::uint64_t, const HeapAccess*) override {
    return {};
  }
  void put(const device::Context&, int pe, std::uint64_t offset, const void* src,
           std::size_t bytes) override {
    while (block_puts.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (const int ms = put_ms.load()) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    Call c{Call::kPut};
    c.pe = pe;
    c.offset = offset;
    c.bytes = bytes;
    if (TaggedStaging::tagged(src))
      ++untouchable;
    else
      c.data.assign(static_cast<const unsigned char*>(src),
                    static_cast<const unsigned char*>(src) + bytes);
    record(std::move(c));
  }
  void get(const device::Context&, int pe, void* dest, std::uint64_t offset,
           std::size_t bytes) override {
    auto* d = static_cast<unsigned char*>(dest);
    if (TaggedStaging::tagged(dest))
      ++untouchable;
    else
      for (std::size_t i = 0; i < bytes; ++i) d[i] = get_byte(pe, offset + i);
    Call c{Call::kGet};
    c.pe = pe;
    c.offset = offset;
    c.bytes = bytes;
    c.dest = reinterpret_cast<std::uintptr_t>(dest);
    record(std::move(c));
  }
  std::uint64_t atomic(const device::Context&, int pe, std::uint64_t offset, AmoOp op,
                       DataType type, std::uint64_t value, std::uint64_t cond) override {
    if (fail_atomics) throw std::runtime_error("[pe 0] atomic: PE 1 (host 'h1') is gone");
    Call c{Call::kAtomic};
    c.pe = pe;
    c.offset = offset;
    c.op = static_cast<int>(op);
    c.type = static_cast<int>(type);
    c.value = value;
    c.cond = cond;
    record(std::move(c));
    return amo_result(pe, offset, value);
  }
  void put_signal(const device::Context&, int pe, std::uint64_t offset, const void* src,
                  std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                  SignalOp op) override {
    Call c{Call::kPutSignal};
    c.pe = pe;
    c.offset = offset;
    c.bytes = bytes;
    if (TaggedStaging::tagged(src))
      ++untouchable;
    else
      c.data.assign(static_cast<const unsigned char*>(src),
                    static_cast<const unsigned char*>(src) + bytes);
    c.sig_offset = sig_offset;
    c.value = value;
    c.op = static_cast<int>(op);
    record(std::move(c));
  }
  void fence(const device::Context&) override { record(Call{Call::kFence}); }
  void quiet(const device::Context&) override {
    // Slow, so that a quiet acknowledged before its transport call returned would be seen.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    record(Call{Call::kQuiet});
  }
  void progress() override {}
  bool deliveries_ring() const override { return false; }

  static unsigned char get_byte(int pe, std::uint64_t at) {
    return static_cast<unsigned char>((at * 131 + static_cast<std::uint64_t>(pe) * 7) >> 3);
  }
  static std::uint64_t amo_result(int pe, std::uint64_t offset, std::uint64_t value) {
    return (value ^ 0x9e3779b97f4a7c15ull) + offset * 3 + static_cast<std::uint64_t>(pe);
  }

  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::atomic<bool> fail_atomics{false};
  std::atomic<bool> block_puts{false};  // puts wait while set: a transport stuck in a call
  std::atomic<int> put_ms{0};           // each put takes this long: a slow transport
  std::atomic<int> untouchable{0};      // tagged (staged) addresses handed to the transport

 private:
  void record(Call c) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(c));
  }
  std::mutex mu_;
  std::vector<Call> calls_;
};

constexpr std::uint64_t kTimeout = 20'000'000'000ull;  // 20 s: ends a test that would hang

struct Channel {
  explicit Channel(std::uint32_t log2_slots, ProxyStaging* staging = nullptr) : memory(log2_slots) {
    ctl.my_pe = 0;
    ctl.n_pes = 2;
    ctl.timeout_ns = kTimeout;
    proxy = std::make_unique<Proxy>(memory.ring(), &transport, &ctl, staging);
  }
  // Posts `r` and, with `wait`, waits for it to be done; returns how the waits ended.
  ProxyWait post(const dd::ProxyRequest& r, bool wait, std::uint64_t timeout = kTimeout) {
    std::uint64_t end = 0, done = 0;
    ProxyWait w = dd::proxy_post(memory.ring(), r.e, r.n, timeout, &end, &done);
    if (w == ProxyWait::kOk && wait) w = dd::proxy_wait_done(memory.ring(), end, timeout, &done);
    return w;
  }
  HostProxyMemory memory;
  RecordingTransport transport;
  device::Context ctl{};
  std::unique_ptr<Proxy> proxy;
};

std::vector<unsigned char> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

TEST(ProxyRing, EveryRequestKindArrivesWhole) {
  Channel ch(6);
  std::mt19937_64 rng(std::random_device{}());
  const auto src = random_bytes(rng, 1000);
  const std::uint64_t v64 = rng() | (1ull << 63), cond = rng() | (1ull << 62);
  std::vector<unsigned char> got(333);
  std::uint64_t result = 0;

  ASSERT_EQ(ch.post(dd::proxy_put(1, 4096, src.data(), src.size(), true), true), ProxyWait::kOk);
  for (unsigned bytes : {1u, 2u, 4u, 8u})
    ASSERT_EQ(ch.post(dd::proxy_put_inline(3, 64 + bytes, v64, bytes), false), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_get(2, got.data(), 123457, got.size(), true), true), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_amo(1, 8u << 20, static_cast<unsigned>(AmoOp::kCompareSwap),
                                  static_cast<unsigned>(DataType::kUint64), v64, cond, &result),
                    true),
            ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_fence(), false), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_put_signal(0xabcde, 512, src.data() + 7, 77, 1u << 30, v64,
                                         static_cast<unsigned>(SignalOp::kAdd), true),
                    true),
            ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);

  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), 10u);
  EXPECT_EQ(calls[0].kind, Call::kPut);
  EXPECT_EQ(calls[0].pe, 1);
  EXPECT_EQ(calls[0].offset, 4096u);
  EXPECT_EQ(calls[0].data, src);
  for (int i = 0; i < 4; ++i) {
    const unsigned bytes = 1u << i;
    const Call& c = calls[static_cast<std::size_t>(1 + i)];
    EXPECT_EQ(c.kind, Call::kPut);
    EXPECT_EQ(c.pe, 3);
    EXPECT_EQ(c.offset, 64u + bytes);
    ASSERT_EQ(c.data.size(), bytes);
    std::uint64_t v = 0;
    std::memcpy(&v, c.data.data(), bytes);
    EXPECT_EQ(v, bytes == 8 ? v64 : v64 & ((1ull << (8 * bytes)) - 1)) << bytes << " bytes";
  }
  EXPECT_EQ(calls[5].kind, Call::kGet);
  EXPECT_EQ(calls[5].pe, 2);
  EXPECT_EQ(calls[5].offset, 123457u);
  EXPECT_EQ(calls[5].dest, reinterpret_cast<std::uintptr_t>(got.data()));
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], RecordingTransport::get_byte(2, 123457 + i)) << "byte " << i;
  EXPECT_EQ(calls[6].kind, Call::kAtomic);
  EXPECT_EQ(calls[6].offset, 8u << 20);
  EXPECT_EQ(calls[6].op, static_cast<int>(AmoOp::kCompareSwap));
  EXPECT_EQ(calls[6].type, static_cast<int>(DataType::kUint64));
  EXPECT_EQ(calls[6].value, v64);
  EXPECT_EQ(calls[6].cond, cond);
  EXPECT_EQ(result, RecordingTransport::amo_result(1, 8u << 20, v64));
  EXPECT_EQ(calls[7].kind, Call::kFence);
  EXPECT_EQ(calls[8].kind, Call::kPutSignal);
  EXPECT_EQ(calls[8].pe, 0xabcde);
  EXPECT_EQ(calls[8].offset, 512u);
  EXPECT_EQ(calls[8].data, std::vector<unsigned char>(src.begin() + 7, src.begin() + 84));
  EXPECT_EQ(calls[8].sig_offset, 1u << 30);
  EXPECT_EQ(calls[8].value, v64);
  EXPECT_EQ(calls[8].op, static_cast<int>(SignalOp::kAdd));
  EXPECT_EQ(calls[9].kind, Call::kQuiet);
}

// Staged memory of random bytes (and a copy of them as they were), a channel that stages
// through it in chunks of 64 bytes, and a random 64-bit value; `moved`: memory the transport
// moves itself.
struct StagedChannel {
  explicit StagedChannel(bool moved) {
    staging.moved = moved;
    std::mt19937_64 rng(std::random_device{}());
    for (auto& b : staging.memory) b = static_cast<unsigned char>(rng());
    before = staging.memory;
    v64 = rng() | 1;
  }
  TaggedStaging staging{64};
  Channel ch{6, &staging};
  std::vector<unsigned char> before;
  std::uint64_t v64 = 0;
};

// A producer's put of 1000 bytes from the staged memory at 0, put_signal of 150 from 1000,
// get of 200 into 2000, and fetch_add with its result at 3000, each waited for.
void post_from_staged(StagedChannel& s) {
  Channel& ch = s.ch;
  TaggedStaging& staging = s.staging;
  const std::uint64_t v64 = s.v64;
  ASSERT_EQ(ch.post(dd::proxy_put(1, 4096, staging.address(0), 1000, true), true), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_put_signal(2, 8192, staging.address(1000), 150, 1u << 20, v64,
                                         static_cast<unsigned>(SignalOp::kSet), true),
                    true),
            ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_get(3, staging.address(2000), 5000, 200, true), true),
            ProxyWait::kOk);
  auto* result = static_cast<std::uint64_t*>(staging.address(3000));
  ASSERT_EQ(ch.post(dd::proxy_amo(1, 64, static_cast<unsigned>(AmoOp::kFetchAdd),
                                  static_cast<unsigned>(DataType::kUint64), v64, 0, result),
                    true),
            ProxyWait::kOk);
}

// Memory the transport cannot touch (a GPU producer's, with UCX that moves host memory only)
// goes through the bounce buffer, in chunks: a put as puts; a put_signal as puts, a fence, and
// the last chunk with the signal; a get as gets, each copied on; an atomic's result copied on.
TEST(ProxyRing, StagedMemoryGoesThroughTheBounceBuffer) {
  StagedChannel s(false);
  ASSERT_NO_FATAL_FAILURE(post_from_staged(s));
  auto& [staging, ch, before, v64] = s;
  EXPECT_EQ(ch.transport.untouchable.load(), 0) << "the transport was handed staged memory";
  const auto calls = ch.transport.calls();
  std::size_t i = 0;
  // The put: 16 chunks of 64 bytes, the last of 40.
  std::vector<unsigned char> put;
  for (; i < calls.size() && calls[i].kind == Call::kPut && calls[i].pe == 1; ++i) {
    EXPECT_EQ(calls[i].offset, 4096 + put.size());
    put.insert(put.end(), calls[i].data.begin(), calls[i].data.end());
  }
  EXPECT_EQ(i, 16u);
  EXPECT_EQ(put, std::vector<unsigned char>(before.begin(), before.begin() + 1000));
  // The put_signal: 2 chunks as puts, a fence, then 22 bytes with the signal.
  ASSERT_GE(calls.size(), i + 4);
  std::vector<unsigned char> sent;
  for (int k = 0; k < 2; ++k, ++i) {
    EXPECT_EQ(calls[i].kind, Call::kPut);
    EXPECT_EQ(calls[i].offset, 8192 + sent.size());
    sent.insert(sent.end(), calls[i].data.begin(), calls[i].data.end());
  }
  EXPECT_EQ(calls[i++].kind, Call::kFence);
  EXPECT_EQ(calls[i].kind, Call::kPutSignal);
  EXPECT_EQ(calls[i].offset, 8192u + 128);
  EXPECT_EQ(calls[i].sig_offset, 1u << 20);
  EXPECT_EQ(calls[i].value, v64);
  sent.insert(sent.end(), calls[i].data.begin(), calls[i].data.end());
  ++i;
  EXPECT_EQ(sent, std::vector<unsigned char>(before.begin() + 1000, before.begin() + 1150));
  // The get: 4 chunks (64, 64, 64, 8), each into the staged destination.
  for (int k = 0; k < 4; ++k, ++i) {
    ASSERT_LT(i, calls.size());
    EXPECT_EQ(calls[i].kind, Call::kGet);
    EXPECT_EQ(calls[i].offset, 5000u + 64 * k);
  }
  for (std::size_t b = 0; b < 200; ++b)
    ASSERT_EQ(staging.memory[2000 + b], RecordingTransport::get_byte(3, 5000 + b)) << b;
  // The atomic's old value, in the staged result.
  ASSERT_LT(i, calls.size());
  EXPECT_EQ(calls[i].kind, Call::kAtomic);
  std::uint64_t old = 0;
  std::memcpy(&old, &staging.memory[3000], sizeof old);
  EXPECT_EQ(old, RecordingTransport::amo_result(1, 64, v64));
  // Nothing else of the staged memory changed.
  for (std::size_t b = 0; b < before.size(); ++b)
    if ((b < 2000 || b >= 2200) && (b < 3000 || b >= 3008))
      ASSERT_EQ(staging.memory[b], before[b]) << b;
}

// Device memory that the transport moves itself (RemotePath::moves_device_memory) goes to it as it
// is, in one call each; an atomic's result there is still out of the CPU's reach and is staged.
TEST(ProxyRing, DeviceMemoryTheTransportMovesGoesAsIs) {
  StagedChannel s(true);
  ASSERT_NO_FATAL_FAILURE(post_from_staged(s));
  auto& [staging, ch, before, v64] = s;
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(ch.transport.untouchable.load(), 3) << "the put, put_signal and get, as they are";
  EXPECT_EQ(calls[0].kind, Call::kPut);
  EXPECT_EQ(calls[0].bytes, 1000u);
  EXPECT_EQ(calls[1].kind, Call::kPutSignal);
  EXPECT_EQ(calls[1].bytes, 150u);
  EXPECT_EQ(calls[2].kind, Call::kGet);
  EXPECT_EQ(calls[2].dest, reinterpret_cast<std::uintptr_t>(staging.address(2000)));
  EXPECT_EQ(calls[3].kind, Call::kAtomic);
  std::uint64_t old = 0;
  std::memcpy(&old, &staging.memory[3000], sizeof old);
  EXPECT_EQ(old, RecordingTransport::amo_result(1, 64, v64)) << "the result was not staged";
  for (std::size_t b = 0; b < before.size(); ++b)
    if (b < 3000 || b >= 3008) ASSERT_EQ(staging.memory[b], before[b]) << b;
}

// Requests of 1, 4 and 7 entries in a random mix on a ring of 16 entries: hundreds of laps, so
// that requests straddle the wrap in every phase; each arrives once, in order, intact.
TEST(ProxyRing, WrapsAroundForManyLaps) {
  Channel ch(4);
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Call> want;
  for (int i = 0; i < 3000; ++i) {
    const std::uint64_t off = rng() >> 2, v = rng();
    switch (rng() % 3) {
      case 0: {
        ASSERT_EQ(ch.post(dd::proxy_put_inline(i % 5, off, v, 8), false), ProxyWait::kOk);
        Call c{Call::kPut};
        c.offset = off;
        c.value = v;
        want.push_back(c);
        break;
      }
      case 1: {
        ASSERT_EQ(ch.post(dd::proxy_amo(i % 5, off, 4, 7, v, ~v, nullptr), false), ProxyWait::kOk);
        Call c{Call::kAtomic};
        c.offset = off;
        c.value = v;
        want.push_back(c);
        break;
      }
      default:
        ASSERT_EQ(ch.post(dd::proxy_fence(), false), ProxyWait::kOk);
        want.push_back(Call{Call::kFence});
    }
  }
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), want.size() + 1);
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(calls[i].kind, want[i].kind) << "request " << i;
    if (want[i].kind == Call::kFence) continue;
    ASSERT_EQ(calls[i].offset, want[i].offset) << "request " << i;
    std::uint64_t v = calls[i].value;
    if (want[i].kind == Call::kPut) std::memcpy(&v, calls[i].data.data(), 8);
    ASSERT_EQ(v, want[i].value) << "request " << i;
  }
  EXPECT_EQ(ch.proxy->requests(), want.size() + 1);
}

// Four producers at once, each with its own numbered stream: every request arrives once, and
// each producer's in its own order.
TEST(ProxyRing, ProducersShareARing) {
  Channel ch(5);
  constexpr int kProducers = 4, kEach = 2000;
  std::vector<std::thread> producers;
  std::atomic<int> failures{0};
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i)
        if (ch.post(dd::proxy_put_inline(p, static_cast<std::uint64_t>(i), 0, 8), false) !=
            ProxyWait::kOk)
          ++failures;
    });
  for (auto& t : producers) t.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), std::size_t{kProducers * kEach + 1});
  std::vector<std::uint64_t> next(kProducers, 0);
  for (std::size_t i = 0; i + 1 < calls.size(); ++i) {
    const int p = calls[i].pe;
    ASSERT_GE(p, 0);
    ASSERT_LT(p, kProducers);
    ASSERT_EQ(calls[i].offset, next[static_cast<std::size_t>(p)]) << "producer " << p;
    ++next[static_cast<std::size_t>(p)];
  }
}

// One proxy thread per process: four rings (four PEs of one process), each with its own
// producer, are served by one thread, every ring's requests in its order; one ring's failure
// leaves the others served; the thread ends with the last ring and a new ring starts another.
TEST(ProxyRing, OneThreadServesEveryRingOfTheProcess) {
  constexpr int kRings = 4, kEach = 3000;
  std::vector<std::unique_ptr<Channel>> rings;
  for (int r = 0; r < kRings; ++r) rings.push_back(std::make_unique<Channel>(4));
  EXPECT_EQ(Proxy::threads_running(), 1);
  rings[3]->transport.fail_atomics = true;
  std::vector<std::thread> producers;
  std::atomic<int> failures{0};
  for (int r = 0; r < kRings; ++r)
    producers.emplace_back([&, r] {
      Channel& ch = *rings[static_cast<std::size_t>(r)];
      if (r == 3) {  // its proxy fails on the atomic, and its producer's wait says so
        std::uint64_t result = 0;
        if (ch.post(dd::proxy_amo(1, 0, 4, 7, 1, 0, &result), true) != ProxyWait::kStopped)
          ++failures;
        return;
      }
      for (int i = 0; i < kEach; ++i)
        if (ch.post(dd::proxy_put_inline(r, static_cast<std::uint64_t>(i), 0, 8), false) !=
            ProxyWait::kOk)
          ++failures;
      if (ch.post(dd::proxy_quiet(), true) != ProxyWait::kOk) ++failures;
    });
  for (auto& t : producers) t.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_NE(rings[3]->proxy->failure().find("PE 1 (host 'h1') is gone"), std::string::npos);
  for (int r = 0; r < 3; ++r) {
    const auto calls = rings[static_cast<std::size_t>(r)]->transport.calls();
    ASSERT_EQ(calls.size(), std::size_t{kEach + 1}) << "ring " << r;
    for (int i = 0; i < kEach; ++i) {
      ASSERT_EQ(calls[static_cast<std::size_t>(i)].pe, r);
      ASSERT_EQ(calls[static_cast<std::size_t>(i)].offset, static_cast<std::uint64_t>(i));
    }
  }
  EXPECT_EQ(Proxy::threads_running(), 1);
  rings.clear();  // stops every ring
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Proxy::threads_running() != 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(Proxy::threads_running(), 0);
  Channel again(4);  // a new ring after the thread ended
  EXPECT_EQ(Proxy::threads_running(), 1);
  EXPECT_EQ(again.post(dd::proxy_quiet(), true), ProxyWait::kOk);
}

// fork() while the proxy thread runs: the child has no such thread, and must start its own for
// its rings (a program that forks PEs after running some as threads, as the test runner does).
// Before, the child saw the parent's thread marked running and started none: its first quiet
// waited out its timeout. The child reports through its exit status.
TEST(ProxyRing, AForkedChildStartsItsOwnProxyThread) {
#if defined(__SANITIZE_THREAD__)
  // Its runtime stops a child that starts a thread after a fork of several threads
  // (die_after_fork): what this test does. CI's main (AddressSanitizer) build runs it.
  GTEST_SKIP() << "ThreadSanitizer does not support threads started after a multi-threaded fork";
#endif
  Channel parent(4);
  ASSERT_EQ(Proxy::threads_running(), 1);
  ASSERT_EQ(parent.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int status = 0;
    Channel mine(4);
    if (mine.post(dd::proxy_put_inline(1, 8, 0, 8), false) != ProxyWait::kOk) status |= 1;
    if (mine.post(dd::proxy_quiet(), true, 5'000'000'000ull) != ProxyWait::kOk) status |= 2;
    if (mine.transport.calls().size() != 2) status |= 4;
    // Out before `mine` stops: with no thread serving it, its stop would wait for ever.
    std::_Exit(status);
  }
  int status = -1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  pid_t got = 0;
  while ((got = waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (got == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the child did not end within 30 s";
  }
  ASSERT_EQ(got, child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: post failed, 2: the quiet was never served, 4: the "
                                       "transport saw the wrong calls";
  EXPECT_EQ(parent.post(dd::proxy_quiet(), true), ProxyWait::kOk);  // the parent's still served
}

// A stalled proxy: producers fill the ring and then wait for space instead of writing over
// requests the proxy has not taken; released, the proxy takes every request in order.
TEST(ProxyRing, AFullRingMakesProducersWait) {
  Channel ch(4);  // 16 entries: four 4-entry requests fill it
  ch.proxy->stall_for_test(true);
  for (std::uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(ch.post(dd::proxy_put_inline(1, i, i, 8), false), ProxyWait::kOk);
  const std::vector<std::uint64_t> before(ch.memory.ring().slots, ch.memory.ring().slots + 16);
  std::atomic<bool> posted{false};
  std::thread late([&] {
    EXPECT_EQ(ch.post(dd::proxy_put_inline(1, 4, 4, 8), false), ProxyWait::kOk);
    posted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(posted.load()) << "a producer wrote into a full ring";
  EXPECT_EQ(std::vector<std::uint64_t>(ch.memory.ring().slots, ch.memory.ring().slots + 16),
            before);
  EXPECT_TRUE(ch.transport.calls().empty());
  ch.proxy->stall_for_test(false);
  late.join();
  EXPECT_TRUE(posted.load());
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), 6u);
  for (std::uint64_t i = 0; i < 5; ++i) EXPECT_EQ(calls[i].offset, i);
}

// Fetches whose results land in the ring's result words (as a GPU thread's do) on a ring of 16
// entries, from 8 threads, each of which stalls up to 300 us before it takes its result, while
// the others keep the ring turning: every result is the one its request asked for, since the
// proxy holds `done` before a fetch until its result is taken (proxy_take_result). Without the
// hold, a request a lap later overwrites a stalled thread's result words, and its take times out.
TEST(ProxyRing, FetchedResultsSurviveProducersThatStall) {
  Channel ch(4);
  const device::ProxyRing& ring = ch.memory.ring();
  constexpr int kThreads = 8, kFetches = 150;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      std::mt19937_64 rng(std::random_device{}() + static_cast<unsigned>(t));
      for (int i = 0; i < kFetches; ++i) {
        const std::uint64_t offset = 8 * static_cast<std::uint64_t>(t * kFetches + i);
        const std::uint64_t v = rng();
        dd::ProxyRequest r = dd::proxy_amo(1, offset, static_cast<unsigned>(AmoOp::kFetchAdd),
                                           static_cast<unsigned>(DataType::kUint64), v, 0, nullptr);
        std::uint64_t pos = 0, done = 0, got = 0;
        if (dd::proxy_reserve(ring, r.n, 2'000'000'000ull, &pos, &done) != ProxyWait::kOk) {
          ++failed;
          return;
        }
        r.e[6] = reinterpret_cast<std::uint64_t>(dd::proxy_result_word(ring, pos));
        dd::proxy_write(ring, pos, r.e, r.n);
        if (rng() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
        if (dd::proxy_take_result(ring, pos, 2'000'000'000ull, &got, &done) != ProxyWait::kOk) {
          ++failed;
          return;
        }
        if (got != RecordingTransport::amo_result(1, offset, v)) ++wrong;
      }
    });
  }
  for (auto& p : producers) p.join();
  EXPECT_EQ(failed.load(), 0) << "a producer's result never came (overwritten a lap later?)";
  EXPECT_EQ(wrong.load(), 0) << "a producer took another request's result";
  EXPECT_EQ(ch.transport.calls().size(), static_cast<std::size_t>(kThreads * kFetches));
}

// Entries that become visible out of order, as a GPU's stores over PCIe can: two requests
// reserved in order, the second written first, then the first's head entry alone, then its
// other entries back to front. The proxy takes nothing until the first is whole, then both, in
// ring order.
TEST(ProxyRing, EntriesWrittenOutOfOrderAreTakenInRingOrder) {
  Channel ch(6);
  const device::ProxyRing& r = ch.memory.ring();
  std::uint64_t a = 0, b = 0, done = 0;
  const dd::ProxyRequest ra = dd::proxy_put_inline(1, 10, 0xa, 8);
  const dd::ProxyRequest rb = dd::proxy_put_inline(1, 11, 0xb, 8);
  ASSERT_EQ(dd::proxy_reserve(r, ra.n, 1000000000ull, &a, &done), ProxyWait::kOk);
  ASSERT_EQ(dd::proxy_reserve(r, rb.n, 1000000000ull, &b, &done), ProxyWait::kOk);
  ASSERT_EQ(b, a + ra.n);
  dd::proxy_write(r, b, rb.e, rb.n);
  dd::proxy_write(r, a, ra.e, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(ch.transport.calls().empty()) << "the proxy took a request before it was whole";
  for (unsigned i = ra.n; i-- > 1;) dd::proxy_write(r, a + i, ra.e + i, 1);
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].offset, 10u);
  EXPECT_EQ(calls[1].offset, 11u);
}

// quiet is acknowledged after every request before it reached the transport, and after the
// transport's own quiet returned: never early, though the proxy writes `done` in batches.
TEST(ProxyRing, QuietWaitsForEverythingBeforeIt) {
  Channel ch(8);
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(ch.post(dd::proxy_put_inline(1, rng() >> 4, rng(), 4), false), ProxyWait::kOk);
    ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
    const auto calls = ch.transport.calls();
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.back().kind, Call::kQuiet) << "quiet acknowledged before it ran";
  }
}

// fence: the transport's fence runs between the requests posted before and after it.
TEST(ProxyRing, FenceSitsWherePosted) {
  Channel ch(6);
  for (std::uint64_t i = 0; i < 3; ++i)
    ASSERT_EQ(ch.post(dd::proxy_put_inline(1, i, 0, 8), false), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_fence(), false), ProxyWait::kOk);
  for (std::uint64_t i = 3; i < 6; ++i)
    ASSERT_EQ(ch.post(dd::proxy_put_inline(1, i, 0, 8), false), ProxyWait::kOk);
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  const auto calls = ch.transport.calls();
  ASSERT_EQ(calls.size(), 8u);
  for (std::size_t i = 0; i < 7; ++i)
    EXPECT_EQ(calls[i].kind, i == 3 ? Call::kFence : Call::kPut) << "call " << i;
}

// `done` is written in batches, not once per request: requests that nobody waits on are
// announced when the proxy runs dry or every quarter ring.
TEST(ProxyRing, DoneIsWrittenInBatches) {
  Channel ch(10);  // 1024 entries
  ch.proxy->stall_for_test(true);
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(ch.post(dd::proxy_put_inline(1, static_cast<std::uint64_t>(i), 0, 8), false),
              ProxyWait::kOk);
  ch.proxy->stall_for_test(false);
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  EXPECT_EQ(ch.proxy->requests(), 201u);
  // 800 entries: a write at each quarter ring (256 entries) and one for the quiet.
  EXPECT_LE(ch.proxy->done_writes(), 5u);
}

TEST(ProxyRing, AStoppedProxyEndsWaitsAtOnce) {
  Channel ch(4);
  ch.proxy->stop();
  EXPECT_EQ(dd::atomic_load(ch.memory.ring().state), device::kProxyStopped);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kStopped);
  // A full ring's wait for space ends the same way.
  for (int i = 0; i < 4; ++i) (void)ch.post(dd::proxy_put_inline(1, 0, 0, 8), false);
  EXPECT_EQ(ch.post(dd::proxy_put_inline(1, 0, 0, 8), false), ProxyWait::kStopped);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

// A proxy whose transport call fails (a lost PE) stops taking requests and says why.
TEST(ProxyRing, AFailedProxySaysWhy) {
  Channel ch(6);
  ch.transport.fail_atomics = true;
  std::uint64_t result = 0;
  EXPECT_EQ(ch.post(dd::proxy_amo(1, 0, 4, 7, 1, 0, &result), true), ProxyWait::kStopped);
  EXPECT_EQ(dd::atomic_load(ch.memory.ring().state), device::kProxyFailed);
  EXPECT_NE(ch.proxy->failure().find("PE 1 (host 'h1') is gone"), std::string::npos)
      << ch.proxy->failure();
}

// A proxy stuck in a transport call is named in the reports of blocked threads that timeouts
// print (core/blocked.hpp), with the request's op and target.
TEST(ProxyRing, AProxyStuckInItsTransportIsNamed) {
  Channel ch(6);
  ch.transport.block_puts = true;
  ASSERT_EQ(ch.post(dd::proxy_put_inline(1, 64, 7, 8), false), ProxyWait::kOk);
  const std::string expected = "the proxy thread has been in a ring request's put (PE 1) for";
  std::string report;
  for (int i = 0; i < 2000 && report.find(expected) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    report = blocked_threads(20'000'000);
  }
  EXPECT_NE(report.find(expected), std::string::npos) << report;
  ch.transport.block_puts = false;
  ASSERT_EQ(ch.post(dd::proxy_quiet(), true), ProxyWait::kOk);
  EXPECT_EQ(blocked_threads(0).find("the proxy thread"), std::string::npos) << blocked_threads(0);
}

// A stalled proxy (running, but taking nothing) ends a producer's wait at its bound.
TEST(ProxyRing, AStalledProxyTimesOut) {
  Channel ch(4);
  ch.proxy->stall_for_test(true);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ch.post(dd::proxy_quiet(), true, 300'000'000), ProxyWait::kTimeout);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(3));
  ch.proxy->stall_for_test(false);
}

// A wait ends with a timeout only when nothing moved for its bound: 127 requests queued ahead of
// a quiet, through a transport that takes 10 ms a put, are a wait of 1.3 s and more, twice the
// 600 ms bound, while `done` moves every 32 requests (a quarter ring, about 320 ms apart: under
// the bound). Timed from its start, that wait timed out at 600 ms.
TEST(ProxyRing, AWaitWhileTheProxyMovesDoesNotTimeOut) {
  Channel ch(9);  // 512 entries: 128 4-entry puts, announced a quarter ring (32 puts) at a time
  ch.transport.put_ms = 10;
  const std::uint64_t bound = 600'000'000;
  ch.proxy->stall_for_test(true);
  for (std::uint64_t i = 0; i < 127; ++i)
    ASSERT_EQ(ch.post(dd::proxy_put_inline(1, i, i, 8), false, bound), ProxyWait::kOk);
  const auto t0 = std::chrono::steady_clock::now();
  ch.proxy->stall_for_test(false);
  EXPECT_EQ(ch.post(dd::proxy_quiet(), true, bound), ProxyWait::kOk);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GT(waited, std::chrono::nanoseconds(bound)) << "the wait was too short to show anything";
  ch.transport.put_ms = 0;
  EXPECT_EQ(ch.transport.calls().size(), 128u);
}

}  // namespace
}  // namespace symmetra::detail

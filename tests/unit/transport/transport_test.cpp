// The transport interface, without a Runtime, on every transport this build has (loopback, and
// UCX over TCP where it is built): PEs as threads on one host heap, each holding only a
// detail::Transport. Puts of every size and alignment land whole
// and leave their neighbours alone, every atomic returns and leaves what a reference says,
// put_signal delivers the data before the signal, heap growth extends what a PE registered (an
// access across the seam of two registrations too), and an access outside it ends the job
// naming the PE and the offset. UcxAccess registers its first range with a HeapAccess whose
// stores land later, as a GPU heap's copies do (DeferredAccess), and the grown one as host
// memory, so puts across that seam take both.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "bootstrap/thread_bootstrap.hpp"
#include "core/word_copy.hpp"
#include "heap/symmetric_heap.hpp"
#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/amo_impl.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {
namespace {

constexpr int kPes = 3;
constexpr std::uint64_t kRegistered = 1 << 20;  // of a 4 MiB slot
constexpr std::uint64_t kData = 64 << 10;       // past the header

// A transport of this build, and for UCX whether gets and atomics are served by the target
// (TransportParams::served), or every access to a PE's memory goes through a HeapAccess, as a
// GPU heap's does: here host copies and atomics that count their calls.
struct Variant {
  TransportKind kind;
  bool served;
  bool access = false;
};

// Calls of each HeapAccess function: store, load, amo, flush.
std::atomic<long> g_access_calls[4];

// Host copies and atomics, for what is only registered.
const HeapAccess kPlainAccess{
    nullptr,
    [](void*, std::byte* dst, const std::byte* src, std::size_t bytes) {
      store_words(dst, src, bytes);
    },
    [](void*, std::byte* dst, const std::byte* src, std::size_t bytes) {
      load_words(dst, src, bytes);
    },
    [](void*, std::byte* w, AmoOp op, DataType type, std::uint64_t value, std::uint64_t cond) {
      return device::detail::amo_on_bits(w, op, type, value, cond);
    }};

// A GPU heap's way on host memory: each store lands later, in order, by a thread of its own (a
// copy engine) after kLag; a load, an atomic or a flush first waits for every store before it.
// So a transport that relied on a store being complete on return (a signal in host memory set
// after it, a quiet that never flushed) reads stale bytes here, as it would on a GPU.
class DeferredAccess {
 public:
  DeferredAccess() : lander_([this] { land(); }) {}
  ~DeferredAccess() {
    {
      const std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    lander_.join();
  }
  const HeapAccess* access() const { return &access_; }

 private:
  static constexpr auto kLag = std::chrono::microseconds(50);
  struct Store {
    std::byte* dst;
    std::vector<std::byte> bytes;
  };
  void land() {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      l.unlock();
      std::this_thread::sleep_for(kLag);
      l.lock();
      const Store& s = queue_.front();
      store_words(s.dst, s.bytes.data(), s.bytes.size());
      queue_.pop_front();
      cv_.notify_all();
    }
  }
  void drain() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return queue_.empty(); });
  }
  static DeferredAccess& of(void* arg) { return *static_cast<DeferredAccess*>(arg); }
  const HeapAccess access_{this,
                           [](void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) {
                             ++g_access_calls[0];
                             DeferredAccess& d = of(arg);
                             {
                               const std::lock_guard<std::mutex> l(d.mu_);
                               d.queue_.push_back({dst, std::vector<std::byte>(src, src + bytes)});
                             }
                             d.cv_.notify_all();
                           },
                           [](void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) {
                             ++g_access_calls[1];
                             of(arg).drain();
                             load_words(dst, src, bytes);
                           },
                           [](void* arg, std::byte* w, AmoOp op, DataType type, std::uint64_t value,
                              std::uint64_t cond) {
                             ++g_access_calls[2];
                             of(arg).drain();
                             return device::detail::amo_on_bits(w, op, type, value, cond);
                           },
                           [](void* arg) {
                             ++g_access_calls[3];
                             of(arg).drain();
                           }};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Store> queue_;
  bool stop_ = false;
  std::thread lander_;  // last: starts once the rest is made
};

// Runs of a HeapAccess variant: what the peers delivered went through it (a transport that
// stored directly would pass every other check of these tests). `which`: store, load, amo,
// flush.
class AccessUsed {
 public:
  AccessUsed(bool on, std::initializer_list<int> which) : on_(on), which_(which) {
    for (int w : which_) before_.push_back(g_access_calls[w].load());
  }
  ~AccessUsed() {
    if (!on_) return;
    for (std::size_t i = 0; i < which_.size(); ++i)
      EXPECT_GT(g_access_calls[which_[i]].load(), before_[i])
          << "HeapAccess function " << which_[i] << " (store, load, amo, flush) was never called";
  }

 private:
  bool on_;
  std::vector<int> which_;
  std::vector<long> before_;
};

// One PE: its bootstrap, host heap, control context (for error messages) and transport.
struct Pe {
  ThreadBootstrap bs;
  std::unique_ptr<SymmetricHeap> heap;
  device::Context ctl{};
  std::unique_ptr<DeferredAccess> deferred;  // outlives the transport, which calls it
  std::unique_ptr<Transport> transport;
  const HeapAccess* access = nullptr;  // the first range's

  Pe(std::shared_ptr<ThreadJob> job, int rank, Variant v) : bs(std::move(job), rank) {
    heap = SymmetricHeap::create(bs, 4 << 20, 2 << 20).value_or_throw();
    ctl.my_pe = rank;
    ctl.n_pes = kPes;
    TransportParams p;
    p.bootstrap = &bs;
    p.heap = heap.get();
    p.remote.assign(kPes, true);
    p.remote[static_cast<std::size_t>(rank)] = false;
    p.forced_hosts = true;  // UCX: TCP between the threads, as between forced hosts
    ctl.timeout_ns = 30'000'000'000ull;
    p.served = v.served || v.access;
    if (v.access) {
      deferred = std::make_unique<DeferredAccess>();
      access = deferred->access();
    }
    transport = make_transport(v.kind, p).value_or_throw();
    transport->register_memory(heap->base(), 0, kRegistered, access).or_throw();
  }
  std::byte* at(std::uint64_t offset) const { return heap->base() + offset; }
};

template <class Fn>
void run_pes(Variant kind, Fn fn) {
  auto job = std::make_shared<ThreadJob>(kPes, 30000);
  std::vector<std::thread> threads;
  for (int r = 0; r < kPes; ++r)
    threads.emplace_back([&, r] {
      Pe pe(job, r, kind);
      fn(pe);
      pe.transport->quiet(pe.ctl);
      pe.bs.barrier().or_throw();  // nobody unmaps while another still delivers
    });
  for (auto& t : threads) t.join();
}

// Every transport of this build: the tests run once for each.
class TransportTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    if (!transport_built(GetParam().kind)) GTEST_SKIP() << "this build has no UCX transport";
  }
  // Runs fn(pe) on kPes threads; gtest failures inside are reported by the thread.
  template <class Fn>
  void on_pes(Fn fn) {
    run_pes(GetParam(), fn);
  }
};

std::uint8_t pattern(std::uint64_t seed, int pe, std::size_t i) {
  return static_cast<std::uint8_t>((seed * 31 + static_cast<std::uint64_t>(pe) * 131 + i * 7) ^
                                   (i >> 8));
}

TEST_P(TransportTest, PutsAndGetsOfEverySizeAndAlignment) {
  const AccessUsed used(GetParam().access, {0, 1});
  const std::uint64_t seed = std::random_device{}();
  on_pes([&](Pe& pe) {
    const int me = pe.bs.rank(), next = (me + 1) % kPes, prev = (me + kPes - 1) % kPes;
    std::memset(pe.at(kData), 0xEE, 16384);  // 96 slots of 128 bytes
    pe.bs.barrier().or_throw();
    std::vector<std::uint8_t> src(4096);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(seed, me, i);
    // Sizes around word boundaries at every offset mod 8, each into its own 64-byte-spaced slot.
    std::size_t slot = 0;
    for (std::size_t bytes : {1u, 2u, 3u, 4u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 100u})
      for (std::size_t mis = 0; mis < 8; ++mis, ++slot)
        pe.transport->put(pe.ctl, next, kData + slot * 128 + 8 + mis, src.data() + mis, bytes);
    pe.transport->quiet(pe.ctl);
    pe.bs.barrier().or_throw();
    slot = 0;
    for (std::size_t bytes : {1u, 2u, 3u, 4u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 100u})
      for (std::size_t mis = 0; mis < 8; ++mis, ++slot) {
        const auto* b = reinterpret_cast<const std::uint8_t*>(pe.at(kData + slot * 128));
        for (std::size_t i = 0; i < 128; ++i) {
          const bool in = i >= 8 + mis && i < 8 + mis + bytes;
          ASSERT_EQ(b[i], in ? pattern(seed, prev, i - 8) : 0xEE)
              << bytes << " bytes at +" << mis << ", byte " << i;
        }
      }
    // get reads the next PE's slot back as it is.
    std::vector<std::uint8_t> back(1000);
    pe.transport->get(pe.ctl, next, back.data(), kData + 8 + 3, back.size());
    std::vector<std::uint8_t> want(back.size());
    std::memcpy(want.data(), pe.at(kData + 8 + 3), want.size());  // same layout on every PE
    pe.bs.barrier().or_throw();
    for (std::size_t i = 0; i < back.size(); ++i) {
      const auto* theirs = reinterpret_cast<const std::uint8_t*>(
          pe.heap->base() + (next - me) * static_cast<std::int64_t>(pe.heap->stride()));
      ASSERT_EQ(back[i], theirs[kData + 8 + 3 + i]) << "byte " << i;
    }
  });
}

// quiet completes puts at their target: after it and a barrier of another channel (the
// bootstrap), the target finds every byte. A large put, so that a quiet which only waited for
// the data to leave this PE (UCX's flush of active messages) loses the race.
TEST_P(TransportTest, QuietCompletesPutsAtTheTarget) {
  const std::uint64_t seed = std::random_device{}();
  constexpr std::size_t kBytes = 768 << 10;
  on_pes([&](Pe& pe) {
    const int me = pe.bs.rank(), next = (me + 1) % kPes, prev = (me + kPes - 1) % kPes;
    for (int round = 0; round < 3; ++round) {
      std::vector<std::uint8_t> src(kBytes);
      for (std::size_t i = 0; i < kBytes; ++i) src[i] = pattern(seed + round, me, i);
      pe.bs.barrier().or_throw();  // the target checked the last round
      pe.transport->put(pe.ctl, next, kData, src.data(), kBytes);
      pe.transport->quiet(pe.ctl);
      pe.bs.barrier().or_throw();
      const auto* d = reinterpret_cast<const std::uint8_t*>(pe.at(kData));
      for (std::size_t i = 0; i < kBytes; ++i)
        ASSERT_EQ(d[i], pattern(seed + round, prev, i)) << "round " << round << " byte " << i;
    }
  });
}

template <class T>
void every_atomic(Pe& pe, std::uint64_t offset, std::uint64_t seed) {
  const int me = pe.bs.rank(), next = (me + 1) % kPes;
  auto bits = [](T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  };
  auto val = [](std::uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
  };
  const DataType type = data_type_of<T>();
  T* mine = reinterpret_cast<T*>(pe.at(offset));
  const T start = static_cast<T>(10 + seed % 50 + static_cast<std::uint64_t>(me));
  *mine = start;
  pe.bs.barrier().or_throw();
  // Only this PE's predecessor acts on `mine`, so the sequence of values is known.
  const T theirs = static_cast<T>(10 + seed % 50 + static_cast<std::uint64_t>(next));
  T expect = theirs;
  auto run = [&](AmoOp op, T value, T cond, T old_want, T new_want) {
    const T old =
        val(pe.transport->atomic(pe.ctl, next, offset, op, type, bits(value), bits(cond)));
    if (op != AmoOp::kSet) EXPECT_EQ(old, old_want) << "op " << static_cast<int>(op);
    expect = new_want;
    EXPECT_EQ(val(pe.transport->atomic(pe.ctl, next, offset, AmoOp::kFetch, type, 0, 0)), expect)
        << "after op " << static_cast<int>(op);
  };
  run(AmoOp::kFetchAdd, T{5}, T{}, expect, static_cast<T>(expect + T{5}));
  run(AmoOp::kSwap, T{7}, T{}, expect, T{7});
  run(AmoOp::kCompareSwap, T{9}, T{6}, T{7}, T{7});  // cond fails: unchanged
  run(AmoOp::kCompareSwap, T{9}, T{7}, T{7}, T{9});
  run(AmoOp::kSet, T{12}, T{}, T{}, T{12});
  if constexpr (std::is_integral_v<T>) {
    run(AmoOp::kFetchAnd, T{10}, T{}, T{12}, T{8});
    run(AmoOp::kFetchOr, T{3}, T{}, T{8}, T{11});
    run(AmoOp::kFetchXor, T{6}, T{}, T{11}, T{13});
  }
  pe.bs.barrier().or_throw();
  EXPECT_EQ(*mine, expect) << "the predecessor's last value";
}

TEST_P(TransportTest, EveryAtomicOnEveryType) {
  const AccessUsed used(GetParam().access, {2});
  const std::uint64_t seed = std::random_device{}();
  on_pes([&](Pe& pe) {
    every_atomic<std::int32_t>(pe, kData, seed);
    every_atomic<std::uint32_t>(pe, kData + 8, seed);
    every_atomic<std::int64_t>(pe, kData + 16, seed);
    every_atomic<std::uint64_t>(pe, kData + 24, seed);
    every_atomic<float>(pe, kData + 32, seed);
    every_atomic<double>(pe, kData + 40, seed);
    every_atomic<std::int16_t>(pe, kData + 48, seed);
  });
}

// PEs put_signal to the next PE for kRounds rounds, the signal at `sig_offset`: set to the round
// on odd rounds, incremented on even ones, so that it counts the rounds either way. A reader
// that sees the signal must find every byte of the round's data.
void put_signal_rounds(Pe& pe, std::uint64_t seed, std::uint64_t sig_offset) {
  constexpr std::size_t kBytes = 3000;
  constexpr int kRounds = 200;
  const int me = pe.bs.rank(), next = (me + 1) % kPes, prev = (me + kPes - 1) % kPes;
  auto* sig = reinterpret_cast<std::uint64_t*>(pe.at(sig_offset));
  *sig = 0;
  pe.bs.barrier().or_throw();
  std::vector<std::uint8_t> src(kBytes);
  for (int round = 1; round <= kRounds; ++round) {
    for (std::size_t i = 0; i < kBytes; ++i) src[i] = pattern(seed + round, me, i);
    const bool add = round % 2 == 0;
    pe.transport->put_signal(pe.ctl, next, kData + 64, src.data(), kBytes, sig_offset,
                             add ? 1 : static_cast<std::uint64_t>(round),
                             add ? SignalOp::kAdd : SignalOp::kSet);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (AtomicRef<std::uint64_t>(*sig).load(kAcquire) < static_cast<std::uint64_t>(round))
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "round " << round;
    ASSERT_EQ(AtomicRef<std::uint64_t>(*sig).load(kAcquire), static_cast<std::uint64_t>(round));
    const auto* d = reinterpret_cast<const std::uint8_t*>(pe.at(kData + 64));
    for (std::size_t i = 0; i < kBytes; ++i)
      ASSERT_EQ(d[i], pattern(seed + round, prev, i)) << "round " << round << " byte " << i;
    pe.bs.barrier().or_throw();  // the predecessor writes the next round only after this check
  }
}

// The signal arrives after the data, both in the first range (UcxAccess: through its
// HeapAccess, which sets the signal by a store and adds to it by an atomic).
TEST_P(TransportTest, PutSignalDeliversDataFirst) {
  const AccessUsed used(GetParam().access, {0, 2});
  const std::uint64_t seed = std::random_device{}();
  on_pes([&](Pe& pe) { put_signal_rounds(pe, seed, kData); });
}

// The signal in host memory (a second range, registered without a HeapAccess), the data in the
// first: with UcxAccess the data's stores must complete before the host sets the signal.
TEST_P(TransportTest, PutSignalToHostMemoryAfterDataThroughAccess) {
  const AccessUsed used(GetParam().access, {0, 3});
  const std::uint64_t seed = std::random_device{}();
  on_pes([&](Pe& pe) {
    pe.transport->register_memory(pe.at(kRegistered), kRegistered, kRegistered, nullptr).or_throw();
    put_signal_rounds(pe, seed, kRegistered);
  });
}

// Registering a range that continues the last extends it (heap growth); other ranges are new.
TEST_P(TransportTest, GrowthExtendsWhatAPeRegistered) {
  on_pes([&](Pe& pe) {
    const int me = pe.bs.rank(), next = (me + 1) % kPes;
    pe.transport->register_memory(pe.at(kRegistered), kRegistered, kRegistered, nullptr).or_throw();
    const std::uint64_t top = (2 * kRegistered) - 8;  // the new range's last word
    const std::uint64_t v = 0x1234'0000ull + static_cast<std::uint64_t>(me);
    pe.transport->put(pe.ctl, next, top, &v, sizeof(v));
    pe.transport->quiet(pe.ctl);  // complete at the target
    pe.bs.barrier().or_throw();
    EXPECT_EQ(*reinterpret_cast<std::uint64_t*>(pe.at(top)),
              0x1234'0000ull + static_cast<std::uint64_t>((me + kPes - 1) % kPes));
    pe.bs.barrier().or_throw();
    // Across the seam of the two registrations: one put, one get, whole on both sides.
    std::vector<std::uint8_t> src(256), back(256);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(top, me, i);
    pe.transport->put(pe.ctl, next, kRegistered - 100, src.data(), src.size());
    pe.transport->quiet(pe.ctl);
    pe.bs.barrier().or_throw();
    pe.transport->get(pe.ctl, next, back.data(), kRegistered - 100, back.size());
    const int prev = (me + kPes - 1) % kPes;
    for (std::size_t i = 0; i < src.size(); ++i) {
      ASSERT_EQ(reinterpret_cast<const std::uint8_t*>(pe.at(kRegistered - 100))[i],
                pattern(top, prev, i))
          << "byte " << i;
      ASSERT_EQ(back[i], src[i]) << "byte " << i << " read back";
    }
  });
}

// Memory registered with a HeapAccess (a GPU heap) is reached through it alone: the loopback,
// which delivers through the host mapping, and UCX outside served mode refuse it, each saying
// so, on every PE alike (the check comes before the collective exchange, so nobody waits).
TEST_P(TransportTest, MemoryWithAccessNeedsServedMode) {
  const Variant v = GetParam();
  const bool served = v.kind == TransportKind::kUcx && (v.served || v.access);
  on_pes([&](Pe& pe) {
    const Status st =
        pe.transport->register_memory(pe.at(kRegistered), kRegistered, 8, &kPlainAccess);
    if (served) {
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(v.kind == TransportKind::kLoopback ? "cannot reach device memory"
                                                                   : "reached in served mode only"),
              std::string::npos)
        << st.message();
  });
}

using TransportDeathTest = TransportTest;

TEST_P(TransportDeathTest, AccessOutsideRegisteredMemoryEndsTheJob) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string name = GetParam().kind == TransportKind::kUcx ? "ucx" : "loopback";
  EXPECT_DEATH(on_pes([&](Pe& pe) {
                 if (pe.bs.rank() != 0) return;
                 const std::uint64_t v = 1;
                 pe.transport->put(pe.ctl, 1, kRegistered - 4, &v, sizeof(v));  // 4 bytes past
               }),
               "\\[pe 0\\] put: offset 1048572 \\+ 8 bytes of PE 1 is not in memory that PE "
               "registered with the " +
                   name + " transport");
}

std::string kind_name(const ::testing::TestParamInfo<Variant>& info) {
  if (info.param.kind == TransportKind::kLoopback) return "Loopback";
  return info.param.access ? "UcxAccess" : info.param.served ? "UcxServed" : "Ucx";
}
const auto kVariants = ::testing::Values(
    Variant{TransportKind::kLoopback, false}, Variant{TransportKind::kUcx, false},
    Variant{TransportKind::kUcx, true}, Variant{TransportKind::kUcx, false, true});
INSTANTIATE_TEST_SUITE_P(Transports, TransportTest, kVariants, kind_name);
INSTANTIATE_TEST_SUITE_P(Transports, TransportDeathTest, kVariants, kind_name);

}  // namespace
}  // namespace symmetra::detail

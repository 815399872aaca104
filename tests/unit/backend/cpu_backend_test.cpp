// The backend interface on the CPU backend, without a Runtime: two PEs as threads on one host
// heap, each holding only a detail::Backend. Put, get, strided copies and atomics land where
// the interface says; the stream forms and a CUDA backend this build or machine cannot give
// say so, naming the PE.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "bootstrap/thread_bootstrap.hpp"
#include "heap/symmetric_heap.hpp"
#include "symmetra/device/impl/heap_header.hpp"

namespace symmetra::detail {
namespace {

constexpr int kPes = 2;
constexpr std::size_t kWords = 4096;

// One PE: its bootstrap, host heap, control context and backend.
struct Pe {
  ThreadBootstrap bs;
  std::unique_ptr<SymmetricHeap> heap;
  std::int32_t index[kPes] = {0, 1};
  device::Context ctx{};
  std::unique_ptr<Backend> backend;

  Pe(std::shared_ptr<ThreadJob> job, int rank) : bs(std::move(job), rank) {
    heap = SymmetricHeap::create(bs, 1 << 20, 1 << 20).value_or_throw();
    ctx.heap_base = heap->base();
    ctx.stride = heap->stride();
    ctx.heap_bytes = heap->size();
    ctx.pe_index = index;
    ctx.my_pe = rank;
    ctx.n_pes = kPes;
    ctx.my_index = heap->index();
    ctx.timeout_ns = 60'000'000'000ull;
    ctx.flags = device::Context::kIdentityIndex;
    BackendParams p;
    p.host_heap = heap.get();
    p.control = &ctx;
    backend = make_backend(BackendKind::kCpu, bs, p).value_or_throw();
  }
  // Symmetric words past the heap's header.
  std::uint64_t* words() const {
    return reinterpret_cast<std::uint64_t*>(ctx.heap_base + device::detail::header_bytes(kPes));
  }
};

template <class Fn>
void on_pes(Fn fn) {
  auto job = std::make_shared<ThreadJob>(kPes, 60000);
  std::vector<std::thread> threads;
  for (int r = 0; r < kPes; ++r) threads.emplace_back([&, r] { fn(job, r); });
  for (auto& t : threads) t.join();
}

TEST(CpuBackend, PutGetStridedAndAtomicsThroughTheInterface) {
  const std::uint64_t seed = std::random_device{}();
  std::vector<std::string> errors(kPes);
  on_pes([&](std::shared_ptr<ThreadJob> job, int r) {
    Pe pe(job, r);
    Backend& b = *pe.backend;
    const int peer = 1 - r;
    auto value = [&](int from, std::size_t i) { return seed * 31 + from * 1000003ull + i; };
    EXPECT_TRUE(b.host_memory());
    EXPECT_EQ(b.heap_size(), pe.heap->size());
    std::uint64_t* w = pe.words();
    // put: words [0, kWords) of the peer get this PE's values.
    std::vector<std::uint64_t> mine(kWords), got(kWords);
    for (std::size_t i = 0; i < kWords; ++i) mine[i] = value(r, i);
    b.put(pe.ctx, "put", w, mine.data(), kWords * 8, peer);
    ASSERT_TRUE(pe.bs.barrier().ok());
    for (std::size_t i = 0; i < kWords; ++i)
      if (w[i] != value(peer, i)) errors[r] += "put " + std::to_string(i) + "; ";
    // get: the peer's words back, which hold this PE's values.
    b.get(pe.ctx, "get", got.data(), w, kWords * 8, peer);
    for (std::size_t i = 0; i < kWords; ++i)
      if (got[i] != value(r, i)) errors[r] += "get " + std::to_string(i) + "; ";
    ASSERT_TRUE(pe.bs.barrier().ok());
    // strided put: every third word of the peer's second block from consecutive words.
    std::uint64_t* block = w + kWords;
    b.strided(pe.ctx, true, block, mine.data(), 8, 3, 1, kWords / 3, peer);
    ASSERT_TRUE(pe.bs.barrier().ok());
    for (std::size_t i = 0; i < kWords / 3; ++i)
      if (block[3 * i] != value(peer, i)) errors[r] += "iput " + std::to_string(i) + "; ";
    // strided get: the peer's strided words back into consecutive ones.
    std::vector<std::uint64_t> back(kWords / 3);
    b.strided(pe.ctx, false, back.data(), block, 8, 1, 3, kWords / 3, peer);
    for (std::size_t i = 0; i < kWords / 3; ++i)
      if (back[i] != value(r, i)) errors[r] += "iget " + std::to_string(i) + "; ";
    ASSERT_TRUE(pe.bs.barrier().ok());
    // atomics: both PEs add to PE 0's counter; compare-swap and fetch on 32-bit and float words.
    std::uint64_t* counter = w + 3 * kWords;
    for (int k = 0; k < 100; ++k)
      (void)b.amo(pe.ctx, AmoOp::kFetchAdd, DataType::kUint64, counter, r + 1, 0, 0);
    b.quiet(pe.ctx);
    ASSERT_TRUE(pe.bs.barrier().ok());
    const std::uint64_t total = b.amo(pe.ctx, AmoOp::kFetch, DataType::kUint64, counter, 0, 0, 0);
    if (total != 100 * (1 + 2)) errors[r] += "fetch_add total " + std::to_string(total) + "; ";
    auto* f = reinterpret_cast<float*>(w + 4 * kWords) + r;  // one float per PE, on the peer
    std::uint64_t bits = 0;
    const float x = static_cast<float>(seed % 1000) + 0.25f;
    std::memcpy(&bits, &x, sizeof(x));
    (void)b.amo(pe.ctx, AmoOp::kSet, DataType::kFloat, f, bits, 0, peer);
    const std::uint64_t old = b.amo(pe.ctx, AmoOp::kSwap, DataType::kFloat, f, 0, 0, peer);
    float back_x;
    std::memcpy(&back_x, &old, sizeof(back_x));
    if (back_x != x) errors[r] += "float swap; ";
    auto* i32 = reinterpret_cast<std::int32_t*>(w + 5 * kWords) + r;
    (void)b.amo(pe.ctx, AmoOp::kSet, DataType::kInt32, i32, static_cast<std::uint32_t>(-7), 0,
                peer);
    const std::uint64_t cas = b.amo(pe.ctx, AmoOp::kCompareSwap, DataType::kInt32, i32, 9,
                                    static_cast<std::uint32_t>(-7), peer);
    std::int32_t was;
    std::memcpy(&was, &cas, sizeof(was));
    if (was != -7) errors[r] += "int32 compare_swap; ";
    ASSERT_TRUE(pe.bs.barrier().ok());  // the peer's compare-swap into this PE's word is done
    if (*(reinterpret_cast<std::int32_t*>(w + 5 * kWords) + peer) != 9)
      errors[r] += "int32 compare_swap stored; ";
    ASSERT_TRUE(pe.bs.barrier().ok());
  });
  for (int r = 0; r < kPes; ++r) EXPECT_EQ(errors[r], "") << "PE " << r;
}

TEST(CpuBackend, StreamFormsSayTheyNeedCuda) {
  on_pes([&](std::shared_ptr<ThreadJob> job, int r) {
    Pe pe(job, r);
    std::uint64_t* w = pe.words();
    try {
      pe.backend->put_on_stream(pe.ctx, "putmem_on_stream", w, w, 8, 0, nullptr);
      ADD_FAILURE() << "putmem_on_stream returned on the CPU backend";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("[pe " + std::to_string(r) +
                                           "] putmem_on_stream "
                                           "needs the CUDA backend"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(pe.backend->quiet_on_stream(pe.ctx, nullptr), Error);
    coll::Call call;
    call.kind = coll::Kind::kAllreduce;
    EXPECT_THROW(pe.backend->collective(pe.ctx, call, 1, nullptr), Error);
    ASSERT_TRUE(pe.bs.barrier().ok());
  });
}

// The factory's answer for CUDA: in a build without it, what to do; in one with it, on a
// machine without a GPU (CI), the driver's or device's error; either names the PE.
TEST(Backend, CudaThatCannotStartIsAClearError) {
  auto job = std::make_shared<ThreadJob>(1, 60000);
  ThreadBootstrap bs(job, 0);
  BackendParams p;
  p.stride = 1 << 20;
  p.initial = 1 << 20;
  auto made = make_backend(BackendKind::kCuda, bs, p);
#if SYMMETRA_HAVE_CUDA
  if (made.ok()) GTEST_SKIP() << "a GPU is here: the CUDA backend started";
  EXPECT_NE(made.status().message().find("[pe 0]"), std::string::npos) << made.status().message();
#else
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("[pe 0] the CUDA backend was asked for"),
            std::string::npos)
      << made.status().message();
  EXPECT_NE(made.status().message().find("no CUDA support"), std::string::npos);
#endif
}

}  // namespace
}  // namespace symmetra::detail

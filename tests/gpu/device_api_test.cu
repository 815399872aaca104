// The device API inside kernels on the GPU backend: thread, warp and block groups, atomics at
// system scope, put_signal with waits, and barriers between PEs inside kernels. PEs are threads
// of one process sharing the GPU(s); every output element is checked on the host.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gpu_support.cuh"
#include "support/pe_runner.hpp"
#include "symmetra/collective_launch.cuh"
#include "symmetra/device.hpp"

namespace symmetra::testing {
namespace {

namespace sd = symmetra::device;

class DeviceApiTest : public ::testing::TestWithParam<PeConfig> {};

template <class Group>
__global__ void put_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                           size_t bytes, int to) {
  sd::putmem(Group{}, ctx, dst, src, bytes, to);
  sd::quiet(ctx);
}

template <class Group>
__global__ void get_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                           size_t bytes, int from) {
  sd::getmem(Group{}, ctx, dst, src, bytes, from);
}

// put and get with each group kind over sizes that exercise the vector and the tail paths.
TEST_P(DeviceApiTest, PutGetEveryGroupAndSize) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    PeStream s;
    const size_t kMax = (1 << 20) + 7;
    auto* sym = rt.allocate_array<unsigned char>(kMax);
    DeviceArray<unsigned char> src(kMax), got(kMax);
    DeviceArray<unsigned long long> bad;
    std::uint64_t round = 0;
    for (int group = 0; group < 3; ++group) {
      for (size_t bytes : {size_t{1}, size_t{15}, size_t{16}, size_t{4099}, kMax}) {
        ++round;
        fill_kernel<<<64, 256, 0, s>>>(src, bytes, run_seed(), me, round);
        CK(cudaMemsetAsync(sym, 0xEE, kMax, s));  // poison
        CK(cudaMemsetAsync(bad, 0, sizeof(*bad), s));
        CK(cudaStreamSynchronize(s));
        rt.barrier_all();
        const sd::Context ctx = rt.device_context();
        if (group == 0) put_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, sym, src, bytes, to);
        if (group == 1) put_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, sym, src, bytes, to);
        if (group == 2) put_kernel<sd::BlockGroup><<<1, 512, 0, s>>>(ctx, sym, src, bytes, to);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        rt.barrier_all();
        count_mismatch<<<64, 256, 0, s>>>(sym, bytes, run_seed(), from, round, bad);
        // get the next PE's block back and check it against what that PE received (from me)
        if (group == 0) get_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, got, sym, bytes, to);
        if (group == 1) get_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, got, sym, bytes, to);
        if (group == 2) get_kernel<sd::BlockGroup><<<1, 512, 0, s>>>(ctx, got, sym, bytes, to);
        count_mismatch<<<64, 256, 0, s>>>(got, bytes, run_seed(), me, round, bad);
        unsigned long long h_bad = 1;
        CK(cudaMemcpyAsync(&h_bad, bad, sizeof(h_bad), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        EXPECT_EQ(h_bad, 0u) << "group " << group << " bytes " << bytes << " PE " << me;
        // The byte past the end stays poisoned.
        if (bytes < kMax) {
          unsigned char past = 0;
          CK(cudaMemcpy(&past, sym + bytes, 1, cudaMemcpyDeviceToHost));
          EXPECT_EQ(past, 0xEE);
        }
        rt.barrier_all();
      }
    }
    rt.free(sym);
  });
}

__global__ void atomic_storm(sd::Context ctx, unsigned long long* counters, int iters) {
  const int n = ctx.n_pes;
  for (int i = 0; i < iters; ++i) {
    const int pe = (blockIdx.x + threadIdx.x + i) % n;
    (void)sd::atomic_fetch_add(ctx, &counters[0], 1ull, pe);
    sd::atomic_add(ctx, &counters[1], 2ull, pe);
    sd::atomic_inc(ctx, &counters[2], pe);
    sd::atomic_xor(ctx, &counters[3], 1ull << (threadIdx.x % 64), pe);
  }
}

// Tickets from PE 0's counter by compare_swap loops: every ticket exactly once.
__global__ void claim_tickets(sd::Context ctx, unsigned long long* next,
                              unsigned long long* claimed, int per) {
  const int slot = threadIdx.x;
  for (int k = 0; k < per; ++k) {
    for (;;) {
      const unsigned long long seen = sd::atomic_fetch(ctx, next, 0);
      if (sd::atomic_compare_swap(ctx, next, seen, seen + 1, 0) == seen) {
        sd::p(ctx, &claimed[(ctx.my_pe * blockDim.x + slot) * per + k], seen, 0);
        break;
      }
    }
  }
  sd::quiet(ctx);
}

TEST_P(DeviceApiTest, AtomicsFromEveryPeAreExact) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    PeStream s;
    constexpr int kBlocks = 16, kThreads = 128, kPer = 4;
    const int iters = 8 * n;  // every thread reaches every PE 8 times
    auto* counters = rt.allocate_array<unsigned long long>(4);
    auto* next = rt.allocate_array<unsigned long long>(1);
    auto* claimed = rt.allocate_array<unsigned long long>(static_cast<size_t>(n) * kThreads * kPer);
    clear_device(counters, 4 * sizeof(unsigned long long));
    clear_device(next, sizeof(unsigned long long));
    rt.barrier_all();
    atomic_storm<<<kBlocks, kThreads, 0, s>>>(rt.device_context(), counters, iters);
    claim_tickets<<<1, kThreads, 0, s>>>(rt.device_context(), next, claimed, kPer);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    unsigned long long h[4];
    CK(cudaMemcpy(h, counters, sizeof(h), cudaMemcpyDeviceToHost));
    const unsigned long long per_pe =
        static_cast<unsigned long long>(kBlocks) * kThreads * iters / n * n;
    EXPECT_EQ(h[0], per_pe);
    EXPECT_EQ(h[1], 2 * per_pe);
    EXPECT_EQ(h[2], per_pe);
    EXPECT_EQ(h[3], 0u);  // every bit flipped an even number of times (8 * kBlocks per PE)
    if (me == 0) {
      std::vector<unsigned long long> all(static_cast<size_t>(n) * kThreads * kPer);
      CK(cudaMemcpy(all.data(), claimed, all.size() * sizeof(all[0]), cudaMemcpyDeviceToHost));
      std::set<unsigned long long> unique(all.begin(), all.end());
      EXPECT_EQ(unique.size(), all.size());
      EXPECT_EQ(*unique.rbegin(), all.size() - 1);
    }
    // The host forms of the atomics reach the same device words.
    EXPECT_EQ(rt.atomic_fetch(&counters[0], (me + 1) % n), per_pe);
    rt.barrier_all();
    rt.free(claimed);
    rt.free(next);
    rt.free(counters);
  });
}

// Rounds of put_signal around the ring inside one kernel per PE, a device barrier after each.
__global__ void signal_ring(sd::Context ctx, std::uint64_t* buf, std::uint64_t* src,
                            std::uint64_t* sig, int rounds, int words, std::uint64_t seed,
                            unsigned long long* bad) {
  sd::BlockGroup g;
  const int n = ctx.n_pes, me = ctx.my_pe;
  const int to = (me + 1) % n, from = (me + n - 1) % n;
  for (int r = 1; r <= rounds; ++r) {
    for (int i = threadIdx.x; i < words; i += blockDim.x) src[i] = gpattern(seed, me, r, i);
    g.sync();
    sd::put_signal(g, ctx, buf, src, words, sig, static_cast<std::uint64_t>(r), SignalOp::kSet, to);
    if (threadIdx.x == 0)
      (void)sd::signal_wait_until(ctx, sig, Cmp::kGe, static_cast<std::uint64_t>(r));
    g.sync();
    for (int i = threadIdx.x; i < words; i += blockDim.x)
      if (buf[i] != gpattern(seed, from, r, i)) atomicAdd(bad, 1ull);
    sd::barrier_all(g, ctx);  // nobody overwrites a buffer before its owner checked it
  }
}

TEST_P(DeviceApiTest, PutSignalRingWithDeviceBarriers) {
  run_pes(GetParam(), [](Runtime& rt) {
    PeStream s;
    constexpr int kWords = 1000, kRounds = 300;
    auto* buf = rt.allocate_array<std::uint64_t>(kWords);
    auto* sig = rt.allocate_array<std::uint64_t>(1);
    DeviceArray<std::uint64_t> src(kWords);
    DeviceArray<unsigned long long> bad;
    clear_device(sig, sizeof(*sig));
    rt.barrier_all();
    signal_ring<<<1, 256, 0, s>>>(rt.device_context(), buf, src, sig, kRounds, kWords, run_seed(),
                                  bad);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    std::uint64_t h_sig = 0;
    CK(cudaMemcpy(&h_sig, sig, sizeof(h_sig), cudaMemcpyDeviceToHost));
    EXPECT_EQ(bad.read(), 0u);
    EXPECT_EQ(h_sig, static_cast<std::uint64_t>(kRounds));
    EXPECT_EQ(rt.signal_fetch(sig), static_cast<std::uint64_t>(kRounds));
    rt.barrier_all();
    rt.free(sig);
    rt.free(buf);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, DeviceApiTest, ::testing::ValuesIn(gpu_thread_configs()),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing

namespace symmetra::testing {
namespace {

// Every block of the grid increments a counter and waits until all have: only correct when all
// blocks are resident, which collective_launch guarantees (or refuses to launch).
__global__ void grid_rendezvous(unsigned* arrived, unsigned total, unsigned* done) {
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < total) {
    }
    atomicAdd(done, 1u);
  }
}

TEST(CollectiveLaunch, FittingGridRunsAndOversizedGridIsRefused) {
  unsigned* words = nullptr;
  CK(cudaMalloc(&words, 2 * sizeof(unsigned)));
  CK(cudaMemset(words, 0, 2 * sizeof(unsigned)));
  const int fit = max_resident_blocks(grid_rendezvous, 256, 0);
  ASSERT_GT(fit, 0);
  collective_launch(grid_rendezvous, dim3(fit), dim3(256), 0, nullptr, words,
                    static_cast<unsigned>(fit), words + 1);
  CK(cudaDeviceSynchronize());
  unsigned done = 0;
  CK(cudaMemcpy(&done, words + 1, sizeof(done), cudaMemcpyDeviceToHost));
  EXPECT_EQ(done, static_cast<unsigned>(fit));
  try {
    collective_launch(grid_rendezvous, dim3(fit + 1), dim3(256), 0, nullptr, words, 0u, words + 1);
    ADD_FAILURE() << "an oversized grid was launched";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit on the GPU at once"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(fit)), std::string::npos)
        << e.what();
  }
  CK(cudaFree(words));
}

}  // namespace
}  // namespace symmetra::testing

// Kernels' operations on PEs of another host through the proxy ring (docs/proxy.md, "GPU
// producers"): two forced hosts of this machine (SYMMETRA_HOSTS=2, set by each test), PEs as
// threads on the GPU. Every PE works with the PE at its place on the other host, which is half
// the job away (so each PE is targeted by exactly one other). put, get, p, g, the atomics,
// put_signal, fence and quiet, from thread, warp and block groups; every element checked against
// what the sender computed, on fresh random values.
// The device API's remote branch, compiled into this file's kernels (docs/proxy.md).
#define SYMMETRA_DEVICE_REMOTE 1

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "gpu_support.cuh"
#include "support/pe_runner.hpp"
#include "symmetra/device.hpp"

namespace symmetra::testing {
namespace {

namespace sd = symmetra::device;

class GpuProxyTest : public ::testing::TestWithParam<PeConfig> {
 protected:
  void SetUp() override { setenv("SYMMETRA_HOSTS", "2", 1); }
  void TearDown() override {
    unsetenv("SYMMETRA_HOSTS");
    unsetenv("SYMMETRA_PROXY_RING");
  }
};

int across(const Runtime& rt) {
  return (rt.my_pe() + rt.n_pes() / 2) % rt.n_pes();
}

void expect_two_hosts(Runtime& rt) {
  ASSERT_EQ(rt.team_shared().n_pes() * 2, rt.n_pes()) << "the PEs are not on two forced hosts";
}

template <class Group>
__global__ void put_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                           size_t bytes, int to) {
  sd::putmem(Group{}, ctx, dst, src, bytes, to);
  if (threadIdx.x == 0) sd::quiet(ctx);
}

template <class Group>
__global__ void get_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                           size_t bytes, int from) {
  sd::getmem(Group{}, ctx, dst, src, bytes, from);
}

// put and get across hosts with each group kind: inline (up to 8 bytes), in the request's outbox
// (up to 1 KiB; 15 bytes a word and a tail), one byte past it, one staged chunk, and more than
// the 4 MiB bounce buffer.
TEST_P(GpuProxyTest, PutGetEveryGroupAndSize) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const int me = rt.my_pe(), to = across(rt);
    PeStream s;
    const size_t kMax = (5u << 20) + 3;
    auto* sym = rt.allocate_array<unsigned char>(kMax);
    DeviceArray<unsigned char> src(kMax), got(kMax);
    DeviceArray<unsigned long long> bad;
    std::uint64_t round = 0;
    for (int group = 0; group < 3; ++group) {
      for (size_t bytes :
           {size_t{1}, size_t{8}, size_t{15}, size_t{1024}, size_t{1025}, size_t{4099}, kMax}) {
        ++round;
        if (me == 0)
          std::fprintf(stderr, "round %llu: group %d, %zu bytes\n",
                       static_cast<unsigned long long>(round), group, bytes);
        fill_kernel<<<64, 256, 0, s>>>(src, bytes, run_seed(), me, round);
        CK(cudaMemsetAsync(sym, 0xEE, kMax, s));  // poison
        CK(cudaMemsetAsync(got, 0xEE, kMax, s));
        CK(cudaMemsetAsync(bad, 0, sizeof(*bad), s));
        CK(cudaStreamSynchronize(s));
        rt.barrier_all();
        const sd::Context ctx = rt.device_context();
        if (group == 0) put_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, sym, src, bytes, to);
        if (group == 1) put_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, sym, src, bytes, to);
        if (group == 2) put_kernel<sd::BlockGroup><<<1, 256, 0, s>>>(ctx, sym, src, bytes, to);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        rt.barrier_all();
        // What arrived here came from the PE across (it is its own inverse).
        count_mismatch<<<64, 256, 0, s>>>(sym, bytes, run_seed(), to, round, bad);
        if (group == 0) get_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, got, sym, bytes, to);
        if (group == 1) get_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, got, sym, bytes, to);
        if (group == 2) get_kernel<sd::BlockGroup><<<1, 256, 0, s>>>(ctx, got, sym, bytes, to);
        // The PE across holds what this PE put there.
        count_mismatch<<<64, 256, 0, s>>>(got, bytes, run_seed(), me, round, bad);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));  // bad.read() copies on a stream of its own
        EXPECT_EQ(bad.read(), 0u) << "group " << group << " bytes " << bytes << " PE " << me;
        unsigned char past[2] = {0, 0};
        if (bytes < kMax) {
          CK(cudaMemcpyAsync(&past[0], sym + bytes, 1, cudaMemcpyDeviceToHost, s));
          CK(cudaMemcpyAsync(&past[1], got.get() + bytes, 1, cudaMemcpyDeviceToHost, s));
          CK(cudaStreamSynchronize(s));
          EXPECT_EQ(past[0], 0xEE) << "put wrote past its end, bytes " << bytes;
          EXPECT_EQ(past[1], 0xEE) << "get wrote past its end, bytes " << bytes;
        }
        rt.barrier_all();
      }
    }
    rt.free(sym);
  });
}

// 256 threads each put 37 bytes (unaligned: the outbox's byte copy) to a place of their own,
// `iters` times, enough requests to take the 4096-entry ring around five times: an outbox
// reused before the proxy read it would deliver another put's bytes.
__global__ void many_puts_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                                 int iters, size_t each, int to) {
  for (int it = 0; it < iters; ++it) {
    const size_t at = (static_cast<size_t>(it) * blockDim.x + threadIdx.x) * each;
    sd::putmem(sd::ThreadGroup{}, ctx, dst + at, src + at, each, to);
  }
  __syncthreads();
  if (threadIdx.x == 0) sd::quiet(ctx);
}

TEST_P(GpuProxyTest, ManySmallPutsGoAroundTheRing) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const int me = rt.my_pe(), to = across(rt);
    constexpr int kIters = 20, kThreads = 256;
    constexpr size_t kEach = 37, kBytes = kEach * kThreads * kIters;
    PeStream s;
    auto* sym = rt.allocate_array<unsigned char>(kBytes);
    DeviceArray<unsigned char> src(kBytes);
    DeviceArray<unsigned long long> bad;
    fill_kernel<<<64, 256, 0, s>>>(src, kBytes, run_seed(), me, 1);
    CK(cudaMemsetAsync(sym, 0xEE, kBytes, s));
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    many_puts_kernel<<<1, kThreads, 0, s>>>(rt.device_context(), sym, src, kIters, kEach, to);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    count_mismatch<<<64, 256, 0, s>>>(sym, kBytes, run_seed(), to, 1, bad);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(bad.read(), 0u) << "PE " << me;
    rt.barrier_all();
    rt.free(sym);
  });
}

// Every thread of two blocks p's its own words (8, 4 and 2 bytes) to the PE across, and after a
// barrier g's them back from there: 256 producers on one ring at once.
__global__ void p_kernel(sd::Context ctx, std::uint64_t* w64, std::uint32_t* w32,
                         std::uint16_t* w16, std::uint64_t seed, int to) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  sd::p(ctx, &w64[t], gpattern(seed, ctx.my_pe, 1, t), to);
  sd::p(ctx, &w32[t], static_cast<std::uint32_t>(gpattern(seed, ctx.my_pe, 2, t)), to);
  sd::p(ctx, &w16[t], static_cast<std::uint16_t>(gpattern(seed, ctx.my_pe, 3, t)), to);
  sd::quiet(ctx);
}

__global__ void g_kernel(sd::Context ctx, const std::uint64_t* w64, const std::uint32_t* w32,
                         const std::uint16_t* w16, std::uint64_t seed, int from,
                         unsigned long long* bad) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  // The PE across holds what this PE p'd.
  if (sd::g(ctx, &w64[t], from) != gpattern(seed, ctx.my_pe, 1, t)) atomicAdd(bad, 1ull);
  if (sd::g(ctx, &w32[t], from) != static_cast<std::uint32_t>(gpattern(seed, ctx.my_pe, 2, t)))
    atomicAdd(bad, 1ull);
  if (sd::g(ctx, &w16[t], from) != static_cast<std::uint16_t>(gpattern(seed, ctx.my_pe, 3, t)))
    atomicAdd(bad, 1ull);
}

void p_and_g(Runtime& rt) {
  expect_two_hosts(rt);
  constexpr unsigned kThreads = 256;
  const int me = rt.my_pe(), to = across(rt);
  const std::uint64_t seed = run_seed();
  PeStream s;
  auto* w64 = rt.allocate_array<std::uint64_t>(kThreads);
  auto* w32 = rt.allocate_array<std::uint32_t>(kThreads);
  auto* w16 = rt.allocate_array<std::uint16_t>(kThreads);
  CK(cudaMemsetAsync(w64, 0, kThreads * 8, s));
  CK(cudaMemsetAsync(w32, 0, kThreads * 4, s));
  CK(cudaMemsetAsync(w16, 0, kThreads * 2, s));
  DeviceArray<unsigned long long> bad;
  CK(cudaStreamSynchronize(s));
  rt.barrier_all();
  const sd::Context ctx = rt.device_context();
  p_kernel<<<2, kThreads / 2, 0, s>>>(ctx, w64, w32, w16, seed, to);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(s));
  rt.barrier_all();
  // Here, what the PE across p'd: checked on the host, word by word.
  std::vector<std::uint64_t> h64(kThreads);
  std::vector<std::uint32_t> h32(kThreads);
  std::vector<std::uint16_t> h16(kThreads);
  CK(cudaMemcpyAsync(h64.data(), w64, kThreads * 8, cudaMemcpyDeviceToHost, s));
  CK(cudaMemcpyAsync(h32.data(), w32, kThreads * 4, cudaMemcpyDeviceToHost, s));
  CK(cudaMemcpyAsync(h16.data(), w16, kThreads * 2, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  std::size_t wrong = 0;
  for (unsigned t = 0; t < kThreads; ++t) {
    wrong += h64[t] != gpattern(seed, to, 1, t);
    wrong += h32[t] != static_cast<std::uint32_t>(gpattern(seed, to, 2, t));
    wrong += h16[t] != static_cast<std::uint16_t>(gpattern(seed, to, 3, t));
  }
  EXPECT_EQ(wrong, 0u) << "p into PE " << me;
  g_kernel<<<2, kThreads / 2, 0, s>>>(ctx, w64, w32, w16, seed, to, bad);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(s));  // bad.read() copies on a stream of its own
  EXPECT_EQ(bad.read(), 0u) << "g by PE " << me;
  rt.barrier_all();
  rt.free(w16);
  rt.free(w32);
  rt.free(w64);
}

TEST_P(GpuProxyTest, PAndGFromEveryThread) {
  run_pes(GetParam(), [](Runtime& rt) { p_and_g(rt); });
}

// A ring of 16 entries under 768 requests of 4 entries: every producer waits for space, over
// and over, and the flags flip on every lap.
TEST_P(GpuProxyTest, ATinyRingWrapsUnderBackPressure) {
  setenv("SYMMETRA_PROXY_RING", "16", 1);
  run_pes(GetParam(), [](Runtime& rt) { p_and_g(rt); });
}

// Atomics on the PE across from 256 threads: fetch_add tickets are each handed out once, and the
// other operations' sums, bits and swaps come out whole.
__global__ void amo_kernel(sd::Context ctx, unsigned long long* c, unsigned* c32,
                           unsigned long long* tickets, int to) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  tickets[t] = sd::atomic_fetch_add(ctx, &c[0], 1ull, to);
  sd::atomic_add(ctx, &c[1], 3ull, to);
  (void)sd::atomic_fetch_or(ctx, &c[2], 1ull << (t % 64), to);
  sd::atomic_xor(ctx, &c[3], 1ull << (t % 64), to);  // 4 threads per bit: back to zero
  // A compare_swap loop on a 32-bit word, by one thread per warp (all 256 would take 256^2 round
  // trips through the proxy).
  for (; t % 32 == 0;) {
    const unsigned seen = sd::atomic_fetch(ctx, &c32[0], to);
    if (sd::atomic_compare_swap(ctx, &c32[0], seen, seen + 1, to) == seen) break;
  }
  (void)sd::atomic_swap(ctx, &c32[1], t + 1, to);  // some thread's t + 1 stays
  sd::quiet(ctx);
}

TEST_P(GpuProxyTest, AtomicsFromEveryThread) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    constexpr unsigned kThreads = 256;
    const int to = across(rt);
    PeStream s;
    auto* c = rt.allocate_array<unsigned long long>(4);
    auto* c32 = rt.allocate_array<unsigned>(2);
    CK(cudaMemsetAsync(c, 0, 4 * 8, s));
    CK(cudaMemsetAsync(c32, 0, 2 * 4, s));
    DeviceArray<unsigned long long> tickets(kThreads);
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    amo_kernel<<<4, kThreads / 4, 0, s>>>(rt.device_context(), c, c32, tickets, to);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    std::vector<unsigned long long> got(kThreads), hc(4);
    std::vector<unsigned> h32(2);
    CK(cudaMemcpyAsync(got.data(), tickets, kThreads * 8, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(hc.data(), c, 4 * 8, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(h32.data(), c32, 2 * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    std::sort(got.begin(), got.end());
    for (unsigned i = 0; i < kThreads; ++i) ASSERT_EQ(got[i], i) << "fetch_add tickets";
    EXPECT_EQ(hc[0], kThreads);
    EXPECT_EQ(hc[1], 3ull * kThreads);
    EXPECT_EQ(hc[2], ~0ull);
    EXPECT_EQ(hc[3], 0ull);
    EXPECT_EQ(h32[0], kThreads / 32) << "compare_swap increments";
    EXPECT_GE(h32[1], 1u);
    EXPECT_LE(h32[1], kThreads);
    rt.barrier_all();
    rt.free(c32);
    rt.free(c);
  });
}

// put_signal from a block to the PE across, and in the same kernel a wait for the one coming
// here, then every byte checked: the signal arrives after its data. Then a put, a fence and a
// flag by p: the flag arrives after the put. Rounds reuse the buffers.
__global__ void signal_kernel(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                              size_t bytes, std::uint64_t* sig, unsigned char* dst2,
                              std::uint64_t* flag, std::uint64_t seed, std::uint64_t round, int to,
                              unsigned long long* bad) {
  sd::BlockGroup g;
  sd::putmem_signal(g, ctx, dst, src, bytes, sig, 1, SignalOp::kAdd, to);
  if (threadIdx.x == 0) (void)sd::signal_wait_until(ctx, sig, Cmp::kGe, round);
  g.sync();
  for (size_t i = threadIdx.x; i < bytes; i += blockDim.x)
    if (dst[i] != static_cast<unsigned char>(gpattern(seed, to, round, i))) atomicAdd(bad, 1ull);
  g.sync();
  sd::putmem(g, ctx, dst2, src, bytes, to);
  if (threadIdx.x == 0) {
    sd::fence(ctx);
    sd::p(ctx, flag, round, to);
    sd::wait_until(ctx, flag, Cmp::kGe, round);
  }
  g.sync();
  for (size_t i = threadIdx.x; i < bytes; i += blockDim.x)
    if (dst2[i] != static_cast<unsigned char>(gpattern(seed, to, round, i))) atomicAdd(bad, 1ull);
}

// In the request's outbox (up to 1.75 KiB for put_signal) and staged.
TEST_P(GpuProxyTest, PutSignalAndFenceOrderDataBeforeTheFlag) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const int me = rt.my_pe(), to = across(rt);
    const size_t kMax = (1u << 20) + 5;
    PeStream s;
    auto* dst = rt.allocate_array<unsigned char>(kMax);
    auto* dst2 = rt.allocate_array<unsigned char>(kMax);
    auto* sig = rt.allocate_array<std::uint64_t>(2);
    DeviceArray<unsigned char> src(kMax);
    DeviceArray<unsigned long long> bad;
    CK(cudaMemsetAsync(sig, 0, 16, s));
    CK(cudaStreamSynchronize(s));
    for (std::uint64_t round = 1; round <= 6; ++round) {
      const size_t bytes = round <= 3 ? 1000 : kMax;
      fill_kernel<<<64, 256, 0, s>>>(src, bytes, run_seed(), me, round);
      CK(cudaMemsetAsync(dst, 0xEE, bytes, s));
      CK(cudaMemsetAsync(dst2, 0xEE, bytes, s));
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      signal_kernel<<<1, 256, 0, s>>>(rt.device_context(), dst, src, bytes, sig, dst2, sig + 1,
                                      run_seed(), round, to, bad);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(s));  // bad.read() copies on a stream of its own
      EXPECT_EQ(bad.read(), 0u) << "round " << round << " PE " << me;
      rt.barrier_all();
    }
    rt.free(sig);
    rt.free(dst2);
    rt.free(dst);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuProxyTest,
                         ::testing::Values(PeConfig{2, Mode::kThreads, Backend::kCuda},
                                           PeConfig{4, Mode::kThreads, Backend::kCuda}),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing

// The GPU backend from the host: host-initiated RMA, atomics and waits on device memory, the
// stream-ordered API, and a captured put/signal/wait sequence replayed 1,000 times.
#include <cuda.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "gpu_support.cuh"
#include "support/pe_runner.hpp"
#include "symmetra/device.hpp"

namespace symmetra::testing {
namespace {

namespace sd = symmetra::device;

class GpuHostTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(GpuHostTest, HostRmaAtomicsAndWaitsOnDeviceMemory) {
  run_pes(GetParam(), [](Runtime& rt) {
    ASSERT_TRUE(rt.on_gpu());
    const int me = rt.my_pe(), n = rt.n_pes();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    constexpr size_t kN = 4096;
    auto* data = rt.allocate_array<std::int64_t>(kN);
    auto* strided = rt.allocate_array<std::int64_t>(3 * 64);
    auto* words = rt.allocate_array<std::int64_t>(n);
    auto* flag = rt.allocate_array<std::uint64_t>(1);
    EXPECT_FALSE(rt.is_symmetric(&kN));
    EXPECT_TRUE(rt.is_symmetric(data));
    clear_device(words, n * sizeof(std::int64_t));
    clear_device(flag, sizeof(std::uint64_t));
    clear_device(strided, 3 * 64 * sizeof(std::int64_t), 0xFF);
    std::vector<std::int64_t> src(kN), got(kN, -1);
    for (size_t i = 0; i < kN; ++i)
      src[i] = static_cast<std::int64_t>(gpattern(run_seed(), me, 7, i) >> 1);
    rt.barrier_all();
    rt.put(data, src.data(), kN, to);
    rt.iput(strided, src.data(), 3, 2, 64, to);  // strided[3i] = src[2i]
    rt.barrier_all();
    rt.get(got.data(), data, kN, me);  // my own copy: what `from` sent
    for (size_t i = 0; i < kN; ++i)
      ASSERT_EQ(got[i], static_cast<std::int64_t>(gpattern(run_seed(), from, 7, i) >> 1)) << i;
    std::vector<std::int64_t> sgot(64, -1);
    rt.iget(sgot.data(), strided, 1, 3, 64, me);
    for (size_t i = 0; i < 64; ++i)
      ASSERT_EQ(sgot[i], static_cast<std::int64_t>(gpattern(run_seed(), from, 7, 2 * i) >> 1));
    std::int64_t between = 0;
    CK(cudaMemcpy(&between, strided + 1, sizeof(between), cudaMemcpyDeviceToHost));
    EXPECT_EQ(between, -1);  // untouched
    // p / g and every atomic form, checked exactly.
    for (int pe = 0; pe < n; ++pe) rt.p(&words[me], std::int64_t(100 + me), pe);
    rt.barrier_all();
    for (int k = 0; k < n; ++k) EXPECT_EQ(rt.g(&words[k], me), 100 + k);
    rt.barrier_all();
    for (int pe = 0; pe < n; ++pe) {
      rt.atomic_add(&words[0], std::int64_t(1), pe);
      (void)rt.atomic_fetch_add(&words[0], std::int64_t(2), pe);
      rt.atomic_inc(&words[0], pe);
    }
    rt.barrier_all();
    EXPECT_EQ(rt.atomic_fetch(&words[0], me), 100 + 4 * n);
    EXPECT_EQ(rt.atomic_swap(&words[0], std::int64_t(-5), me), 100 + 4 * n);
    EXPECT_EQ(rt.atomic_compare_swap(&words[0], std::int64_t(-5), std::int64_t(9), me), -5);
    EXPECT_EQ(rt.atomic_compare_swap(&words[0], std::int64_t(-5), std::int64_t(11), me), 9);
    EXPECT_EQ(rt.g(&words[0], me), 9);
    rt.barrier_all();
    // A host wait on device memory, satisfied by another PE's host p after a delay.
    if (me == 0) {
      rt.wait_until(flag, Cmp::kEq, std::uint64_t{42});
      EXPECT_TRUE(rt.test(flag, Cmp::kEq, std::uint64_t{42}));
      EXPECT_EQ(rt.signal_wait_until(flag, Cmp::kGe, std::uint64_t{42}), 42u);
    } else if (me == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      rt.put_signal(data, src.data(), 1, flag, 42, SignalOp::kSet, 0);
    }
    rt.barrier_all();
    rt.free(flag);
    rt.free(words);
    rt.free(strided);
    rt.free(data);
  });
}

TEST_P(GpuHostTest, StreamOrderedPutSignalWaitBarrier) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    PeStream s;
    constexpr size_t kBytes = 3 << 20;
    auto* buf = rt.allocate_array<unsigned char>(kBytes);
    auto* sig = rt.allocate_array<std::uint64_t>(2);
    DeviceArray<unsigned char> src(kBytes);
    std::vector<unsigned char> h(kBytes);
    for (size_t i = 0; i < kBytes; ++i)
      h[i] = static_cast<unsigned char>(gpattern(run_seed(), me, 3, i));
    copy_to_device(src, h.data(), kBytes);
    clear_device(sig, 2 * sizeof(std::uint64_t));
    rt.barrier_all();
    Stream st = reinterpret_cast<Stream>(static_cast<cudaStream_t>(s));
    for (std::uint64_t round = 1; round <= 20; ++round) {
      rt.putmem_signal_on_stream(buf, src, kBytes, &sig[0], 1, SignalOp::kAdd, to,
                                 st);                                  // kernel add
      rt.signal_wait_until_on_stream(&sig[0], Cmp::kGe, round, st);    // stream wait
      rt.signal_op_on_stream(&sig[1], round, SignalOp::kSet, to, st);  // stream write
      rt.signal_wait_until_on_stream(&sig[1], Cmp::kEq, round, st);
      rt.signal_wait_until_on_stream(&sig[1], Cmp::kNe, 0, st);  // kernel wait
      rt.barrier_all_on_stream(st);
    }
    rt.quiet_on_stream(st);
    std::vector<unsigned char> got(kBytes);
    CK(cudaMemcpyAsync(got.data(), buf, kBytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    size_t bad = 0;
    for (size_t i = 0; i < kBytes; ++i)
      bad += got[i] != static_cast<unsigned char>(gpattern(run_seed(), from, 3, i));
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(rt.signal_fetch(&sig[0]), 20u);
    rt.barrier_all();
    rt.free(sig);
    rt.free(buf);
  });
}

// Writes round r's data into `src` from the replay counter kept in device memory.
__global__ void next_round(std::uint64_t* src, int words, std::uint64_t seed, int pe,
                           std::uint64_t* counter) {
  const std::uint64_t r = *counter + 1;
  for (int i = threadIdx.x; i < words; i += blockDim.x) src[i] = gpattern(seed, pe, r, i);
  __syncthreads();
  if (threadIdx.x == 0) *counter = r;
}

// Checks the received round against the receiver's own replay counter.
__global__ void check_round(const std::uint64_t* buf, int words, std::uint64_t seed, int from,
                            std::uint64_t* counter, unsigned long long* bad) {
  const std::uint64_t r = *counter + 1;
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    if (buf[i] != gpattern(seed, from, r, i)) atomicAdd(bad, 1ull);
  __syncthreads();
  if (threadIdx.x == 0) *counter = r;
}

// PE 0 sends, PE 1 receives, each replaying its own captured graph; signals are reset inside
// the graphs so that the captured (constant) wait values hold on every replay.
TEST_P(GpuHostTest, GraphReplaysPutSignalWait1000Times) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe();
    constexpr int kWords = 2048, kReplays = 1000;
    PeStream s;
    auto* buf = rt.allocate_array<std::uint64_t>(kWords);
    auto* sig = rt.allocate_array<std::uint64_t>(2);  // [0]: data ready at PE 1, [1]: ack at PE 0
    DeviceArray<std::uint64_t> src(kWords), counter;
    DeviceArray<unsigned long long> bad;
    clear_device(sig, 2 * sizeof(std::uint64_t));
    rt.barrier_all();
    Stream st = reinterpret_cast<Stream>(static_cast<cudaStream_t>(s));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (me <= 1) {
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      if (me == 0) {
        next_round<<<1, 256, 0, s>>>(src, kWords, run_seed(), 0, counter);
        rt.putmem_signal_on_stream(buf, src, kWords * sizeof(std::uint64_t), &sig[0], 1,
                                   SignalOp::kSet, 1, st);
        rt.signal_wait_until_on_stream(&sig[1], Cmp::kEq, 1, st);
        rt.signal_op_on_stream(&sig[1], 0, SignalOp::kSet, 0, st);
      } else {
        rt.signal_wait_until_on_stream(&sig[0], Cmp::kEq, 1, st);
        check_round<<<1, 256, 0, s>>>(buf, kWords, run_seed(), 0, counter, bad);
        rt.signal_op_on_stream(&sig[0], 0, SignalOp::kSet, 1, st);
        rt.signal_op_on_stream(&sig[1], 1, SignalOp::kSet, 0, st);
      }
      CK(cudaStreamEndCapture(s, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      for (int i = 0; i < kReplays; ++i) CK(cudaGraphLaunch(exec, s));
      CK(cudaStreamSynchronize(s));
      EXPECT_EQ(counter.read(), static_cast<std::uint64_t>(kReplays));
      EXPECT_EQ(bad.read(), 0u);
      CK(cudaGraphExecDestroy(exec));
      CK(cudaGraphDestroy(graph));
    }
    rt.barrier_all();
    rt.free(sig);
    rt.free(buf);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuHostTest, ::testing::ValuesIn(gpu_thread_configs()),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing

// Device functions that compiled but never ran on a GPU, each run in a kernel and checked value by
// value on the host: iput / iget with every group, the _nbi forms and g; the wait_until and test
// families (all, any, some, and their _vector forms) on words other PEs set; atomic_fetch_inc and
// the non-fetch atomic_and / atomic_or; the collectives with warp and thread groups, and prod and
// the bitwise reductions; getmem_on_stream. PEs are threads sharing the GPU(s).
#include <gtest/gtest.h>

#include <vector>

#include "gpu_support.cuh"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/device.hpp"

namespace symmetra::testing {
namespace {

namespace sd = symmetra::device;
namespace sc = symmetra::coll;

class DeviceCoverageTest : public ::testing::TestWithParam<PeConfig> {};

template <class Group>
__global__ void strided_kernel(sd::Context ctx, std::uint64_t* sym, const std::uint64_t* src,
                               std::uint64_t* got, int n, int to) {
  // Every third element of src into every second of `to`'s sym, then back: every fourth of sym on
  // `to` into consecutive got.
  sd::iput(Group{}, ctx, sym, src, 2, 3, static_cast<std::size_t>(n), to);
  sd::quiet(ctx);
  sd::iget(Group{}, ctx, got, sym, 1, 4, static_cast<std::size_t>(n / 2), to);
}

template <class Group>
__global__ void nbi_kernel(sd::Context ctx, std::uint64_t* sym, const std::uint64_t* src,
                           std::uint64_t* got, std::uint64_t* gs, std::size_t n, int to) {
  sd::put_nbi(Group{}, ctx, sym, src, n, to);
  sd::quiet(ctx);
  sd::get_nbi(Group{}, ctx, got, sym, n, to);
  sd::quiet(ctx);
  Group grp;
  grp.sync();
  if (threadIdx.x == 0)
    for (int i = 0; i < 8; ++i) gs[i] = sd::g(ctx, &sym[i * 97], to);
}

TEST_P(DeviceCoverageTest, StridedNbiAndG) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes(), to = (me + 1) % n, from = (me + n - 1) % n;
    PeStream s;
    constexpr int kElems = 1000;
    auto* sym = rt.allocate_array<std::uint64_t>(2 * kElems + 8);
    DeviceArray<std::uint64_t> src(3 * kElems), got(kElems), gs(8);
    std::vector<std::uint64_t> h(3 * kElems);
    for (int group = 0; group < 3; ++group) {
      for (int i = 0; i < 3 * kElems; ++i) h[i] = gpattern(run_seed(), me, 10 + group, i);
      CK(cudaMemcpyAsync(src, h.data(), h.size() * 8, cudaMemcpyHostToDevice, s));
      CK(cudaMemsetAsync(sym, 0xEE, (2 * kElems + 8) * 8, s));
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      const sd::Context ctx = rt.device_context();
      if (group == 0)
        strided_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, sym, src, got, kElems, to);
      if (group == 1)
        strided_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, sym, src, got, kElems, to);
      if (group == 2)
        strided_kernel<sd::BlockGroup><<<1, 256, 0, s>>>(ctx, sym, src, got, kElems, to);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      std::vector<std::uint64_t> mine(2 * kElems), back(kElems / 2);
      CK(cudaMemcpy(mine.data(), sym, mine.size() * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(back.data(), got, back.size() * 8, cudaMemcpyDeviceToHost));
      for (int i = 0; i < 2 * kElems; ++i) {
        const std::uint64_t want = i % 2 == 0 ? gpattern(run_seed(), from, 10 + group, 3 * (i / 2))
                                              : 0xEEEEEEEEEEEEEEEEull;
        ASSERT_EQ(mine[i], want) << "iput group " << group << " element " << i;
      }
      for (int i = 0; i < kElems / 2; ++i)
        ASSERT_EQ(back[i], gpattern(run_seed(), me, 10 + group, 3 * (2 * i)))
            << "iget group " << group << " element " << i;
      rt.barrier_all();
      // The _nbi forms and g.
      CK(cudaMemsetAsync(got, 0, kElems * 8, s));
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      if (group == 0)
        nbi_kernel<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, sym, src, got, gs, kElems, to);
      if (group == 1)
        nbi_kernel<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, sym, src, got, gs, kElems, to);
      if (group == 2)
        nbi_kernel<sd::BlockGroup><<<1, 256, 0, s>>>(ctx, sym, src, got, gs, kElems, to);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(s));
      std::vector<std::uint64_t> nb(kElems), g8(8);
      CK(cudaMemcpy(nb.data(), got, nb.size() * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(g8.data(), gs, g8.size() * 8, cudaMemcpyDeviceToHost));
      for (int i = 0; i < kElems; ++i)
        ASSERT_EQ(nb[i], h[i]) << "put_nbi/get_nbi group " << group << " element " << i;
      for (int i = 0; i < 8; ++i) ASSERT_EQ(g8[i], h[i * 97]) << "g " << i;
      rt.barrier_all();
    }
    rt.free(sym);
  });
}

// The receiver's side runs every wait and test form on flags the other PEs set with p; results
// go to out[] for the host: [0] wait_until value seen (test), [1] test_all, [2] wait_until_any
// index, [3] test_any, [4] wait_until_some count, [5..] its indices, then the vector forms.
__device__ void wait_forms(sd::Context ctx, int* flags, int n, const int* status, const int* values,
                           long long* out) {
  sd::wait_until(ctx, &flags[0], Cmp::kGe, 1);
  out[0] = sd::test(ctx, &flags[0], Cmp::kGe, 1) ? 1 : 0;
  sd::wait_until_all(ctx, flags, n, nullptr, Cmp::kNe, 0);
  out[1] = sd::test_all(ctx, flags, n, nullptr, Cmp::kGt, 0) ? 1 : 0;
  out[2] = static_cast<long long>(sd::wait_until_any(ctx, flags, n, status, Cmp::kEq, 2));
  out[3] = static_cast<long long>(
      sd::test_any(ctx, flags, n, status, Cmp::kGt, 1000));  // none: kNoIndex
  std::size_t idx[64];
  const std::size_t some = sd::wait_until_some(ctx, flags, n, idx, nullptr, Cmp::kGe, 2);
  out[4] = static_cast<long long>(some);
  for (std::size_t i = 0; i < some; ++i) out[5 + i] = static_cast<long long>(idx[i]);
  sd::wait_until_all_vector(ctx, flags, n, nullptr, Cmp::kEq, values);
  out[70] = sd::test_all_vector(ctx, flags, n, nullptr, Cmp::kEq, values) ? 1 : 0;
  out[71] =
      static_cast<long long>(sd::wait_until_any_vector(ctx, flags, n, status, Cmp::kEq, values));
  out[72] =
      static_cast<long long>(sd::test_any_vector(ctx, flags, n, status, Cmp::kLt, values));  // none
  out[73] = static_cast<long long>(
      sd::wait_until_some_vector(ctx, flags, n, idx, status, Cmp::kEq, values));
  out[74] =
      static_cast<long long>(sd::test_some_vector(ctx, flags, n, idx, nullptr, Cmp::kLe, values));
  out[75] = static_cast<long long>(sd::test_some(ctx, flags, n, idx, status, Cmp::kNe, 0));
}

// Block 0 waits (wait_forms); block 1 sets flag i to (i % 3) + 1 on every PE for each i with
// i % n == me. One kernel per PE, launched with the co-located PEs' through launch_graph: a
// setter on a second stream could sit in a hardware queue behind a waiter (docs/gpu_backend.md,
// "PEs that share a GPU").
__global__ void wait_and_set(sd::Context ctx, int* flags, int k, const int* status,
                             const int* values, long long* out) {
  if (blockIdx.x == 0) return wait_forms(ctx, flags, k, status, values, out);
  for (int i = ctx.my_pe; i < k; i += ctx.n_pes)
    for (int pe = 0; pe < ctx.n_pes; ++pe) sd::p(ctx, &flags[i], i % 3 + 1, pe);
  sd::quiet(ctx);
}

TEST_P(DeviceCoverageTest, WaitAndTestFamiliesInKernels) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    PeStream s;
    const int k = n + 1;  // flag i is set to (i % 3) + 1 by PE i % n, on every PE
    auto* flags = rt.allocate_array<int>(k);
    DeviceArray<int> status(k), values(k);
    DeviceArray<long long> out(80);
    std::vector<int> hs(k, 0), hv(k);
    hs[0] = 1;  // index 0 excluded from the _any / _some forms that take status
    for (int i = 0; i < k; ++i) hv[i] = i % 3 + 1;
    CK(cudaMemcpyAsync(status, hs.data(), k * sizeof(int), cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(values, hv.data(), k * sizeof(int), cudaMemcpyHostToDevice, s));
    clear_device(flags, k * sizeof(int));
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    // The flags arrive while the waiter waits.
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    wait_and_set<<<2, 1, 0, s>>>(rt.device_context(), flags, k, status, values, out);
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    rt.launch_graph(exec, s);
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    std::vector<long long> h(80);
    CK(cudaMemcpy(h.data(), out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    const auto none = static_cast<long long>(sd::kNoIndex);
    EXPECT_EQ(h[0], 1);
    EXPECT_EQ(h[1], 1);
    // wait_until_any for == 2 among included (not 0): the flags with i % 3 == 1.
    EXPECT_TRUE(h[2] > 0 && h[2] < k && hv[h[2]] == 2) << h[2];
    EXPECT_EQ(h[3], none);
    std::vector<long long> want_some;
    for (int i = 0; i < k; ++i)
      if (hv[i] >= 2) want_some.push_back(i);
    ASSERT_EQ(h[4], static_cast<long long>(want_some.size()));
    for (std::size_t i = 0; i < want_some.size(); ++i) EXPECT_EQ(h[5 + i], want_some[i]);
    EXPECT_EQ(h[70], 1);
    EXPECT_TRUE(h[71] > 0 && h[71] < k) << h[71];
    EXPECT_EQ(h[72], none);
    EXPECT_EQ(h[73], k - 1);  // every included flag equals its value
    EXPECT_EQ(h[74], k);
    EXPECT_EQ(h[75], k - 1);
    rt.barrier_all();
    rt.free(flags);
  });
}

__global__ void more_atomics(sd::Context ctx, unsigned long long* words,
                             unsigned long long* tickets, int per) {
  const int n = ctx.n_pes;
  for (int i = 0; i < per; ++i) {
    const int pe = (threadIdx.x + i) % n;
    tickets[threadIdx.x * per + i] = sd::atomic_fetch_inc(ctx, &words[0], pe);
    // Bit b of words[1] cleared by its thread, of words[2] set by it.
    sd::atomic_and(ctx, &words[1], ~(1ull << (threadIdx.x % 64)), pe);
    sd::atomic_or(ctx, &words[2], 1ull << (threadIdx.x % 64), pe);
  }
}

TEST_P(DeviceCoverageTest, FetchIncAndNonFetchAndOr) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    PeStream s;
    constexpr int kThreads = 64, kPer = 8;
    auto* words = rt.allocate_array<unsigned long long>(3);
    DeviceArray<unsigned long long> tickets(kThreads * kPer);
    const unsigned long long init[3] = {0, ~0ull, 0};
    CK(cudaMemcpy(words, init, sizeof(init), cudaMemcpyHostToDevice));
    rt.barrier_all();
    more_atomics<<<1, kThreads, 0, s>>>(rt.device_context(), words, tickets, kPer);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    rt.barrier_all();
    unsigned long long h[3];
    CK(cudaMemcpy(h, words, sizeof(h), cudaMemcpyDeviceToHost));
    // Every PE's counter got an equal share of the n * kThreads * kPer increments only when
    // kThreads * kPer is a multiple of n; the sum over PEs is exact either way.
    const unsigned long long total =
        rt.team_world().n_pes() * static_cast<unsigned long long>(kThreads * kPer);
    unsigned long long sum = 0;
    for (int pe = 0; pe < n; ++pe) sum += rt.atomic_fetch(&words[0], pe);
    EXPECT_EQ(sum, total);
    // A PE receives and/or from every thread index t with (t + i) % n == pe for some i < kPer:
    // with kPer >= n, from all 64.
    EXPECT_EQ(h[1], kPer >= n ? 0ull : h[1]);
    EXPECT_EQ(h[2], kPer >= n ? ~0ull : h[2]);
    rt.barrier_all();
    rt.free(words);
  });
}

// The world team's collectives with a group of any kind, and the reductions the block suite
// leaves out: prod on small integers (exact), and, or, xor on unsigned words.
template <class Group>
__global__ void coll_groups(sd::Context ctx, int calls, std::uint64_t seed, std::uint64_t* src,
                            std::uint64_t* dst, long long* lsrc, long long* ldst, unsigned* usrc,
                            unsigned* udst, int elems, unsigned long long* bad) {
  Group g;
  const int n = ctx.n_pes, me = ctx.my_pe, t = threadIdx.x, step = blockDim.x;
  const int team = sd::kTeamWorld;
  auto expect = [&](bool ok) {
    if (!ok) atomicAdd(bad, 1ull);
  };
  for (int c = 1; c <= calls; ++c) {
    const int root = c % n;
    for (int i = t; i < elems * n; i += step) {
      src[i] = gpattern(seed, me, c, i);
      lsrc[i] =
          static_cast<long long>(gpattern(seed, me, c, i) % 3) + 1;  // 1..3: products of 8 fit
      usrc[i] = static_cast<unsigned>(gpattern(seed, me, c, i) >> 7);
    }
    g.sync();
    sc::broadcast(g, ctx, team, dst, src, elems, root);
    for (int i = t; i < elems; i += step) expect(dst[i] == gpattern(seed, root, c, i));
    sc::fcollect(g, ctx, team, dst, src, elems);
    for (int i = t; i < elems * n; i += step)
      expect(dst[i] == gpattern(seed, i / elems, c, i % elems));
    sc::alltoall(g, ctx, team, dst, src, elems);
    for (int i = t; i < elems * n; i += step)
      expect(dst[i] == gpattern(seed, i / elems, c, me * elems + i % elems));
    sc::reduce(g, ctx, team, ldst, lsrc, elems, sc::ReduceOp::kProd);
    for (int i = t; i < elems; i += step) {
      long long p = 1;
      for (int r = 0; r < n; ++r) p *= static_cast<long long>(gpattern(seed, r, c, i) % 3) + 1;
      expect(ldst[i] == p);
    }
    for (sc::ReduceOp op : {sc::ReduceOp::kAnd, sc::ReduceOp::kOr, sc::ReduceOp::kXor}) {
      sc::reduce(g, ctx, team, udst, usrc, elems, op);
      for (int i = t; i < elems; i += step) {
        unsigned v = static_cast<unsigned>(gpattern(seed, 0, c, i) >> 7);
        for (int r = 1; r < n; ++r) {
          const unsigned x = static_cast<unsigned>(gpattern(seed, r, c, i) >> 7);
          v = op == sc::ReduceOp::kAnd ? (v & x) : op == sc::ReduceOp::kOr ? (v | x) : (v ^ x);
        }
        expect(udst[i] == v);
      }
    }
    sc::reduce_scatter(g, ctx, team, ldst, lsrc, elems, sc::ReduceOp::kSum);
    for (int i = t; i < elems; i += step) {
      long long s = 0;
      for (int r = 0; r < n; ++r)
        s += static_cast<long long>(gpattern(seed, r, c, me * elems + i) % 3) + 1;
      expect(ldst[i] == s);
    }
    sc::permute(g, ctx, team, dst, src, elems * n, (me + 1) % n, (me + n - 1) % n, 40);
    for (int i = t; i < elems * n; i += step)
      expect(dst[i] == gpattern(seed, (me + n - 1) % n, c, i));
    sd::barrier_all(g, ctx);
  }
}

TEST_P(DeviceCoverageTest, CollectivesWithEveryGroupAndReduceOp) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    PeStream s;
    constexpr int kElems = 100;
    auto* src = rt.allocate_array<std::uint64_t>(kElems * n);
    auto* dst = rt.allocate_array<std::uint64_t>(kElems * n);
    auto* lsrc = rt.allocate_array<long long>(kElems * n);
    auto* ldst = rt.allocate_array<long long>(kElems);
    auto* usrc = rt.allocate_array<unsigned>(kElems * n);
    auto* udst = rt.allocate_array<unsigned>(kElems);
    DeviceArray<unsigned long long> bad;
    for (int group = 0; group < 3; ++group) {
      bad.zero();
      rt.barrier_all();
      const sd::Context ctx = rt.device_context();
      const std::uint64_t seed = run_seed() + group;
      if (group == 0)
        coll_groups<sd::ThreadGroup>
            <<<1, 1, 0, s>>>(ctx, 20, seed, src, dst, lsrc, ldst, usrc, udst, kElems, bad);
      if (group == 1)
        coll_groups<sd::WarpGroup>
            <<<1, 32, 0, s>>>(ctx, 40, seed, src, dst, lsrc, ldst, usrc, udst, kElems, bad);
      if (group == 2)
        coll_groups<sd::BlockGroup>
            <<<1, 256, 0, s>>>(ctx, 40, seed, src, dst, lsrc, ldst, usrc, udst, kElems, bad);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(s));
      EXPECT_EQ(bad.read(), 0u) << "group " << group;
      rt.barrier_all();
    }
  });
}

// getmem_on_stream: the next PE's block, in stream order behind a kernel that fills the source.
TEST_P(DeviceCoverageTest, GetmemOnStream) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes(), to = (me + 1) % n;
    PeStream s;
    constexpr std::size_t kBytes = (256 << 10) + 5;
    auto* sym = rt.allocate_array<unsigned char>(kBytes);
    DeviceArray<unsigned char> got(kBytes);
    std::vector<unsigned char> h(kBytes);
    for (std::size_t i = 0; i < kBytes; ++i)
      h[i] = static_cast<unsigned char>(gpattern(run_seed(), me, 33, i));
    CK(cudaMemcpy(sym, h.data(), kBytes, cudaMemcpyHostToDevice));
    rt.barrier_all();
    rt.getmem_on_stream(got, sym, kBytes, to, s);
    CK(cudaStreamSynchronize(s));
    std::vector<unsigned char> back(kBytes);
    CK(cudaMemcpy(back.data(), got, kBytes, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < kBytes; ++i)
      ASSERT_EQ(back[i], static_cast<unsigned char>(gpattern(run_seed(), to, 33, i)))
          << "byte " << i;
    rt.barrier_all();
    rt.free(sym);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, DeviceCoverageTest, ::testing::ValuesIn(gpu_thread_configs()),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing

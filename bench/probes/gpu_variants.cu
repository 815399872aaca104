// Probe: the variants behind symmetra-gpu-perf's rows (docs/perf_gpu.md), one GPU, 2 PEs as
// threads. Two parts:
// - the put_signal ping-pong with one primitive of the raw kernel swapped for the library's (the
//   store, the poll, the acquire after it), the raw kernel on symmetric-heap words and with both
//   flags in one line, and each half of the library's exchange against the raw other half;
// - the block put's copy loops: unrolled, streaming stores, grid-stride, the library's block put
//   in other piece sizes and grids, and the bulk-copy engine (TMA) through shared memory.
// Every copy is checked before it is timed, every ping-pong checks its last data word.
//   symmetra-probe-gpu [--quick]    (built with the benchmarks: bench/CMakeLists.txt)
#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include <cuda/atomic>

#include "cuda_check.cuh"
#include "gpu_kernels.cuh"
#include "perf_report.hpp"
#include "stream_timer.cuh"
#include "symmetra/device.hpp"
#include "symmetra/launch.hpp"
#include "symmetra/runtime.hpp"

namespace sd = symmetra::device;
using namespace symmetra::bench;

namespace {

bool g_quick = false;

// Ping-pong variants that swap one primitive of the raw kernel for the library's, to see which
// one costs. kStore 0: fence + volatile store, 1: atomic_ref release store (system), 2: as 1
// after a plain (weak) data store.
// kPoll 0: volatile loads, 1: atomic_ref relaxed loads (system), 2: the library's wait loop.
// kAcq 0: nothing after the poll, 1: an acquire load at GPU scope whose value is used (a
// discarded one is dropped by the compiler), 2: an acquire fence at GPU scope.
template <int kStore, int kPoll, int kAcq>
__global__ void variant_pingpong(sd::Context ctx, std::uint64_t* mine, std::uint64_t* theirs,
                                 std::uint64_t* their_data, int me, int iters,
                                 std::uint64_t* sink) {
  std::uint64_t acc = 0;
  auto send = [&](std::uint64_t i) {
    if (kStore == 2) {
      *their_data = 7;  // a plain (weak) store, as the library's copy makes
    } else {
      *reinterpret_cast<volatile std::uint64_t*>(their_data) = 7;
    }
    if (kStore == 0) {
      __threadfence_system();
      *reinterpret_cast<volatile std::uint64_t*>(theirs) = i;
    } else {
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*theirs).store(
          i, cuda::std::memory_order_release);
    }
  };
  auto wait = [&](std::uint64_t i) {
    if (kPoll == 0) {
      while (*reinterpret_cast<volatile std::uint64_t*>(mine) < i) {
      }
    } else if (kPoll == 1) {
      while (cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*mine).load(
                 cuda::std::memory_order_relaxed) < i) {
      }
    } else {
#if defined(__CUDA_ARCH__)
      std::uint64_t seen = 0;
      sd::detail::wait_relaxed(
          ctx, "bench", [&] { return (seen = sd::detail::poll_load(mine)) >= i; },
          [&](char* b, unsigned) { b[0] = 0; });
      acc += seen;
#endif
    }
    if (kAcq == 1)
      acc += cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*mine).load(
          cuda::std::memory_order_acquire);
    if (kAcq == 2)
      cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
  };
  for (int i = 1; i <= iters; ++i) {
    if (me == 0) {
      send(i);
      wait(i);
    } else {
      wait(i);
      send(i);
    }
  }
  if (acc == 42) *sink = acc;  // keeps the used loads used
}

// Halves of the library's exchange: its put_signal with a raw wait, and a raw send with its wait.
template <bool kLibSend>
__global__ void half_pingpong(sd::Context ctx, std::uint64_t* data, std::uint64_t* sig, int iters) {
  const int other = 1 - ctx.my_pe;
  const std::uint64_t v = 7;
  auto send = [&](std::uint64_t i) {
    if (kLibSend) {
      sd::put_signal(sd::ThreadGroup{}, ctx, data, &v, 1, sig, i, symmetra::SignalOp::kSet, other);
    } else {
      *reinterpret_cast<volatile std::uint64_t*>(ctx.peer(data, other)) = v;
      cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*ctx.peer(sig, other))
          .store(i, cuda::std::memory_order_release);
    }
  };
  auto wait = [&](std::uint64_t i) {
    if (kLibSend) {
      while (cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*sig).load(
                 cuda::std::memory_order_relaxed) < i) {
      }
      (void)cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*sig).load(
          cuda::std::memory_order_acquire);
    } else {
      sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, i);
    }
  };
  for (int i = 1; i <= iters; ++i) {
    if (ctx.my_pe == 0) {
      send(i);
      wait(i);
    } else {
      wait(i);
      send(i);
    }
  }
}

// The whole grid sweeps the buffer together (thread i copies vectors i, i + all threads, ...):
// at any moment the GPU touches one narrow window of addresses, unlike per-block slices.
__global__ void raw_gridstride(int4* dst, const int4* src, std::size_t vecs) {
  const std::size_t all = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = threadIdx.x + static_cast<std::size_t>(blockIdx.x) * blockDim.x;
  for (; i + 3 * all < vecs; i += 4 * all) {
    const int4 a = src[i], b = src[i + all], c = src[i + 2 * all], d = src[i + 3 * all];
    dst[i] = a;
    dst[i + all] = b;
    dst[i + 2 * all] = c;
    dst[i + 3 * all] = d;
  }
  for (; i < vecs; i += all) dst[i] = src[i];
}

// The bulk-copy engine (TMA, sm_90): one thread per block moves chunks global -> shared ->
// global with cp.async.bulk through kStages shared buffers; no registers carry the data. A
// candidate for the block put's large sizes (docs/perf_gpu.md#block-put).
constexpr int kBulkChunk = 32 << 10;
template <int kStages>
__global__ void bulk_copy(char* dst, const char* src, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) std::uint64_t bar[kStages];
  if (threadIdx.x != 0) return;
  const std::size_t chunks = bytes / kBulkChunk;  // whole chunks; bytes is a multiple here
  for (int s = 0; s < kStages; ++s) {
    const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar[s]));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto load = [&](std::size_t c, int s) {
    const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar[s]));
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem + s * kBulkChunk));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(kBulkChunk)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(d),
        "l"(src + c * kBulkChunk), "r"(kBulkChunk), "r"(b)
        : "memory");
  };
  std::size_t c = blockIdx.x;
  int issued = 0;
  for (int s = 0; s < kStages && c + static_cast<std::size_t>(s) * gridDim.x < chunks;
       ++s, ++issued)
    load(c + static_cast<std::size_t>(s) * gridDim.x, s);
  unsigned phase[kStages] = {};
  for (int k = 0; c < chunks; c += gridDim.x, ++k) {
    const int s = k % kStages;
    const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar[s]));
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
          "0, p; }"
          : "=r"(done)
          : "r"(b), "r"(phase[s])
          : "memory");
    phase[s] ^= 1;
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem + s * kBulkChunk));
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * kBulkChunk),
        "r"(d), "r"(kBulkChunk)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    const std::size_t next = c + static_cast<std::size_t>(kStages) * gridDim.x;
    if (next < chunks) {
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // stage s free again
      load(next, s);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  (void)issued;
#endif
}

void add(Report& r, const char* op, std::size_t bytes, const char* backend, double us,
         double gbps) {
  r.add(Row{op, bytes, 2, "device", backend, us, us, gbps});
}

// The ping-pong variants, two passes (the first warms up). Words: a symmetric block per PE of
// 16 words: [0] flag, [1] data, [2] flag for the one-line variant's other PE, [8] sink.
void pingpong_variants(symmetra::Runtime& rt, cudaStream_t s, Report& report) {
  const int me = rt.my_pe(), other = 1 - me;
  const sd::Context ctx = rt.device_context();
  auto* w = rt.allocate_array<std::uint64_t>(16);
  auto* sig = rt.allocate_array<std::uint64_t>(2);
  auto* data = rt.allocate_array<std::uint64_t>(2);
  const int iters = g_quick ? 2000 : 20000;
  std::uint64_t *m = w, *t = rt.ptr(w, other), *d = rt.ptr(w, other) + 1, *sink = w + 8;
  // Both flags and both data words in PE 0's block: one cache line.
  std::uint64_t* line = rt.ptr(w, 0) + 4;
  struct Variant {
    const char* name;
    std::function<void()> launch;
    const std::uint64_t* data;  // this PE's word the peer's last put wrote 7 into
  };
  const Variant variants[] = {
      {"symmetra", [&] { symmetra_pingpong<<<1, 1, 0, s>>>(ctx, data, sig, iters); }, data},
      {"raw_flags", [&] { raw_pingpong<<<1, 1, 0, s>>>(m, t, d, me, iters); }, w + 1},
      {"raw_flags_one_line",
       [&] { raw_pingpong<<<1, 1, 0, s>>>(line + me, line + other, line + 2 + other, me, iters); },
       line + 2 + me},
      {"var_release_store",
       [&] { variant_pingpong<1, 0, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_relaxed_poll",
       [&] { variant_pingpong<0, 1, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_acquire_load",
       [&] { variant_pingpong<0, 0, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_all_three",
       [&] { variant_pingpong<1, 1, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_acquire_fence",
       [&] { variant_pingpong<1, 0, 2><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_lib_wait_loop",
       [&] { variant_pingpong<1, 2, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_lib_loop_acquire_load",
       [&] { variant_pingpong<1, 2, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"var_weak_data_store",
       [&] { variant_pingpong<2, 0, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, iters, sink); }, w + 1},
      {"lib_send_raw_wait", [&] { half_pingpong<true><<<1, 1, 0, s>>>(ctx, data, sig, iters); },
       data},
      {"raw_send_lib_wait", [&] { half_pingpong<false><<<1, 1, 0, s>>>(ctx, data, sig, iters); },
       data},
  };
  for (int pass = 0; pass < 2; ++pass)
    for (const Variant& v : variants) {
      CK(cudaMemsetAsync(w, 0, 16 * sizeof(std::uint64_t), s));
      CK(cudaMemsetAsync(sig, 0, 2 * sizeof(std::uint64_t), s));
      CK(cudaMemsetAsync(data, 0, 2 * sizeof(std::uint64_t), s));
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      const float ms = once_ms(s, v.launch);
      std::uint64_t got = 0;
      CK(cudaMemcpyAsync(&got, v.data, sizeof(got), cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
      if (pass == 0 || me != 0) continue;
      if (got != 7)
        std::printf("%s: the peer's data word is %llu, not 7; not timed\n", v.name,
                    static_cast<unsigned long long>(got));
      else
        add(report, "put_signal_pingpong_rtt", 8, v.name, ms * 1e3 / iters, 0);
    }
  rt.free(data);
  rt.free(sig);
  rt.free(w);
}

// The block put's copy loops, PE 0 -> PE 1, each checked once (dest cleared) before it is timed.
void block_put_variants(symmetra::Runtime& rt, cudaStream_t s, Report& report) {
  const std::size_t max_bw = g_quick ? (256u << 20) : (1u << 30);
  auto* dst = static_cast<char*>(rt.allocate(max_bw));
  char* src = nullptr;
  CK(cudaMallocAsync(&src, max_bw, s));
  fill_pattern<<<512, 512, 0, s>>>(reinterpret_cast<int4*>(src), max_bw / 16);
  CK(cudaStreamSynchronize(s));
  rt.barrier_all();
  if (rt.my_pe() == 0) {
    const sd::Context ctx = rt.device_context();
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    char* peer = rt.ptr(dst, 1);
    auto* pd = reinterpret_cast<int4*>(peer);
    const auto* ps = reinterpret_cast<const int4*>(src);
    for (std::size_t bytes = 64u << 20; bytes <= max_bw; bytes *= 4) {
      const std::size_t vecs = bytes / 16;
      std::vector<std::pair<std::string, std::function<void()>>> ways = {
          {"symmetra_1wave", [&] { block_put<<<sms * 2, 1024, 0, s>>>(ctx, dst, src, bytes, 1); }},
          {"raw_unroll8", [&] { raw_copy<8, false><<<sms * 2, 1024, 0, s>>>(pd, ps, vecs); }},
          {"raw_unroll4_stcs", [&] { raw_copy<4, true><<<sms * 4, 1024, 0, s>>>(pd, ps, vecs); }},
          {"raw_unroll8_stcs_512",
           [&] { raw_copy<8, true><<<sms * 2, 512, 0, s>>>(pd, ps, vecs); }},
          {"raw_gridstride_x2", [&] { raw_gridstride<<<sms * 2, 1024, 0, s>>>(pd, ps, vecs); }},
          {"raw_gridstride_x4", [&] { raw_gridstride<<<sms * 4, 1024, 0, s>>>(pd, ps, vecs); }},
          {"symmetra_interleaved64k_x2",
           [&] {
             block_put_interleaved<64 << 10><<<sms * 2, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
           }},
          {"symmetra_interleaved1m_x2",
           [&] {
             block_put_interleaved<1 << 20><<<sms * 2, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
           }},
          {"symmetra_interleaved1m_x4",
           [&] {
             block_put_interleaved<1 << 20><<<sms * 4, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
           }},
      };
      for (int stages : {1, 2, 4, 6}) {
        const int shm = stages * kBulkChunk;
        auto fn = stages == 1   ? bulk_copy<1>
                  : stages == 2 ? bulk_copy<2>
                  : stages == 4 ? bulk_copy<4>
                                : bulk_copy<6>;
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, shm));
        for (int per_sm : {1, 2, 4}) {
          if (per_sm * shm > 220 * 1024) continue;
          ways.emplace_back(
              "raw_bulk_tma_s" + std::to_string(stages) + "_x" + std::to_string(per_sm),
              [=, &s] { fn<<<sms * per_sm, 32, shm, s>>>(peer, src, bytes); });
        }
      }
      for (const auto& [name, launch] : ways) {
        CK(cudaMemsetAsync(peer, 0, bytes, s));
        launch();
        CK(cudaGetLastError());
        unsigned long long* diff = nullptr;
        CK(cudaMallocAsync(&diff, sizeof(*diff), s));
        CK(cudaMemsetAsync(diff, 0, sizeof(*diff), s));
        count_diff<<<512, 512, 0, s>>>(pd, ps, vecs, diff);
        unsigned long long h = 0;
        CK(cudaMemcpyAsync(&h, diff, sizeof(h), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaFreeAsync(diff, s));
        if (h != 0) {
          std::printf("%s: %llu of %zu 16-byte words wrong; not timed\n", name.c_str(), h, vecs);
          continue;
        }
        const float ms = median_ms(s, 5, launch);
        add(report, "block_put_bw", bytes, name.c_str(), ms * 1e3, bytes / (ms * 1e6));
      }
    }
  }
  CK(cudaFreeAsync(src, s));
  CK(cudaStreamSynchronize(s));
  rt.free(dst);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) g_quick |= std::strcmp(argv[i], "--quick") == 0;
  const std::size_t max_bw = g_quick ? (256u << 20) : (1u << 30);
  setenv("SYMMETRA_SYMMETRIC_SIZE", std::to_string(max_bw + (64u << 20)).c_str(), 0);
  setenv("SYMMETRA_MAX_SYMMETRIC_SIZE", std::to_string(2 * max_bw + (64u << 20)).c_str(), 0);
  Report report;
  symmetra::launch_threads(2, symmetra::RuntimeOptions{symmetra::Backend::kCuda, -1},
                           [&](symmetra::Runtime& rt) {
                             cudaStream_t s;
                             CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
                             pingpong_variants(rt, s, report);
                             block_put_variants(rt, s, report);
                             rt.barrier_all();
                             CK(cudaStreamDestroy(s));
                           });
  report.table();
  return 0;
}

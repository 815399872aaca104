// symmetra-gpu-perf: device-initiated and stream-ordered costs on one GPU, 2 PEs as threads,
// each measured side by side with a raw baseline written here (ratios in one run).
//
//   symmetra-gpu-perf [--quick]
//   symmetra-gpu-perf --remote [--quick]   (GPU-initiated operations across forced hosts, through
//                                           the proxy ring: gpu_remote_perf.cu)
//
// Rows: put_signal ping-pong vs a raw flag ping-pong kernel; block put bandwidth vs cudaMemcpy
// device-to-device (64 MiB - 1 GiB); on-stream signal ping-pong vs raw cuStreamWriteValue64 /
// cuStreamWaitValue64; p / put / g / get latency and bandwidth 8 B - 1 MiB with thread, warp
// and block groups, to the other PE (on a second GPU where there is one) and to itself. Times come
// from CUDA events around whole loops after a warm-up; medians of 5 runs.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cuda/atomic>

#include "cuda_check.cuh"
#include "perf_report.hpp"
#include "stream_timer.cuh"
#include "symmetra/device.hpp"
#include "symmetra/launch.hpp"

namespace sd = symmetra::device;

// The rows of PEs on two forced hosts (gpu_remote_perf.cu): `symmetra-gpu-perf --remote`.
int gpu_remote_perf(bool quick);
using symmetra::bench::median_ms;
using symmetra::bench::Report;
using symmetra::bench::Row;

namespace {

bool g_quick = false;

void add(Report& r, const char* op, std::size_t bytes, const char* form, const char* backend,
         double us, double gbps) {
  r.add(Row{op, bytes, 2, form, backend, us, us, gbps});
}

// Stream-ordered allocations of this GPU readable and writable by every GPU that can reach it:
// the raw baselines put to the peer's own buffer, which on two GPUs lives on the other one
// (peer access for the pool is not implied by cudaDeviceEnablePeerAccess).
void grant_pool_to_peers() {
  int dev = 0, count = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceCount(&count) != cudaSuccess) return;
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) return;
  for (int other = 0; other < count; ++other) {
    int can = 0;
    if (other == dev || cudaDeviceCanAccessPeer(&can, other, dev) != cudaSuccess || !can) continue;
    cudaMemAccessDesc d{};
    d.location.type = cudaMemLocationTypeDevice;
    d.location.id = other;
    d.flags = cudaMemAccessFlagsProtReadWrite;
    (void)cudaMemPoolSetAccess(pool, &d, 1);
  }
}

// --- ping-pong kernels: PE 0 starts, PE 1 answers; `iters` round trips -------------------------
__global__ void symmetra_pingpong(sd::Context ctx, std::uint64_t* data, std::uint64_t* sig,
                                  int iters) {
  const int other = 1 - ctx.my_pe;
  const std::uint64_t v = 7;
  for (int i = 1; i <= iters; ++i) {
    if (ctx.my_pe == 0) {
      sd::put_signal(sd::ThreadGroup{}, ctx, data, &v, 1, sig, static_cast<std::uint64_t>(i),
                     symmetra::SignalOp::kSet, other);
      sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, static_cast<std::uint64_t>(i));
    } else {
      sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, static_cast<std::uint64_t>(i));
      sd::put_signal(sd::ThreadGroup{}, ctx, data, &v, 1, sig, static_cast<std::uint64_t>(i),
                     symmetra::SignalOp::kSet, other);
    }
  }
}

// The baseline: the same exchange with volatile flags and a system fence, nothing else.
__global__ void raw_pingpong(volatile std::uint64_t* mine, volatile std::uint64_t* theirs,
                             volatile std::uint64_t* their_data, int me, int iters) {
  for (int i = 1; i <= iters; ++i) {
    if (me == 0) {
      *their_data = 7;
      __threadfence_system();
      *theirs = i;
      while (*mine < static_cast<std::uint64_t>(i)) {
      }
    } else {
      while (*mine < static_cast<std::uint64_t>(i)) {
      }
      *their_data = 7;
      __threadfence_system();
      *theirs = i;
    }
  }
}

// quiet by one thread of the group, then a group sync: what NVSHMEM's program does too.
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

template <class Group>
__global__ void put_loop(sd::Context ctx, void* dst, const void* src, std::size_t bytes, int pe,
                         int iters, bool quiet) {
  Group g;
  for (int i = 0; i < iters; ++i) {
    sd::putmem(g, ctx, dst, src, bytes, pe);
    if (quiet && g.thread_rank() == 0) sd::quiet(ctx);
    g.sync();
  }
}

// `iters` gets of `bytes` from PE `pe` into this PE's private `dst`: a get completes on return,
// so each one is a full round trip.
template <class Group>
__global__ void get_loop(sd::Context ctx, void* dst, const void* src, std::size_t bytes, int pe,
                         int iters) {
  Group g;
  for (int i = 0; i < iters; ++i) {
    sd::getmem(g, ctx, dst, src, bytes, pe);
    g.sync();
  }
}

// `iters` dependent g's (each address depends on the last value, so they cannot overlap).
__global__ void g_loop(sd::Context ctx, const std::uint64_t* src, int pe, int iters,
                       std::uint64_t* sink) {
  std::uint64_t v = 0;
  for (int i = 0; i < iters; ++i) v += sd::g(ctx, src + (v & 1), pe);
  *sink = v;
}

// Candidate bulk-copy loops for the block put, measured against the library's (raw kernels).
template <int kUnroll, bool kStreaming>
__global__ void raw_copy(int4* dst, const int4* src, std::size_t vecs) {
  const std::size_t per = (vecs + gridDim.x - 1) / gridDim.x;
  const std::size_t lo = per * blockIdx.x, hi = lo + per < vecs ? lo + per : vecs;
  const std::size_t n = blockDim.x;
  std::size_t i = lo + threadIdx.x;
  for (; i + (kUnroll - 1) * n < hi; i += kUnroll * n) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * n];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (kStreaming)
        __stcs(&dst[i + u * n], v[u]);
      else
        dst[i + u * n] = v[u];
    }
  }
  for (; i < hi; i += n) dst[i] = src[i];
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

__global__ void fill_pattern(int4* p, std::size_t vecs) {
  for (std::size_t i = threadIdx.x + static_cast<std::size_t>(blockIdx.x) * blockDim.x; i < vecs;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const int v = static_cast<int>(i);
    p[i] = make_int4(v, v ^ 0x5555, v * 3 + 1, ~v);
  }
}

// Counts 16-byte words that differ between a and b (checks a candidate copy before timing it).
__global__ void count_diff(const int4* a, const int4* b, std::size_t vecs,
                           unsigned long long* diff) {
  for (std::size_t i = threadIdx.x + static_cast<std::size_t>(blockIdx.x) * blockDim.x; i < vecs;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const int4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(diff, 1ull);
  }
}

__global__ void p_loop(sd::Context ctx, std::uint64_t* dst, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    sd::p(ctx, dst, static_cast<std::uint64_t>(i), pe);
    sd::quiet(ctx);
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

// Block puts of kChunk-byte pieces dealt round-robin to the blocks (piece c to block c % grid):
// the library's put, with the grid sweeping one window of addresses.
template <std::size_t kChunk>
__global__ void block_put_interleaved(sd::Context ctx, char* dst, const char* src,
                                      std::size_t bytes, int pe) {
  for (std::size_t lo = kChunk * blockIdx.x; lo < bytes; lo += kChunk * gridDim.x)
    sd::putmem(sd::BlockGroup{}, ctx, dst + lo, src + lo, kChunk < bytes - lo ? kChunk : bytes - lo,
               pe);
}

// Many blocks, each putting its slice with the block group.
__global__ void block_put(sd::Context ctx, char* dst, const char* src, std::size_t bytes, int pe) {
  const std::size_t per = (bytes / gridDim.x + 15) & ~std::size_t{15};
  const std::size_t lo = per * blockIdx.x;
  if (lo >= bytes) return;
  sd::putmem(sd::BlockGroup{}, ctx, dst + lo, src + lo, per < bytes - lo ? per : bytes - lo, pe);
}

}  // namespace

int main(int argc, char** argv) {
  bool remote = false;
  for (int i = 1; i < argc; ++i) {
    g_quick |= std::strcmp(argv[i], "--quick") == 0;
    remote |= std::strcmp(argv[i], "--remote") == 0;
  }
  if (remote) return gpu_remote_perf(g_quick);
  const std::size_t max_bw = g_quick ? (256u << 20) : (1u << 30);
  setenv("SYMMETRA_SYMMETRIC_SIZE", std::to_string(max_bw + (64u << 20)).c_str(), 0);
  setenv("SYMMETRA_MAX_SYMMETRIC_SIZE", std::to_string(2 * max_bw + (64u << 20)).c_str(), 0);
  Report report;
  const int runs = 5;
  // Host threads of the two PEs meet here to start timed kernels together.
  std::atomic<int> arrived{0};
  auto meet = [&](int round) {
    arrived.fetch_add(1);
    while (arrived.load() < 2 * round) std::this_thread::yield();
  };
  int round = 0;
  symmetra::launch_threads(
      2, symmetra::RuntimeOptions{symmetra::Backend::kCuda, -1}, [&](symmetra::Runtime& rt) {
        const int me = rt.my_pe();
        int my_round = 0;
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        const sd::Context ctx = rt.device_context();
        auto* sig = rt.allocate_array<std::uint64_t>(4);
        auto* data = rt.allocate_array<std::uint64_t>(4);
        const int pp_iters = g_quick ? 2000 : 20000;

        // 1. put_signal ping-pong vs raw flags.
        {
          double us_sym = 0, us_raw = 0;
          // Each PE's flag and data word in its own allocation, as on two GPUs: [0] flag, [1] data.
          static std::uint64_t* own[2] = {nullptr, nullptr};
          grant_pool_to_peers();  // the peer PE may run on another GPU
          CK(cudaMallocAsync(&own[me], 256, s));
          const char* variant_names[] = {
              "var_release_store", "var_relaxed_poll",          "var_acquire_load",
              "var_all_three",     "raw_flags_on_heap",         "raw_flags_one_line",
              "lib_send_raw_wait", "raw_send_lib_wait",         "var_acquire_fence",
              "var_lib_wait_loop", "var_lib_loop_acquire_load", "var_weak_data_store"};
          double us_var[12] = {};
          std::uint64_t* line = own[0];  // PE 0's buffer holds both flags for the one-line variant
          // Two passes over every variant; only the second is kept, so that none pays the warm-up
          // (first launches, clocks ramping) that the first kernel measured would otherwise carry.
          for (int step = 0; step < 28; ++step) {
            const int rep = step % 14;
            CK(cudaMemsetAsync(sig, 0, 4 * sizeof(std::uint64_t), s));
            CK(cudaMemsetAsync(own[me], 0, 256, s));
            CK(cudaStreamSynchronize(s));
            rt.barrier_all();
            line = own[0];
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            if (rep == 0 || rep == 8 || rep == 9) {
              CK(cudaEventRecord(a, s));
              if (rep == 0) symmetra_pingpong<<<1, 1, 0, s>>>(ctx, data, sig, pp_iters);
              if (rep == 8) half_pingpong<true><<<1, 1, 0, s>>>(ctx, data, sig, pp_iters);
              if (rep == 9) half_pingpong<false><<<1, 1, 0, s>>>(ctx, data, sig, pp_iters);
            } else {
              CK(cudaEventRecord(a, s));
              std::uint64_t *m = own[me], *t = own[1 - me], *d = own[1 - me] + 1;
              std::uint64_t* sink = own[me] + 8;
              if (rep == 6) {  // the raw kernel on symmetric-heap words
                m = &sig[2];
                t = rt.ptr(&sig[2], 1 - me);
                d = rt.ptr(&data[2], 1 - me);
              }
              if (rep == 7) {  // both flags in one cache line of one allocation
                m = line + me;
                t = line + (1 - me);
                d = line + 2 + (1 - me);
              }
              if (rep == 6 || rep == 7) raw_pingpong<<<1, 1, 0, s>>>(m, t, d, me, pp_iters);
              if (rep == 10)
                variant_pingpong<1, 0, 2><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 11)
                variant_pingpong<1, 2, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 12)
                variant_pingpong<1, 2, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 1) raw_pingpong<<<1, 1, 0, s>>>(m, t, d, me, pp_iters);
              if (rep == 2)
                variant_pingpong<1, 0, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 3)
                variant_pingpong<0, 1, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 4)
                variant_pingpong<0, 0, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 5)
                variant_pingpong<1, 1, 1><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
              if (rep == 13)
                variant_pingpong<2, 0, 0><<<1, 1, 0, s>>>(ctx, m, t, d, me, pp_iters, sink);
            }
            CK(cudaEventRecord(b, s));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            const double us = ms * 1e3 / pp_iters;
            if (step < 14) {
            } else if (rep == 0) {
              us_sym = us;
            } else if (rep == 1) {
              us_raw = us;
            } else {
              us_var[rep - 2] = us;
            }
            rt.barrier_all();
          }
          CK(cudaFreeAsync(own[me], s));
          CK(cudaStreamSynchronize(s));
          if (me == 0) {
            add(report, "put_signal_pingpong_rtt", 8, "device", "symmetra", us_sym, 0);
            add(report, "put_signal_pingpong_rtt", 8, "device", "raw_flags", us_raw, 0);
            for (int v = 0; v < 12; ++v)
              add(report, "put_signal_pingpong_rtt", 8, "device", variant_names[v], us_var[v], 0);
          }
        }

        // 2. Block put bandwidth vs cudaMemcpy device-to-device (PE 0 -> PE 1 on the same GPU).
        {
          auto* dst = static_cast<char*>(rt.allocate(max_bw));
          char* src = nullptr;
          CK(cudaMallocAsync(&src, max_bw, s));
          fill_pattern<<<512, 512, 0, s>>>(reinterpret_cast<int4*>(src),
                                           max_bw / 16);  // distinct words: a misplaced chunk shows
          CK(cudaStreamSynchronize(s));
          rt.barrier_all();
          if (me == 0) {
            int sms = 0;
            CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
            for (std::size_t bytes = 64u << 20; bytes <= max_bw; bytes *= 4) {
              const float sym = median_ms(
                  s, runs, [&] { block_put<<<sms * 4, 1024, 0, s>>>(ctx, dst, src, bytes, 1); });
              const float wave = median_ms(
                  s, runs, [&] { block_put<<<sms * 2, 1024, 0, s>>>(ctx, dst, src, bytes, 1); });
              add(report, "block_put_bw", bytes, "device", "symmetra_1wave", wave * 1e3,
                  bytes / (wave * 1e6));
              int4* pd = reinterpret_cast<int4*>(rt.ptr(dst, 1));
              const int4* ps = reinterpret_cast<const int4*>(src);
              const std::size_t vecs = bytes / 16;
              const float u4 = median_ms(
                  s, runs, [&] { raw_copy<4, false><<<sms * 4, 1024, 0, s>>>(pd, ps, vecs); });
              const float u8 = median_ms(
                  s, runs, [&] { raw_copy<8, false><<<sms * 2, 1024, 0, s>>>(pd, ps, vecs); });
              const float cs = median_ms(
                  s, runs, [&] { raw_copy<4, true><<<sms * 4, 1024, 0, s>>>(pd, ps, vecs); });
              const float c8 = median_ms(
                  s, runs, [&] { raw_copy<8, true><<<sms * 2, 512, 0, s>>>(pd, ps, vecs); });
              add(report, "block_put_bw", bytes, "device", "raw_unroll4", u4 * 1e3,
                  bytes / (u4 * 1e6));
              add(report, "block_put_bw", bytes, "device", "raw_unroll8", u8 * 1e3,
                  bytes / (u8 * 1e6));
              add(report, "block_put_bw", bytes, "device", "raw_unroll4_stcs", cs * 1e3,
                  bytes / (cs * 1e6));
              add(report, "block_put_bw", bytes, "device", "raw_unroll8_stcs_512", c8 * 1e3,
                  bytes / (c8 * 1e6));
              for (int per_sm : {2, 4}) {
                const float g = median_ms(
                    s, runs, [&] { raw_gridstride<<<sms * per_sm, 1024, 0, s>>>(pd, ps, vecs); });
                add(report, "block_put_bw", bytes, "device",
                    per_sm == 2 ? "raw_gridstride_x2" : "raw_gridstride_x4", g * 1e3,
                    bytes / (g * 1e6));
                if (per_sm == 2) {  // 64 KiB pieces on 4 blocks per SM are the "symmetra" row below
                  const float i64 = median_ms(s, runs, [&] {
                    block_put_interleaved<64 << 10>
                        <<<sms * 2, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
                  });
                  add(report, "block_put_bw", bytes, "device", "symmetra_interleaved64k_x2",
                      i64 * 1e3, bytes / (i64 * 1e6));
                }
                const float i1m = median_ms(s, runs, [&] {
                  block_put_interleaved<1 << 20>
                      <<<sms * per_sm, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
                });
                add(report, "block_put_bw", bytes, "device",
                    per_sm == 2 ? "symmetra_interleaved1m_x2" : "symmetra_interleaved1m_x4",
                    i1m * 1e3, bytes / (i1m * 1e6));
              }
              for (int stages : {1, 2, 4, 6}) {
                const int shm = stages * kBulkChunk;
                auto fn = stages == 1   ? bulk_copy<1>
                          : stages == 2 ? bulk_copy<2>
                          : stages == 4 ? bulk_copy<4>
                                        : bulk_copy<6>;
                CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, shm));
                for (int per_sm : {1, 2, 4}) {
                  if (per_sm * shm > 220 * 1024) continue;
                  const std::string name =
                      "raw_bulk_tma_s" + std::to_string(stages) + "_x" + std::to_string(per_sm);
                  CK(cudaMemsetAsync(rt.ptr(dst, 1), 0, bytes, s));
                  fn<<<sms * per_sm, 32, shm, s>>>(rt.ptr(dst, 1), src, bytes);
                  CK(cudaGetLastError());
                  unsigned long long* diff = nullptr;
                  CK(cudaMallocAsync(&diff, sizeof(*diff), s));
                  CK(cudaMemsetAsync(diff, 0, sizeof(*diff), s));
                  count_diff<<<sms * 4, 512, 0, s>>>(reinterpret_cast<const int4*>(rt.ptr(dst, 1)),
                                                     reinterpret_cast<const int4*>(src), bytes / 16,
                                                     diff);
                  unsigned long long h = 0;
                  CK(cudaMemcpyAsync(&h, diff, sizeof(h), cudaMemcpyDeviceToHost, s));
                  CK(cudaStreamSynchronize(s));
                  CK(cudaFreeAsync(diff, s));
                  if (h != 0) {
                    std::printf("%s: %llu of %zu 16-byte words wrong; not timed\n", name.c_str(), h,
                                bytes / 16);
                    continue;
                  }
                  const float t = median_ms(s, runs, [&] {
                    fn<<<sms * per_sm, 32, shm, s>>>(rt.ptr(dst, 1), src, bytes);
                  });
                  add(report, "block_put_bw", bytes, "device", name.c_str(), t * 1e3,
                      bytes / (t * 1e6));
                }
              }
              char* peer = rt.ptr(dst, 1);
              const float copy = median_ms(s, runs, [&] {
                CK(cudaMemcpyAsync(peer, src, bytes, cudaMemcpyDeviceToDevice, s));
              });
              // "symmetra": block puts of 64 KiB pieces dealt round-robin to 4 blocks per SM, the
              // way docs/perf_gpu.md#block-put recommends for grid-wide transfers (the grid sweeps
              // one window of addresses); "symmetra_block_slices": each block puts one contiguous
              // slice.
              const float il = median_ms(s, runs, [&] {
                block_put_interleaved<64 << 10><<<sms * 4, 1024, 0, s>>>(ctx, dst, src, bytes, 1);
              });
              add(report, "block_put_bw", bytes, "device", "symmetra", il * 1e3,
                  bytes / (il * 1e6));
              add(report, "block_put_bw", bytes, "device", "symmetra_block_slices", sym * 1e3,
                  bytes / (sym * 1e6));
              add(report, "block_put_bw", bytes, "device", "cudaMemcpy", copy * 1e3,
                  bytes / (copy * 1e6));
            }
          }
          CK(cudaFreeAsync(src, s));
          CK(cudaStreamSynchronize(s));
          rt.free(dst);
        }

        // 3. On-stream signal ping-pong vs raw stream memory operations.
        {
          const int iters = g_quick ? 500 : 2000;
          CUstream cs = reinterpret_cast<CUstream>(s);
          symmetra::Stream st = reinterpret_cast<symmetra::Stream>(s);
          for (int rep = 0; rep < 2; ++rep) {
            CK(cudaMemsetAsync(sig, 0, 4 * sizeof(std::uint64_t), s));
            CK(cudaStreamSynchronize(s));
            rt.barrier_all();
            meet(++my_round);
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            CK(cudaEventRecord(a, s));
            for (int i = 1; i <= iters; ++i) {
              const std::uint64_t v = static_cast<std::uint64_t>(i);
              if (rep == 0) {
                if (me == 0) rt.signal_op_on_stream(&sig[0], v, symmetra::SignalOp::kSet, 1, st);
                rt.signal_wait_until_on_stream(&sig[0], symmetra::Cmp::kGe, v, st);
                if (me == 1) rt.signal_op_on_stream(&sig[0], v, symmetra::SignalOp::kSet, 0, st);
              } else {
                auto mine = reinterpret_cast<CUdeviceptr>(&sig[1]);
                auto theirs = reinterpret_cast<CUdeviceptr>(rt.ptr(&sig[1], 1 - me));
                if (me == 0) cuStreamWriteValue64(cs, theirs, v, CU_STREAM_WRITE_VALUE_DEFAULT);
                cuStreamWaitValue64(cs, mine, v, CU_STREAM_WAIT_VALUE_GEQ);
                if (me == 1) cuStreamWriteValue64(cs, theirs, v, CU_STREAM_WRITE_VALUE_DEFAULT);
              }
            }
            CK(cudaEventRecord(b, s));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            if (me == 0)
              add(report, "stream_signal_pingpong_rtt", 8, "stream",
                  rep == 0 ? "symmetra" : "raw_stream_memops", ms * 1e3 / iters, 0);
            rt.barrier_all();
          }
        }

        // 4. p, put, g and get latency / bandwidth, thread / warp / block, PE 0 -> PE 1 and PE 0 ->
        //    itself.
        {
          const std::size_t max = 1u << 20;
          auto* dst = static_cast<char*>(rt.allocate(max));
          char* src = nullptr;
          CK(cudaMallocAsync(&src, max, s));
          CK(cudaMemsetAsync(src, 3, max, s));
          CK(cudaMemsetAsync(dst, 0, max, s));
          CK(cudaStreamSynchronize(s));
          rt.barrier_all();
          if (me == 0) {
            for (int target : {1, 0}) {
              const char* backend = target == 1 ? "symmetra_peer" : "symmetra_self";
              const int iters = g_quick ? 200 : 1000;
              const float pm = median_ms(s, runs, [&] {
                p_loop<<<1, 1, 0, s>>>(ctx, reinterpret_cast<std::uint64_t*>(dst), target, iters);
              });
              add(report, "p_lat", 8, "thread", backend, pm * 1e3 / iters, 0);
              const float gm = median_ms(s, runs, [&] {
                g_loop<<<1, 1, 0, s>>>(ctx, reinterpret_cast<const std::uint64_t*>(dst), target,
                                       iters, reinterpret_cast<std::uint64_t*>(src));
              });
              add(report, "g_lat", 8, "thread", backend, gm * 1e3 / iters, 0);
              for (std::size_t bytes = 8; bytes <= max; bytes *= (g_quick ? 16 : 4)) {
                const int it =
                    static_cast<int>(std::clamp<std::size_t>((64u << 20) / bytes, 20, iters));
                const float t1 = median_ms(s, runs, [&] {
                  put_loop<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, dst, src, bytes, target, it, true);
                });
                const float t2 = median_ms(s, runs, [&] {
                  put_loop<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, dst, src, bytes, target, it, true);
                });
                const float t3 = median_ms(s, runs, [&] {
                  put_loop<sd::BlockGroup>
                      <<<1, 1024, 0, s>>>(ctx, dst, src, bytes, target, it, true);
                });
                add(report, "put_lat", bytes, "thread", backend, t1 * 1e3 / it,
                    bytes / (t1 * 1e6 / it));
                add(report, "put_lat", bytes, "warp", backend, t2 * 1e3 / it,
                    bytes / (t2 * 1e6 / it));
                add(report, "put_lat", bytes, "block", backend, t3 * 1e3 / it,
                    bytes / (t3 * 1e6 / it));
                const float u1 = median_ms(s, runs, [&] {
                  get_loop<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, src, dst, bytes, target, it);
                });
                const float u2 = median_ms(s, runs, [&] {
                  get_loop<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, src, dst, bytes, target, it);
                });
                const float u3 = median_ms(s, runs, [&] {
                  get_loop<sd::BlockGroup><<<1, 1024, 0, s>>>(ctx, src, dst, bytes, target, it);
                });
                add(report, "get_lat", bytes, "thread", backend, u1 * 1e3 / it,
                    bytes / (u1 * 1e6 / it));
                add(report, "get_lat", bytes, "warp", backend, u2 * 1e3 / it,
                    bytes / (u2 * 1e6 / it));
                add(report, "get_lat", bytes, "block", backend, u3 * 1e3 / it,
                    bytes / (u3 * 1e6 / it));
              }
            }
          }
          CK(cudaFreeAsync(src, s));
          CK(cudaStreamSynchronize(s));
          rt.free(dst);
        }
        (void)round;
        rt.barrier_all();
        CK(cudaStreamDestroy(s));
      });
  report.table();
  return 0;
}

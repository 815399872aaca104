// symmetra-gpu-perf: device-initiated and stream-ordered costs on one GPU, 2 PEs as threads,
// each measured side by side with a raw baseline written here (ratios in one run).
//
//   symmetra-gpu-perf [--quick]
//   symmetra-gpu-perf --remote [--quick]   (GPU-initiated operations across forced hosts, through
//                                           the proxy ring: gpu_remote_perf.cu)
//
// Rows: put_signal ping-pong vs a raw flag ping-pong kernel; block put bandwidth vs a raw copy
// kernel and cudaMemcpy device-to-device (64 MiB - 1 GiB), each copy checked before it is
// timed; on-stream signal ping-pong vs raw cuStreamWriteValue64 /
// cuStreamWaitValue64; p / put / g / get latency and bandwidth 8 B - 1 MiB with thread, warp
// and block groups, to the other PE (on a second GPU where there is one) and to itself. Times come
// from CUDA events around whole loops after a warm-up; medians of 5 runs. The variants that
// explain these rows (which primitive of the ping-pong costs, other copy loops) are
// bench/probes/gpu_variants.cu's.
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
#include "gpu_kernels.cuh"
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
using namespace symmetra::bench;  // the shared kernels (gpu_kernels.cuh)

namespace {

bool g_quick = false;
constexpr int kRuns = 5;

void add(Report& r, const char* op, std::size_t bytes, const char* form, const char* backend,
         double us, double gbps) {
  r.add(Row{op, bytes, 2, form, backend, us, us, gbps});
}

// quiet by one thread of the group, then a group sync: what NVSHMEM's program does too.
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

__global__ void p_loop(sd::Context ctx, std::uint64_t* dst, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    sd::p(ctx, dst, static_cast<std::uint64_t>(i), pe);
    sd::quiet(ctx);
  }
}

// What a section of the benchmark runs on: one PE of the two (threads of this process).
struct Pe {
  symmetra::Runtime& rt;
  cudaStream_t s;
  sd::Context ctx;
  int me;
  Report& report;
  std::function<void(int)> meet;  // the host threads of both PEs meet (round number)
  int round = 0;
};

// Stream-ordered allocations of this GPU readable and writable by every GPU that can reach it:
// the raw baseline puts to the peer's own buffer, which on two GPUs lives on the other one
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

// 1. put_signal ping-pong against raw flags (each PE's flag and data word in its own allocation,
// as on two GPUs: [0] flag, [1] data): two passes of both, only the second kept, so that neither
// pays the warm-up (first launches, clocks ramping). Each pass checks that the last put's data
// arrived before its time counts.
void pingpong_rows(Pe& p) {
  auto* sig = p.rt.allocate_array<std::uint64_t>(1);
  auto* data = p.rt.allocate_array<std::uint64_t>(1);
  static std::uint64_t* own[2] = {nullptr, nullptr};
  grant_pool_to_peers();  // the peer PE may run on another GPU
  CK(cudaMallocAsync(&own[p.me], 256, p.s));
  const int iters = g_quick ? 2000 : 20000;
  const int other = 1 - p.me;
  double us[2] = {0, 0};
  bool ok[2] = {true, true};
  for (int step = 0; step < 4; ++step) {
    const int which = step % 2;  // 0: symmetra, 1: raw flags
    CK(cudaMemsetAsync(sig, 0, sizeof(std::uint64_t), p.s));
    CK(cudaMemsetAsync(data, 0, sizeof(std::uint64_t), p.s));
    CK(cudaMemsetAsync(own[p.me], 0, 256, p.s));
    CK(cudaStreamSynchronize(p.s));
    p.rt.barrier_all();  // also: both PEs' own[] are set
    const float ms = once_ms(p.s, [&] {
      if (which == 0)
        symmetra_pingpong<<<1, 1, 0, p.s>>>(p.ctx, data, sig, iters);
      else
        raw_pingpong<<<1, 1, 0, p.s>>>(own[p.me], own[other], own[other] + 1, p.me, iters);
    });
    std::uint64_t got = 0;
    CK(cudaMemcpyAsync(&got, which == 0 ? data : own[p.me] + 1, sizeof(got), cudaMemcpyDeviceToHost,
                       p.s));
    CK(cudaStreamSynchronize(p.s));
    if (got != 7) ok[which] = false;
    if (step >= 2) us[which] = ms * 1e3 / iters;
    p.rt.barrier_all();
  }
  if (p.me == 0)
    for (int which : {0, 1}) {
      const char* name = which == 0 ? "symmetra" : "raw_flags";
      if (!ok[which]) {
        std::printf("put_signal_pingpong_rtt %s: the peer's data word is not 7; not timed\n", name);
        continue;
      }
      add(p.report, "put_signal_pingpong_rtt", 8, "device", name, us[which], 0);
    }
  p.rt.barrier_all();  // the peer is done with own[p.me]
  CK(cudaFreeAsync(own[p.me], p.s));
  CK(cudaStreamSynchronize(p.s));
  p.rt.free(data);
  p.rt.free(sig);
}

// Whether dst (bytes of device memory) holds src's bytes; prints what differs if not.
bool same(cudaStream_t s, const char* name, const char* dst, const char* src, std::size_t bytes) {
  unsigned long long* diff = nullptr;
  CK(cudaMallocAsync(&diff, sizeof(*diff), s));
  CK(cudaMemsetAsync(diff, 0, sizeof(*diff), s));
  count_diff<<<512, 512, 0, s>>>(reinterpret_cast<const int4*>(dst),
                                 reinterpret_cast<const int4*>(src), bytes / 16, diff);
  unsigned long long h = 0;
  CK(cudaMemcpyAsync(&h, diff, sizeof(h), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaFreeAsync(diff, s));
  if (h != 0) std::printf("%s: %llu of %zu 16-byte words wrong; not timed\n", name, h, bytes / 16);
  return h == 0;
}

// 2. Block put bandwidth, PE 0 -> PE 1 on the same GPU: the library's block put (64 KiB pieces
// dealt round-robin to 4 blocks per SM, as docs/perf_gpu.md#block-put recommends for grid-wide
// transfers; "symmetra_block_slices": one contiguous slice per block) against a raw copy kernel
// and cudaMemcpy. Each copy is checked once (dest cleared first) before it is timed.
void block_put_rows(Pe& p, std::size_t max_bw) {
  auto* dst = static_cast<char*>(p.rt.allocate(max_bw));
  char* src = nullptr;
  CK(cudaMallocAsync(&src, max_bw, p.s));
  fill_pattern<<<512, 512, 0, p.s>>>(reinterpret_cast<int4*>(src),
                                     max_bw / 16);  // distinct words: a misplaced chunk shows
  CK(cudaStreamSynchronize(p.s));
  p.rt.barrier_all();
  if (p.me == 0) {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    char* peer = p.rt.ptr(dst, 1);
    const sd::Context ctx = p.ctx;
    for (std::size_t bytes = 64u << 20; bytes <= max_bw; bytes *= 4) {
      const std::size_t vecs = bytes / 16;
      struct Way {
        const char* name;
        std::function<void()> launch;
      };
      const Way ways[] = {
          {"symmetra",
           [&] {
             block_put_interleaved<64 << 10><<<sms * 4, 1024, 0, p.s>>>(ctx, dst, src, bytes, 1);
           }},
          {"symmetra_block_slices",
           [&] { block_put<<<sms * 4, 1024, 0, p.s>>>(ctx, dst, src, bytes, 1); }},
          {"raw_unroll4",
           [&] {
             raw_copy<4, false><<<sms * 4, 1024, 0, p.s>>>(
                 reinterpret_cast<int4*>(peer), reinterpret_cast<const int4*>(src), vecs);
           }},
          {"cudaMemcpy",
           [&] { CK(cudaMemcpyAsync(peer, src, bytes, cudaMemcpyDeviceToDevice, p.s)); }},
      };
      for (const Way& w : ways) {
        CK(cudaMemsetAsync(peer, 0, bytes, p.s));
        w.launch();
        CK(cudaGetLastError());
        if (!same(p.s, w.name, peer, src, bytes)) continue;
        const float ms = median_ms(p.s, kRuns, w.launch);
        add(p.report, "block_put_bw", bytes, "device", w.name, ms * 1e3, bytes / (ms * 1e6));
      }
    }
  }
  CK(cudaFreeAsync(src, p.s));
  CK(cudaStreamSynchronize(p.s));
  p.rt.free(dst);
}

// 3. On-stream signal ping-pong against raw stream memory operations. Each pass ends with every
// wait satisfied: the stream reaching its last event is the check.
void stream_signal_rows(Pe& p) {
  auto* sig = p.rt.allocate_array<std::uint64_t>(2);
  const int iters = g_quick ? 500 : 2000;
  CUstream cs = reinterpret_cast<CUstream>(p.s);
  symmetra::Stream st = reinterpret_cast<symmetra::Stream>(p.s);
  const int me = p.me;
  for (int rep = 0; rep < 2; ++rep) {
    CK(cudaMemsetAsync(sig, 0, 2 * sizeof(std::uint64_t), p.s));
    CK(cudaStreamSynchronize(p.s));
    p.rt.barrier_all();
    p.meet(++p.round);
    const float ms = once_ms(p.s, [&] {
      for (int i = 1; i <= iters; ++i) {
        const std::uint64_t v = static_cast<std::uint64_t>(i);
        if (rep == 0) {
          if (me == 0) p.rt.signal_op_on_stream(&sig[0], v, symmetra::SignalOp::kSet, 1, st);
          p.rt.signal_wait_until_on_stream(&sig[0], symmetra::Cmp::kGe, v, st);
          if (me == 1) p.rt.signal_op_on_stream(&sig[0], v, symmetra::SignalOp::kSet, 0, st);
        } else {
          auto mine = reinterpret_cast<CUdeviceptr>(&sig[1]);
          auto theirs = reinterpret_cast<CUdeviceptr>(p.rt.ptr(&sig[1], 1 - me));
          if (me == 0) cuStreamWriteValue64(cs, theirs, v, CU_STREAM_WRITE_VALUE_DEFAULT);
          cuStreamWaitValue64(cs, mine, v, CU_STREAM_WAIT_VALUE_GEQ);
          if (me == 1) cuStreamWriteValue64(cs, theirs, v, CU_STREAM_WRITE_VALUE_DEFAULT);
        }
      }
    });
    std::uint64_t got = 0;
    CK(cudaMemcpyAsync(&got, &sig[rep], sizeof(got), cudaMemcpyDeviceToHost, p.s));
    CK(cudaStreamSynchronize(p.s));
    if (me == 0) {
      const char* name = rep == 0 ? "symmetra" : "raw_stream_memops";
      if (got != static_cast<std::uint64_t>(iters))
        std::printf("stream_signal_pingpong_rtt %s: the last signal is %llu, not %d; not timed\n",
                    name, static_cast<unsigned long long>(got), iters);
      else
        add(p.report, "stream_signal_pingpong_rtt", 8, "stream", name, ms * 1e3 / iters, 0);
    }
    p.rt.barrier_all();
  }
  p.rt.free(sig);
}

// 4. p, put, g and get latency / bandwidth, thread / warp / block, PE 0 -> PE 1 and PE 0 ->
// itself.
void rma_rows(Pe& p) {
  const std::size_t max = 1u << 20;
  auto* dst = static_cast<char*>(p.rt.allocate(max));
  char* src = nullptr;
  CK(cudaMallocAsync(&src, max, p.s));
  CK(cudaMemsetAsync(src, 3, max, p.s));
  CK(cudaMemsetAsync(dst, 0, max, p.s));
  CK(cudaStreamSynchronize(p.s));
  p.rt.barrier_all();
  if (p.me == 0) {
    const cudaStream_t s = p.s;
    const sd::Context ctx = p.ctx;
    Report& report = p.report;
    const int runs = kRuns;
    for (int target : {1, 0}) {
      const char* backend = target == 1 ? "symmetra_peer" : "symmetra_self";
      const int iters = g_quick ? 200 : 1000;
      const float pm = median_ms(s, runs, [&] {
        p_loop<<<1, 1, 0, s>>>(ctx, reinterpret_cast<std::uint64_t*>(dst), target, iters);
      });
      add(report, "p_lat", 8, "thread", backend, pm * 1e3 / iters, 0);
      const float gm = median_ms(s, runs, [&] {
        g_loop<<<1, 1, 0, s>>>(ctx, reinterpret_cast<const std::uint64_t*>(dst), target, iters,
                               reinterpret_cast<std::uint64_t*>(src));
      });
      add(report, "g_lat", 8, "thread", backend, gm * 1e3 / iters, 0);
      for (std::size_t bytes = 8; bytes <= max; bytes *= (g_quick ? 16 : 4)) {
        const int it = static_cast<int>(std::clamp<std::size_t>((64u << 20) / bytes, 20, iters));
        const float t1 = median_ms(s, runs, [&] {
          put_loop<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, dst, src, bytes, target, it, true);
        });
        const float t2 = median_ms(s, runs, [&] {
          put_loop<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, dst, src, bytes, target, it, true);
        });
        const float t3 = median_ms(s, runs, [&] {
          put_loop<sd::BlockGroup><<<1, 1024, 0, s>>>(ctx, dst, src, bytes, target, it, true);
        });
        add(report, "put_lat", bytes, "thread", backend, t1 * 1e3 / it, bytes / (t1 * 1e6 / it));
        add(report, "put_lat", bytes, "warp", backend, t2 * 1e3 / it, bytes / (t2 * 1e6 / it));
        add(report, "put_lat", bytes, "block", backend, t3 * 1e3 / it, bytes / (t3 * 1e6 / it));
        const float u1 = median_ms(s, runs, [&] {
          get_loop<sd::ThreadGroup><<<1, 1, 0, s>>>(ctx, src, dst, bytes, target, it);
        });
        const float u2 = median_ms(s, runs, [&] {
          get_loop<sd::WarpGroup><<<1, 32, 0, s>>>(ctx, src, dst, bytes, target, it);
        });
        const float u3 = median_ms(s, runs, [&] {
          get_loop<sd::BlockGroup><<<1, 1024, 0, s>>>(ctx, src, dst, bytes, target, it);
        });
        add(report, "get_lat", bytes, "thread", backend, u1 * 1e3 / it, bytes / (u1 * 1e6 / it));
        add(report, "get_lat", bytes, "warp", backend, u2 * 1e3 / it, bytes / (u2 * 1e6 / it));
        add(report, "get_lat", bytes, "block", backend, u3 * 1e3 / it, bytes / (u3 * 1e6 / it));
      }
    }
  }
  CK(cudaFreeAsync(src, p.s));
  CK(cudaStreamSynchronize(p.s));
  p.rt.free(dst);
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
  // Host threads of the two PEs meet here to start timed kernels together.
  std::atomic<int> arrived{0};
  auto meet = [&](int round) {
    arrived.fetch_add(1);
    while (arrived.load() < 2 * round) std::this_thread::yield();
  };
  symmetra::launch_threads(2, symmetra::RuntimeOptions{symmetra::Backend::kCuda, -1},
                           [&](symmetra::Runtime& rt) {
                             cudaStream_t s;
                             CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
                             Pe p{rt, s, rt.device_context(), rt.my_pe(), report, meet};
                             pingpong_rows(p);
                             block_put_rows(p, max_bw);
                             stream_signal_rows(p);
                             rma_rows(p);
                             rt.barrier_all();
                             CK(cudaStreamDestroy(s));
                           });
  report.table();
  return 0;
}

// symmetra-gpu-perf --remote: GPU-initiated operations on a PE of another host, through the
// proxy ring (docs/proxy.md), side by side with what bounds them, in one run. Two forced hosts
// of this machine (SYMMETRA_HOSTS=2, UCX over TCP on loopback), PEs as threads on the one GPU:
//
//   doorbell_rtt     the floor: a kernel writes a word of pinned host memory, a CPU thread sees
//                    it and answers in another, the kernel sees the answer (1.70 us on the H200)
//   p_lat, put_lat   a kernel's p / put (8 B - 4 MiB) to the other host, each followed by a quiet
//   fetch_add_lat    a kernel's fetch_add on the other host's word (the old value comes back)
//   p_rate           a kernel's 8-byte p's back to back, one quiet at the end: the proxy's
//                    message rate (p50 us is the time per message)
//   allreduce_2x2    the all-reduce's stream form over 2 hosts x 2 PEs: the hierarchy (NVRAR)
//                    against the flat LL algorithms, 8 B - 1 MiB
//   sync_2x2         the team sync's stream form over the same 2 hosts x 2 PEs
//
// Each device row (form "device") has its host-initiated twin (form "host": the same operation
// from the CPU, the same UCX path without the ring). bench/gpu_remote_ratios.py divides the
// device rows by host + floor and by ucx-raw-perf + floor (raw UCX, run by tools/gpu-check in
// the same step). PE 0 measures; the other PEs serve, waiting in a barrier.
#define SYMMETRA_DEVICE_REMOTE 1

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

#include "cuda_check.cuh"
#include "perf_report.hpp"
#include "stream_timer.cuh"
#include "symmetra/coll.hpp"
#include "symmetra/device.hpp"
#include "symmetra/launch.hpp"

namespace sd = symmetra::device;
using symmetra::bench::median_ms;
using symmetra::bench::Report;
using symmetra::bench::Row;

namespace {

void add(Report& r, const char* op, std::size_t bytes, int pes, const char* form,
         const char* backend, double us) {
  r.add(Row{op, bytes, pes, form, backend, us, us, us > 0 ? bytes / (us * 1e3) : 0});
}

// The floor: `iters` round trips kernel -> pinned host word -> CPU thread -> pinned host word
// -> kernel. Volatile accesses to mapped host memory, a system fence before each store.
__global__ void doorbell_kernel(volatile std::uint64_t* req, volatile std::uint64_t* resp,
                                int iters) {
  for (int i = 1; i <= iters; ++i) {
    *req = static_cast<std::uint64_t>(i);
    __threadfence_system();
    while (*resp != static_cast<std::uint64_t>(i)) {
    }
  }
}

double doorbell_us(cudaStream_t s, int iters, int runs) {
  std::uint64_t* words = nullptr;
  CK(cudaHostAlloc(&words, 128, cudaHostAllocMapped));
  std::memset(words, 0, 128);
  std::uint64_t* d_words = nullptr;
  CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_words), words, 0));
  std::atomic<bool> stop{false};
  std::thread answer([&] {  // answers each request with its number, as a proxy would
    volatile std::uint64_t* req = words;
    volatile std::uint64_t* resp = words + 8;  // another cache line
    std::uint64_t seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t r = *req;
      if (r != seen) {
        seen = r;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *resp = r;
      }
    }
  });
  const float ms = median_ms(s, runs, [&] {
    words[0] = 0;
    words[8] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    doorbell_kernel<<<1, 1, 0, s>>>(d_words, d_words + 8, iters);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));  // the next run resets the words after this one ends
  });
  stop = true;
  answer.join();
  CK(cudaFreeHost(words));
  return ms * 1e3 / iters;
}

// `iters` puts of `bytes` to `pe`, each completed at the target (quiet) before the next.
__global__ void put_quiet_loop(sd::Context ctx, unsigned char* dst, const unsigned char* src,
                               std::size_t bytes, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    if (bytes == 8) {
      std::uint64_t v;
      memcpy(&v, src, 8);
      sd::p(ctx, reinterpret_cast<std::uint64_t*>(dst), v + static_cast<std::uint64_t>(i), pe);
    } else {
      sd::putmem(sd::ThreadGroup{}, ctx, dst, src, bytes, pe);
    }
    sd::quiet(ctx);
  }
}

// `iters` 8-byte p's back to back, one quiet at the end: the message rate.
__global__ void p_rate_loop(sd::Context ctx, std::uint64_t* dst, int pe, int iters) {
  for (int i = 0; i < iters; ++i) sd::p(ctx, dst, static_cast<std::uint64_t>(i), pe);
  sd::quiet(ctx);
}

__global__ void fetch_add_loop(sd::Context ctx, std::uint64_t* word, int pe, int iters,
                               std::uint64_t* sink) {
  std::uint64_t acc = 0;
  for (int i = 0; i < iters; ++i) acc += sd::atomic_fetch_add(ctx, word, std::uint64_t{1}, pe);
  *sink = acc;  // used: no fetch is dropped
}

// Point-to-point rows on 2 PEs: PE 0 measures against PE 1 (the other host).
void point_to_point(symmetra::Runtime& rt, Report& report, bool quick) {
  const int me = rt.my_pe(), peer = 1;
  const int runs = 5, lat_iters = quick ? 200 : 1000, rate_iters = quick ? 20000 : 100000;
  const std::size_t max_bytes = 4u << 20;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto* dst = rt.allocate_array<unsigned char>(max_bytes);
  auto* word = rt.allocate_array<std::uint64_t>(2);
  unsigned char* src = nullptr;
  std::uint64_t* sink = nullptr;
  CK(cudaMalloc(&src, max_bytes));
  CK(cudaMalloc(&sink, 8));
  CK(cudaMemset(src, 0x5a, max_bytes));
  rt.barrier_all();
  if (me == 0) {
    const sd::Context ctx = rt.device_context();
    const double floor = doorbell_us(s, quick ? 2000 : 20000, runs);
    add(report, "doorbell_rtt", 8, 2, "device", "raw", floor);
    for (std::size_t bytes : symmetra::bench::sizes(8, max_bytes, quick ? 16 : 4)) {
      const int it = bytes >= (1u << 20) ? std::max(lat_iters / 20, 5) : lat_iters;
      const float ms = median_ms(s, runs, [&] {
        put_quiet_loop<<<1, 1, 0, s>>>(ctx, dst, src, bytes, peer, it);
        CK(cudaGetLastError());
      });
      add(report, bytes == 8 ? "p_lat" : "put_lat", bytes, 2, "device", "symmetra", ms * 1e3 / it);
      std::vector<unsigned char> host(bytes, 0x5a);
      double p50 = 0, p99 = 0;
      symmetra::bench::percentiles(symmetra::bench::sample(runs, it,
                                                           [&] {
                                                             rt.putmem(dst, host.data(), bytes,
                                                                       peer);
                                                             rt.quiet();
                                                           }),
                                   &p50, &p99);
      add(report, bytes == 8 ? "p_lat" : "put_lat", bytes, 2, "host", "symmetra", p50);
    }
    const float fa = median_ms(s, runs, [&] {
      fetch_add_loop<<<1, 1, 0, s>>>(ctx, word, peer, lat_iters, sink);
      CK(cudaGetLastError());
    });
    add(report, "fetch_add_lat", 8, 2, "device", "symmetra", fa * 1e3 / lat_iters);
    double p50 = 0, p99 = 0;
    symmetra::bench::percentiles(
        symmetra::bench::sample(runs, lat_iters,
                                [&] { (void)rt.atomic_fetch_add(word, std::uint64_t{1}, peer); }),
        &p50, &p99);
    add(report, "fetch_add_lat", 8, 2, "host", "symmetra", p50);
    const float rate = median_ms(s, runs, [&] {
      p_rate_loop<<<1, 1, 0, s>>>(ctx, word, peer, rate_iters);
      CK(cudaGetLastError());
    });
    add(report, "p_rate", 8, 2, "device", "symmetra", rate * 1e3 / rate_iters);
    symmetra::bench::percentiles(
        symmetra::bench::sample(
            runs, rate_iters, [&] { rt.p(word, std::uint64_t{7}, peer); }, [&] { rt.quiet(); }),
        &p50, &p99);
    add(report, "p_rate", 8, 2, "host", "symmetra", p50);
  }
  rt.barrier_all();  // the other PE serves until here
  CK(cudaFree(sink));
  CK(cudaFree(src));
  rt.free(word);
  rt.free(dst);
  CK(cudaStreamDestroy(s));
}

// The all-reduce's stream form on 2 hosts x 2 PEs: the hierarchy against the flat LL
// algorithms, the put ring and the selector's pick (the others load members' memory, which does
// not cross hosts).
void allreduce_2x2(symmetra::Runtime& rt, Report& report, bool quick) {
  using symmetra::coll::AllreduceAlgo;
  const std::size_t max_elems = (1u << 20) / sizeof(float);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto* x = rt.allocate_array<float>(max_elems);
  auto* y = rt.allocate_array<float>(max_elems);
  CK(cudaMemset(x, 0, max_elems * sizeof(float)));
  const symmetra::Stream st = reinterpret_cast<symmetra::Stream>(s);
  {  // the team sync that the put ring starts with: what part of its fixed cost it is
    constexpr int it = 50;
    rt.barrier_all();
    const float ms = median_ms(s, 3, [&] {
      for (int i = 0; i < it; ++i) rt.sync_on_stream(rt.team_world(), st);
    });
    if (rt.my_pe() == 0) add(report, "sync_2x2", 0, 4, "stream", "symmetra", ms * 1e3 / it);
  }
  const AllreduceAlgo algos[] = {AllreduceAlgo::kHierarchical, AllreduceAlgo::kRecursiveDoubling,
                                 AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kPutRing,
                                 AllreduceAlgo::kAuto};
  for (std::size_t bytes : symmetra::bench::sizes(8, max_elems * sizeof(float), quick ? 16 : 4)) {
    const int it = bytes >= (256u << 10) ? 10 : 50;
    for (AllreduceAlgo a : algos) {
      rt.barrier_all();
      const float ms = median_ms(s, 3, [&] {
        for (int i = 0; i < it; ++i)
          rt.allreduce_on_stream(rt.team_world(), y, x, bytes / sizeof(float),
                                 symmetra::coll::ReduceOp::kSum, st, a);
      });
      if (rt.my_pe() == 0)
        add(report, "allreduce_2x2", bytes, 4, symmetra::coll::algo_name(a), "symmetra",
            ms * 1e3 / it);
    }
  }
  rt.barrier_all();
  rt.free(y);
  rt.free(x);
  CK(cudaStreamDestroy(s));
}

}  // namespace

int gpu_remote_perf(bool quick) {
  setenv("SYMMETRA_HOSTS", "2", 1);
  Report report;
  const symmetra::RuntimeOptions gpu{symmetra::Backend::kCuda, -1};
  symmetra::launch_threads(2, gpu,
                           [&](symmetra::Runtime& rt) { point_to_point(rt, report, quick); });
  symmetra::launch_threads(4, gpu,
                           [&](symmetra::Runtime& rt) { allreduce_2x2(rt, report, quick); });
  report.table();
  return 0;
}

// The C++ side of the Python overhead benchmark (bench/python/overhead.py is the other side,
// bench/python/overhead.sh runs both): the same host calls in the same loops, so the difference
// per call is what the Python binding adds. One JSON line per operation:
//   {"bench":"py_overhead","side":"cpp","op":"p","bytes":8,"pes":2,"us":0.012}
// us: the median over repetitions of (loop time / calls). Run under symrun, 2 or more PEs.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "symmetra/runtime.hpp"

#if SYMMETRA_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

double median_us_per_call(symmetra::Runtime& rt, int calls, int reps,
                          const std::function<void()>& body) {
  for (int i = 0; i < calls / 10 + 1; ++i) body();  // warm up
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    rt.barrier_all();  // every PE starts each repetition together
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) body();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace

#if SYMMETRA_BENCH_CUDA
// --stream (GPU backend): what it costs the host to enqueue each stream form, the loop of
// enqueues timed alone and the stream drained after it, outside the time.
int stream_main(symmetra::Runtime& rt) {
  const int me = rt.my_pe(), n = rt.n_pes(), peer = (me + 1) % n;
  auto* buf = rt.allocate_array<std::int64_t>(8);
  auto* src = rt.allocate_array<std::int64_t>(8);
  auto* sig = rt.allocate_array<std::uint64_t>(1);
  auto* sum = rt.allocate_array<float>(8);
  auto* fsrc = rt.allocate_array<float>(8);
  cudaStream_t cs = nullptr;
  if (cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) != cudaSuccess) return 1;
  const auto s = reinterpret_cast<symmetra::Stream>(cs);
  const symmetra::Team world = rt.team_world();
  struct Op {
    const char* name;
    std::size_t bytes;
    std::function<void()> body;
  };
  const std::vector<Op> ops = {
      {"put_on_stream", 64, [&] { rt.putmem_on_stream(buf, src, 64, peer, s); }},
      {"signal_op_on_stream", 8,
       [&] { rt.signal_op_on_stream(sig, 1, symmetra::SignalOp::kSet, peer, s); }},
      {"allreduce_on_stream", 32,
       [&] { rt.allreduce_on_stream(world, sum, fsrc, 8, symmetra::coll::ReduceOp::kSum, s); }},
      {"barrier_all_on_stream", 0, [&] { rt.barrier_all_on_stream(s); }},
  };
  for (const Op& op : ops) {
    std::vector<double> per_call;
    for (int r = 0; r < 9; ++r) {
      rt.barrier_all();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) op.body();
      const auto t1 = std::chrono::steady_clock::now();
      if (cudaStreamSynchronize(cs) != cudaSuccess) return 1;
      per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
    }
    std::sort(per_call.begin(), per_call.end());
    if (me == 0)
      std::printf(
          "{\"bench\":\"py_overhead\",\"side\":\"cpp\",\"op\":\"%s\",\"bytes\":%zu,\"pes\":%d,"
          "\"us\":%.4f}\n",
          op.name, op.bytes, n, per_call[per_call.size() / 2]);
  }
  std::fflush(stdout);
  rt.barrier_all();
  cudaStreamDestroy(cs);
  for (void* p : {static_cast<void*>(fsrc), static_cast<void*>(sum), static_cast<void*>(sig),
                  static_cast<void*>(src), static_cast<void*>(buf)})
    rt.free(p);
  rt.finalize();
  return 0;
}
#endif

int main(int argc, char** argv) {
  auto rt = symmetra::Runtime::init();
  if (argc > 1 && std::string(argv[1]) == "--stream") {
#if SYMMETRA_BENCH_CUDA
    return stream_main(*rt);
#else
    std::fprintf(stderr, "symmetra-py-overhead: --stream needs a build with CUDA\n");
    return 2;
#endif
  }
  const int me = rt->my_pe(), n = rt->n_pes(), peer = (me + 1) % n;
  auto* word = rt->allocate_array<std::int64_t>(8);
  auto* buf = rt->allocate_array<std::int64_t>(8);
  auto* sum = rt->allocate_array<float>(8);
  auto* src = rt->allocate_array<float>(8);
  std::int64_t local[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::fill(src, src + 8, 1.0f);
  std::int64_t sink = 0;
  struct Op {
    const char* name;
    std::size_t bytes;
    int calls;
    std::function<void()> body;
  };
  const symmetra::Team world = rt->team_world();
  const std::vector<Op> ops = {
      {"p", 8, 20000, [&] { rt->p(word, std::int64_t{7}, peer); }},
      {"g", 8, 20000, [&] { sink += rt->g(word, peer); }},
      {"put", 64, 20000, [&] { rt->putmem(buf, local, sizeof(local), peer); }},
      {"get", 64, 20000, [&] { rt->getmem(local, buf, sizeof(local), peer); }},
      {"atomic_fetch_add", 8, 20000,
       [&] { sink += rt->atomic_fetch_add(word, std::int64_t{1}, peer); }},
      {"quiet", 0, 20000, [&] { rt->quiet(); }},
      {"barrier_all", 0, 2000, [&] { rt->barrier_all(); }},
      {"allreduce", 32, 2000,
       [&] { rt->allreduce(world, sum, src, 8, symmetra::coll::ReduceOp::kSum); }},
  };
  for (const Op& op : ops) {
    const double us = median_us_per_call(*rt, op.calls, 9, op.body);
    if (me == 0)
      std::printf(
          "{\"bench\":\"py_overhead\",\"side\":\"cpp\",\"op\":\"%s\",\"bytes\":%zu,\"pes\":%d,"
          "\"us\":%.4f}\n",
          op.name, op.bytes, n, us);
  }
  std::fflush(stdout);
  rt->barrier_all();
  if (sink == 42) std::printf("#\n");  // keeps the loads
  rt->free(src);
  rt->free(sum);
  rt->free(buf);
  rt->free(word);
  rt->finalize();
  return 0;
}

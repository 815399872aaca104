// NVSHMEM 3.4's all-reduce on a stream (nvshmemx_float_sum_reduce_on_stream) and its
// barrier_all_on_stream, one process per GPU, for symmetra-gpu-coll-perf's all-reduce table
// (issue 7). The processes are forked here and meet through NVSHMEM's unique-id bootstrap (the
// id travels over pipes), so no MPI or PMI launcher is needed. Built by tools/gpu-check with
// -rdc=true against the machine's NVSHMEM Python package, outside Symmetra's targets.
//
//   nvshmem_coll --pes N [--quick]     (N GPUs; the parent makes no CUDA call: CUDA does not
//                                      survive a fork after initialization)
//
// Timing: CUDA events on PE 0's stream around back-to-back calls, median of 5 runs after a
// warm-up run; PE 0 prints the JSON lines and the table.
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../cuda_check.cuh"
#include "../perf_report.hpp"
#include "../stream_timer.cuh"

namespace {

bool read_all(int fd, void* p, std::size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = read(fd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

int run_pe(int me, int n, int id_fd_in, const std::vector<int>& id_fd_out, bool quick) {
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (me == 0) {
    if (nvshmemx_get_uniqueid(&id) != 0) {
      std::fprintf(stderr, "nvshmem_coll: nvshmemx_get_uniqueid failed\n");
      return 1;
    }
    for (int fd : id_fd_out)
      if (write(fd, &id, sizeof(id)) != static_cast<ssize_t>(sizeof(id))) return 1;
  } else if (!read_all(id_fd_in, &id, sizeof(id))) {
    std::fprintf(stderr, "nvshmem_coll: PE %d did not get the unique id\n", me);
    return 1;
  }
  CK(cudaSetDevice(me));
  CK(cudaFree(nullptr));  // a current context before nvshmem_init
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_set_attr_uniqueid_args(me, n, &id, &attr);
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
    std::fprintf(stderr, "nvshmem_coll: PE %d: nvshmemx_init_attr failed\n", me);
    return 1;
  }
  const std::size_t max_ar = quick ? (4u << 20) : (64u << 20);
  auto* src = static_cast<float*>(nvshmem_malloc(max_ar));
  auto* dst = static_cast<float*>(nvshmem_malloc(max_ar));
  if (src == nullptr || dst == nullptr) {
    std::fprintf(stderr, "nvshmem_coll: nvshmem_malloc of %zu bytes failed\n", max_ar);
    return 1;
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMemsetAsync(src, 0, max_ar, s));
  symmetra::bench::Report report;
  symmetra::bench::StreamTimer timer(s);
  auto timed = [&](int iters, const std::function<void()>& body) {
    return timer(
        iters, [] { nvshmem_barrier_all(); }, body);
  };
  auto add = [&](const char* op, std::size_t bytes, std::pair<double, double> t) {
    if (me == 0)
      report.add({op, bytes, n, "stream", "nvshmem_on_stream", t.first, t.second,
                  bytes / (t.first * 1e3)});
  };
  for (std::size_t bytes : symmetra::bench::sizes(8, max_ar, quick ? 16 : 4)) {
    add("allreduce_nvshmem", bytes, timed(symmetra::bench::iters_for(bytes, quick), [&] {
          nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, bytes / sizeof(float),
                                              s);
        }));
  }
  add("barrier_all_on_stream", 0, timed(100, [&] { nvshmemx_barrier_all_on_stream(s); }));
  CK(cudaStreamSynchronize(s));
  nvshmem_barrier_all();
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_finalize();
  if (me == 0) report.table();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int n = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--pes") == 0 && i + 1 < argc)
      n = std::atoi(argv[++i]);
  }
  if (n < 2) {
    std::printf("nvshmem_coll: %d GPU: NVSHMEM runs one PE per GPU; nothing to reduce across\n", n);
    return 0;
  }
  // One pipe per PE other than 0: PE 0 writes the unique id into each.
  std::vector<int> rd(n, -1), wr;
  for (int r = 1; r < n; ++r) {
    int p[2];
    if (pipe(p) != 0) return 1;
    rd[r] = p[0];
    wr.push_back(p[1]);
  }
  std::vector<pid_t> kids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (r != 0)  // only PE 0 holds the write ends, so that its death ends the others' reads
        for (int fd : wr) close(fd);
      const int rc = run_pe(r, n, rd[r], r == 0 ? wr : std::vector<int>{}, quick);
      std::fflush(nullptr);
      std::_Exit(rc);
    }
    kids.push_back(pid);
  }
  for (int fd : wr) close(fd);
  int failed = 0;
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  if (failed) std::fprintf(stderr, "nvshmem_coll: %d of %d PEs failed\n", failed, n);
  return failed ? 1 : 0;
}

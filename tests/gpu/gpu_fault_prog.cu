// GPU failure paths, for gpu_fault_test (each case ends its process, so each runs alone):
//   gpu_fault_prog peer_fails       2 PEs as threads: PE 1's kernel waits for a word nobody
//                                   writes; PE 0 fails 300 ms later. The kernel must stop at once.
//   gpu_fault_prog peer_killed      2 PEs as processes (a Slurm-like environment): PE 0 is
//                                   killed while PE 1's kernel waits.
//   gpu_fault_prog timeout_threads N  N PEs as threads; the last one's kernel wait runs to
//                                   SYMMETRA_TIMEOUT_S (what a trap costs with N PEs per context).
//   gpu_fault_prog remote_kernel OP 2 PEs as threads on two forced hosts: PE 0's kernel does OP
//                                   (put, or barrier) with PE 1, which is on the other host.
//   gpu_fault_prog dead_proxy       2 PEs as processes (Slurm-like) on two forced hosts: PE 0's
//                                   kernel fetch_adds on PE 1's word through the proxy ring, and
//                                   PE 1 is killed; the proxy's transport fails, and the kernel
//                                   must stop saying so, not wait out SYMMETRA_TIMEOUT_S.
//   gpu_fault_prog stream_wait      1 PE: signal_wait_until_on_stream for a signal that never
//                                   comes (bounded unless SYMMETRA_STREAM_WAIT=value; with that,
//                                   the host sets the signal after 1.5 s to release the stream).
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "symmetra/device.hpp"
#include "symmetra/launch.hpp"

namespace sd = symmetra::device;

// gpu_fault_remote.cu: a kernel with the remote branch compiled in.
cudaError_t launch_remote_fetch_add_loop(const sd::Context& ctx, long* word, int pe, long rounds,
                                         long* sink, cudaStream_t s);

__global__ void wait_forever(sd::Context ctx, long* word) {
  sd::wait_until(ctx, word, symmetra::Cmp::kGe, 1L);
}

__global__ void to_other_host(sd::Context ctx, long* word, bool barrier) {
  if (barrier)
    sd::barrier_all(sd::ThreadGroup{}, ctx);
  else
    sd::p(ctx, word, 7L, 1);
}

namespace {

const auto g_start = std::chrono::steady_clock::now();

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Waits in a kernel; prints how it ended.
int wait_in_kernel(symmetra::Runtime& rt, long* word) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const auto t0 = std::chrono::steady_clock::now();
  wait_forever<<<1, 1, 0, s>>>(rt.device_context(), word);
  const cudaError_t rc = cudaStreamSynchronize(s);
  std::printf("pe %d: the kernel ended after %.3f s (launched at %.3f s): %s\n", rt.my_pe(),
              since(t0), std::chrono::duration<double>(t0 - g_start).count(),
              cudaGetErrorString(rc));
  std::fflush(stdout);
  return rc == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string c = argv[1];
  symmetra::RuntimeOptions cuda;
  cuda.backend = symmetra::Backend::kCuda;
  if (c == "peer_fails") {
    try {
      symmetra::launch_threads(2, cuda, [](symmetra::Runtime& rt) {
        auto* word = rt.allocate_array<long>(1);
        rt.barrier_all();
        if (rt.my_pe() == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          std::printf("pe 0: failing at %.3f s\n", since(g_start));
          std::fflush(stdout);
          throw std::runtime_error("PE 0 fails on purpose");
        }
        std::_Exit(wait_in_kernel(rt, word));  // the CUDA context is gone after a trap
      });
    } catch (const std::exception& e) {
      std::printf("launch_threads: %s\n", e.what());
    }
    std::this_thread::sleep_for(std::chrono::seconds(30));  // PE 1 ends the process
    return 3;
  }
  if (c == "timeout_threads") {  // N PEs as threads (argv[2]); the last one's kernel wait times out
    const int n = argc > 2 ? std::atoi(argv[2]) : 2;
    symmetra::launch_threads(n, cuda, [n](symmetra::Runtime& rt) {
      auto* word = rt.allocate_array<long>(1);
      rt.barrier_all();
      if (rt.my_pe() != n - 1) std::this_thread::sleep_for(std::chrono::seconds(30));
      std::_Exit(wait_in_kernel(rt, word));
    });
    return 3;
  }
  if (c == "peer_killed") {
    auto rt = symmetra::Runtime::init(cuda);
    auto* word = rt->allocate_array<long>(1);
    rt->barrier_all();
    if (rt->my_pe() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      raise(SIGKILL);
    }
    std::_Exit(wait_in_kernel(*rt, word));
  }
  if (c == "dead_proxy") {
    setenv("SYMMETRA_HOSTS", "2", 1);
    auto rt = symmetra::Runtime::init(cuda);
    auto* word = rt->allocate_array<long>(2);
    rt->barrier_all();
    if (rt->my_pe() == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      raise(SIGKILL);
    }
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const auto t0 = std::chrono::steady_clock::now();
    cudaError_t rc =
        launch_remote_fetch_add_loop(rt->device_context(), word, 1, 1L << 40, word + 1, s);
    if (rc == cudaSuccess) rc = cudaStreamSynchronize(s);
    std::printf("pe 0: the kernel ended after %.3f s: %s\n", since(t0), cudaGetErrorString(rc));
    std::fflush(stdout);
    std::_Exit(rc == cudaSuccess ? 0 : 1);
  }
  if (c == "remote_kernel") {  // PE 1 only waits at the host barrier, which PE 0 never reaches
    setenv("SYMMETRA_HOSTS", "2", 1);
    const bool barrier = argc > 2 && std::strcmp(argv[2], "barrier") == 0;
    symmetra::launch_threads(2, cuda, [barrier](symmetra::Runtime& rt) {
      auto* word = rt.allocate_array<long>(1);
      rt.barrier_all();
      if (rt.my_pe() == 0) {
        to_other_host<<<1, 1>>>(rt.device_context(), word, barrier);
        const cudaError_t rc = cudaDeviceSynchronize();
        std::printf("pe 0: the kernel ended: %s\n", cudaGetErrorString(rc));
        std::fflush(stdout);
        std::_Exit(rc == cudaSuccess ? 0 : 1);
      }
      rt.barrier_all();
    });
    return 3;
  }
  if (c == "stream_wait") {
    auto rt = symmetra::Runtime::init(cuda);
    auto* sig = rt->allocate_array<std::uint64_t>(1);
    cudaMemset(sig, 0, sizeof(*sig));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const auto t0 = std::chrono::steady_clock::now();
    rt->signal_wait_until_on_stream(sig, symmetra::Cmp::kEq, 1, s);
    const char* how = std::getenv("SYMMETRA_STREAM_WAIT");
    if (how != nullptr && std::strcmp(how, "value") == 0) {
      // Unbounded: still held after 1.5 s, released by the signal.
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      std::printf("held after 1.5 s: %s\n", cudaStreamQuery(s) == cudaErrorNotReady ? "yes" : "no");
      rt->p(sig, std::uint64_t{1}, rt->my_pe());
    }
    const cudaError_t rc = cudaStreamSynchronize(s);
    std::printf("the stream went on after %.3f s: %s\n", since(t0), cudaGetErrorString(rc));
    std::fflush(stdout);
    std::_Exit(rc == cudaSuccess ? 0 : 1);
  }
  std::fprintf(stderr, "unknown case %s\n", c.c_str());
  return 2;
}

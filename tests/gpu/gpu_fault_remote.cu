// gpu_fault_prog's kernel with the device API's remote branch (docs/proxy.md): compiled apart,
// since the program's other kernels must keep the branch out (their case checks the message of
// a kernel without it).
#define SYMMETRA_DEVICE_REMOTE 1

#include <cuda_runtime.h>

#include "symmetra/device.hpp"

namespace {

// fetch_adds on PE `pe`'s word until `rounds` are done (each waits for the proxy's answer).
__global__ void fetch_add_loop(symmetra::device::Context ctx, long* word, int pe, long rounds,
                               long* sink) {
  long acc = 0;
  for (long i = 0; i < rounds; ++i) acc += symmetra::device::atomic_fetch_add(ctx, word, 1L, pe);
  *sink = acc;
}

}  // namespace

// Launches the loop on `s` (gpu_fault_prog dead_proxy).
cudaError_t launch_remote_fetch_add_loop(const symmetra::device::Context& ctx, long* word, int pe,
                                         long rounds, long* sink, cudaStream_t s) {
  fetch_add_loop<<<1, 1, 0, s>>>(ctx, word, pe, rounds, sink);
  return cudaGetLastError();
}

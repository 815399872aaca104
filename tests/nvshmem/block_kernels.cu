// Kernels of 1024-thread blocks calling NVSHMEM's device API with the remote path compiled in
// (SYMMETRA_DEVICE_REMOTE=1), as NVIDIA's put-block example and MoE shuffles are written, each
// bounded for 1024 threads as such a kernel must be: block_registers.sh builds them with and
// without -rdc and checks that each links within those 64 registers a thread. Under -rdc the
// bound holds only the kernel's own code: a function of the library it calls out of line is
// allocated on its own, and the kernel gets its count. Built only, never run.
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void __launch_bounds__(1024)
    put_blocks(float* dst, const float* src, int n, int pe, uint64_t* sig) {
  const int off = blockIdx.x * blockDim.x;
  nvshmemx_float_put_block(dst + off, src + off, blockDim.x, pe);
  nvshmemx_float_put_nbi_block(dst + off, src + off, n - off, pe);
  nvshmemx_float_put_signal_nbi_block(dst + off, src + off, 256, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmemx_putmem_signal_block(dst + off, src + off, 4096, sig, 1, NVSHMEM_SIGNAL_SET, pe);
  nvshmem_quiet();
}

__global__ void __launch_bounds__(1024)
    get_and_atomics(float* dst, const float* src, int pe, unsigned long long* word) {
  const int off = blockIdx.x * blockDim.x;
  nvshmemx_float_get_block(dst + off, src + off, blockDim.x, pe);
  nvshmem_float_p(dst + off + threadIdx.x, 1.0f, pe);
  dst[threadIdx.x] += nvshmem_float_g(src + threadIdx.x, pe);
  nvshmem_ulonglong_atomic_fetch_add(word, 1, pe);
  nvshmem_fence();
}

__global__ void __launch_bounds__(1024)
    warp_puts(float* dst, const float* src, int pe, uint64_t* sig) {
  const int warp = threadIdx.x / 32;
  nvshmemx_float_put_nbi_warp(dst + warp * 128, src + warp * 128, 128, pe);
  if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
  nvshmemx_barrier_all_block();
}

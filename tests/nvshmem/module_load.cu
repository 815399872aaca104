// nvshmemx_cumodule_init: a module loaded with cuModuleLoad (module_kernel.cu's cubin, argv[1])
// gets the PE's device state from the library, and its kernel puts around the ring. A launch
// before the call would read a zeroed state; the test checks the ring after it, then that
// finalize forgets the module (a second finalize is refused). Every PE prints "module load: all
// passed (N PEs)".
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "test_util.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int* dst = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  CHECK(cuModuleLoad(&module, argv[1]) == CUDA_SUCCESS, "cuModuleLoad %s", argv[1]);
  CHECK(cuModuleGetFunction(&kernel, module, "shift_from_module") == CUDA_SUCCESS,
        "cuModuleGetFunction");
  CHECK(nvshmemx_cumodule_init(module) == 0, "cumodule_init");
  nvshmem_barrier_all();
  void* args[] = {&dst};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS,
        "cuLaunchKernel");
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "the module's kernel failed");
  nvshmem_barrier_all();
  const int got = nvshmem_int_g(dst, me);
  CHECK(got == (me + n - 1) % n + 1000, "the ring through the module: %d", got);
  CHECK(nvshmemx_cumodule_finalize(module) == 0, "cumodule_finalize");
  CHECK(nvshmemx_cumodule_finalize(module) == NVSHMEMX_ERROR_INVALID_VALUE,
        "a second finalize was accepted");
  cuModuleUnload(module);
  nvshmem_barrier_all();
  if (failures == 0) printf("[pe %d] module load: all passed (%d PEs)\n", me, n);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}

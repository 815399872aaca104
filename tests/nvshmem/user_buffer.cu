// nvshmemx_buffer_register_symmetric: each PE's own cuMemCreate buffer made symmetric. A kernel
// puts into the next PE's registered buffer through its symmetric address, and the owner reads
// the values back through its own buffer's address (the same memory mapped twice); a sum over
// the registered range on a stream; an allocation after the registration lands outside it. Bad
// input returns NULL on every PE: a size that is not a multiple of the granularity, cudaMalloc
// memory. Unregistering returns 0, a second time nonzero. Every PE prints
// "user buffer: all passed (N PEs)".
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "test_util.h"

namespace {

__global__ void put_ring(int* sym, const int* src, size_t count, int next) {
  nvshmemx_int_put_block(sym, src, count, next);
}

void* vmm_buffer(size_t bytes, int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CUmemGenericAllocationHandle h;
  CUdeviceptr at = 0;
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cuMemCreate(&h, bytes, &prop, 0) != CUDA_SUCCESS ||
      cuMemAddressReserve(&at, bytes, 0, 0, 0) != CUDA_SUCCESS ||
      cuMemMap(at, bytes, 0, h, 0) != CUDA_SUCCESS ||
      cuMemSetAccess(at, bytes, &access, 1) != CUDA_SUCCESS)
    return nullptr;
  cuMemRelease(h);  // the mapping keeps the memory
  return reinterpret_cast<void*>(at);
}

}  // namespace

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, from = (me + n - 1) % n;
  const unsigned long long seed = shared_seed();
  int device = 0;
  cudaGetDevice(&device);
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t gran = 0;
  cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  const size_t bytes = 2 * gran;
  const size_t count = bytes / 2 / sizeof(int);  // the ring's half; the sum's in the other
  auto value = [&](int pe, size_t i) { return static_cast<int>((seed % 9973) + pe * 7919 + i); };

  void* buffer = vmm_buffer(bytes, device);
  CHECK(buffer != nullptr, "cuMemCreate/cuMemMap of %zu bytes failed", bytes);
  // Bad input first: NULL on every PE, and the job goes on.
  CHECK(nvshmemx_buffer_register_symmetric(buffer, bytes - 4096, 0) == nullptr,
        "a size off the granularity was registered");
  void* plain = nullptr;
  cudaMalloc(&plain, bytes);
  CHECK(nvshmemx_buffer_register_symmetric(plain, bytes, 0) == nullptr,
        "cudaMalloc memory was registered");
  int* before = static_cast<int*>(nvshmem_malloc(sizeof(int) * 64));

  int* sym = static_cast<int*>(nvshmemx_buffer_register_symmetric(buffer, bytes, 0));
  CHECK(sym != nullptr && sym != buffer, "registration: %p", static_cast<void*>(sym));
  if (sym == nullptr) {
    nvshmem_finalize();
    return 1;
  }
  // An allocation after the registration must not land inside it.
  int* after = static_cast<int*>(nvshmem_malloc(bytes));
  CHECK(after != nullptr &&
            (after >= sym + bytes / sizeof(int) || after + bytes / sizeof(int) <= sym),
        "nvshmem_malloc after the registration overlaps it: %p in %p + %zu",
        static_cast<void*>(after), static_cast<void*>(sym), bytes);
  std::vector<int> host(count), got(count);
  for (size_t i = 0; i < count; ++i) host[i] = value(me, i);
  int* src = nullptr;
  cudaMalloc(&src, count * sizeof(int));
  cudaMemcpy(src, host.data(), count * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(buffer, 0, bytes);  // through the user's own address
  cudaMemcpy(after, host.data(), count * sizeof(int), cudaMemcpyHostToDevice);
  nvshmem_barrier_all();
  put_ring<<<1, 256>>>(sym, src, count, next);
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "the put kernel failed");
  nvshmem_barrier_all();
  // The previous PE's values, read through this PE's own buffer.
  cudaMemcpy(got.data(), buffer, count * sizeof(int), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < count; ++i)
    if (got[i] != value(from, i)) {
      CHECK(0, "put into the registered buffer: [%zu] = %d, want %d", i, got[i], value(from, i));
      break;
    }
  // A reduction over the registered range on a stream: each PE's src half is its values.
  int* red_src = sym + count;
  cudaMemcpy(red_src, host.data(), 1024 * sizeof(int), cudaMemcpyHostToDevice);
  int* red_dst = static_cast<int*>(nvshmem_malloc(1024 * sizeof(int)));
  cudaStream_t s;
  cudaStreamCreate(&s);
  nvshmemx_barrier_all_on_stream(s);
  nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, red_dst, red_src, 1024, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(got.data(), red_dst, 1024 * sizeof(int), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < 1024; ++i) {
    int want = 0;
    for (int pe = 0; pe < n; ++pe) want += value(pe, i);
    if (got[i] != want) {
      CHECK(0, "sum over the registered range: [%zu] = %d, want %d", i, got[i], want);
      break;
    }
  }
  // The block allocated after it kept its contents (the registration did not map over it).
  cudaMemcpy(got.data(), after, count * sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(got[count - 1] == value(me, count - 1), "the block after the registration changed");
  nvshmem_barrier_all();
  CHECK(nvshmemx_buffer_unregister_symmetric(sym, bytes) == 0, "unregister failed");
  CHECK(nvshmemx_buffer_unregister_symmetric(sym, bytes) != 0, "a second unregister succeeded");
  nvshmem_free(red_dst);
  nvshmem_free(after);
  nvshmem_free(before);
  nvshmem_barrier_all();
  if (failures == 0) printf("[pe %d] user buffer: all passed (%d PEs)\n", me, n);
  cudaStreamDestroy(s);
  cudaFree(src);
  cudaFree(plain);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}

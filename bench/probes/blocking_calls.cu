// Probe: which CUDA calls made by one thread wait for a kernel that another thread's stream is
// running. When PEs share a GPU as threads, a PE whose kernel waits for a peer's kernel deadlocks
// with a peer thread blocked in such a call (docs/gpu_backend.md lists what this prints).
//   nvcc -O2 -arch=sm_90 -o /tmp/bc bench/probes/blocking_calls.cu -lcuda && /tmp/bc
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "check.hpp"

__global__ void spin(volatile int* release, volatile int* started) {  // bounded: about 2 s
  *started = 1;
  const long long t0 = clock64();
  while (*release == 0 && clock64() - t0 < 4'000'000'000LL) {
  }
}
__global__ void first_use_a(int* p) {
  if (p) *p = 1;
}
__global__ void first_use_b(int* p) {
  if (p) *p = 2;
}
__global__ void noop() {}
// Kernels with a stack frame of N ints (a volatile local array lives in local memory).
template <int N>
__global__ void stack_user(int* out, int k) {
  volatile int buf[N];
  for (int i = 0; i < N; i += 32) buf[(i + threadIdx.x) % N] = k + i;
  if (out) *out = buf[(threadIdx.x * 7 + k) % N];
}

int main() {
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  int *release, *started;
  CK(cudaHostAlloc(&release, sizeof(int), cudaHostAllocMapped));
  CK(cudaHostAlloc(&started, sizeof(int), cudaHostAllocMapped));
  cudaStream_t held, mine;
  CK(cudaStreamCreateWithFlags(&held, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
  noop<<<1, 1, 0, held>>>();
  spin<<<1, 1, 0, held>>>(release, started);  // loads spin's module before the probes
  *(volatile int*)release = 1;
  CK(cudaDeviceSynchronize());
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  std::printf(
      "CUDA_MODULE_LOADING=%s; a call 'waits' if it has not returned 200 ms after another\n"
      "thread's kernel started spinning\n",
      loading ? loading : "(unset)");

  void* small = nullptr;
  void* big = nullptr;
  void* host = nullptr;
  std::vector<char> pageable(1 << 20, 1);
  CUmemGenericAllocationHandle handle{};
  CUdeviceptr va = 0;
  const std::size_t vmm = 2u << 20;
  cudaGraphExec_t exec = nullptr;
  cudaGraph_t graph = nullptr;
  CK(cudaStreamBeginCapture(mine, cudaStreamCaptureModeThreadLocal));
  noop<<<1, 1, 0, mine>>>();
  CK(cudaStreamEndCapture(mine, &graph));

  auto probe = [&](const char* name, const std::function<void()>& fn) {
    *(volatile int*)release = 0;
    *(volatile int*)started = 0;
    spin<<<1, 1, 0, held>>>(release, started);
    while (*(volatile int*)started == 0) {
    }
    volatile bool done = false;
    std::thread t([&] {
      fn();
      done = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    while (!done && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(200)) {
    }
    const bool waited = !done;
    *(volatile int*)release = 1;
    t.join();
    CK(cudaDeviceSynchronize());
    std::printf("  %-46s %s\n", name, waited ? "WAITS" : "returns");
  };
  probe("cudaStreamSynchronize(own stream)", [&] { CK(cudaStreamSynchronize(mine)); });
  probe("cudaMalloc 1 KiB", [&] { CK(cudaMalloc(&small, 1024)); });
  probe("cudaMalloc 256 MiB", [&] { CK(cudaMalloc(&big, 256u << 20)); });
  probe("cudaMemset (synchronous)", [&] { CK(cudaMemset(small, 0, 1024)); });
  probe("cudaMemcpy pageable host to device",
        [&] { CK(cudaMemcpy(big, pageable.data(), pageable.size(), cudaMemcpyHostToDevice)); });
  probe("cudaMemcpy device to pageable host",
        [&] { CK(cudaMemcpy(pageable.data(), big, pageable.size(), cudaMemcpyDeviceToHost)); });
  probe("cudaMemcpyAsync + own stream sync", [&] {
    CK(cudaMemcpyAsync(big, pageable.data(), pageable.size(), cudaMemcpyHostToDevice, mine));
    CK(cudaStreamSynchronize(mine));
  });
  probe("cudaFree 1 KiB", [&] { CK(cudaFree(small)); });
  probe("cudaFree 256 MiB", [&] { CK(cudaFree(big)); });
  probe("cudaHostAlloc", [&] { CK(cudaHostAlloc(&host, 1 << 20, cudaHostAllocDefault)); });
  probe("cudaFreeHost", [&] { CK(cudaFreeHost(host)); });
  probe("cudaHostRegister",
        [&] { CK(cudaHostRegister(pageable.data(), pageable.size(), cudaHostRegisterDefault)); });
  probe("cudaHostUnregister", [&] { CK(cudaHostUnregister(pageable.data())); });
  probe("cudaStreamCreate + Destroy", [&] {
    cudaStream_t x;
    CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    CK(cudaStreamDestroy(x));
  });
  probe("cudaEventCreate + Destroy", [&] {
    cudaEvent_t e;
    CK(cudaEventCreate(&e));
    CK(cudaEventDestroy(e));
  });
  probe("cuMemCreate + cuMemAddressReserve + cuMemMap", [&] {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CU(cuMemCreate(&handle, vmm, &prop, 0));
    CU(cuMemAddressReserve(&va, vmm, 0, 0, 0));
    CU(cuMemMap(va, vmm, 0, handle, 0));
  });
  probe("cuMemSetAccess", [&] {
    CUmemAccessDesc d{};
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = 0;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, vmm, &d, 1));
  });
  probe("cuMemUnmap + cuMemRelease + cuMemAddressFree", [&] {
    CU(cuMemUnmap(va, vmm));
    CU(cuMemRelease(handle));
    CU(cuMemAddressFree(va, vmm));
  });
  probe("cudaGraphInstantiate", [&] { CK(cudaGraphInstantiate(&exec, graph, 0)); });
  probe("cudaGraphLaunch + own stream sync", [&] {
    CK(cudaGraphLaunch(exec, mine));
    CK(cudaStreamSynchronize(mine));
  });
  probe("cudaFuncGetAttributes, a kernel not used yet", [&] {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, first_use_a));
  });
  probe("first launch of a kernel + own stream sync", [&] {
    first_use_b<<<1, 1, 0, mine>>>(nullptr);
    CK(cudaStreamSynchronize(mine));
  });
  probe("launch of a kernel preloaded by cudaFuncGetAttributes", [&] {
    first_use_a<<<1, 1, 0, mine>>>(nullptr);
    CK(cudaStreamSynchronize(mine));
  });
  probe("cudaMallocAsync + cudaMemsetAsync + own sync", [&] {
    CK(cudaMallocAsync(&small, 1 << 20, mine));
    CK(cudaMemsetAsync(small, 0, 1 << 20, mine));
    CK(cudaStreamSynchronize(mine));
  });
  probe("cudaFreeAsync + own stream sync", [&] {
    CK(cudaFreeAsync(small, mine));
    CK(cudaStreamSynchronize(mine));
  });
  // Local memory: the context's reservation grows for a kernel that needs more stack than any
  // before; does that growth wait for running kernels?
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, stack_user<64>));
  std::printf("  (stack_user<64>: %zu bytes local)\n", fa.localSizeBytes);
  CK(cudaFuncGetAttributes(&fa, stack_user<4096>));
  std::printf("  (stack_user<4096>: %zu bytes local)\n", fa.localSizeBytes);
  CK(cudaFuncGetAttributes(&fa, stack_user<8192>));
  probe("first launch, kernel with 256 B of stack", [&] {
    stack_user<64><<<1, 32, 0, mine>>>(nullptr, 1);
    CK(cudaStreamSynchronize(mine));
  });
  probe("second launch, same kernel", [&] {
    stack_user<64><<<1, 32, 0, mine>>>(nullptr, 1);
    CK(cudaStreamSynchronize(mine));
  });
  probe("first launch, kernel with 16 KiB of stack", [&] {
    stack_user<4096><<<1, 32, 0, mine>>>(nullptr, 1);
    CK(cudaStreamSynchronize(mine));
  });
  probe("second launch, same kernel", [&] {
    stack_user<4096><<<1, 32, 0, mine>>>(nullptr, 1);
    CK(cudaStreamSynchronize(mine));
  });
  std::size_t limit = 0;
  CK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  std::printf("  (cudaLimitStackSize %zu; raising it to 40 KiB with no kernel running)\n", limit);
  CK(cudaDeviceSetLimit(cudaLimitStackSize, 40 << 10));
  probe("first launch, kernel with 32 KiB of stack", [&] {
    stack_user<8192><<<1, 32, 0, mine>>>(nullptr, 1);
    CK(cudaStreamSynchronize(mine));
  });
  probe("cudaDeviceSynchronize (control)", [&] { CK(cudaDeviceSynchronize()); });
  return 0;
}

// Runtime::register_symmetric on the GPU backend, PEs as threads on one GPU:
// each PE's own cuMemCreate buffer joins the symmetric heap; a put from the previous PE into
// its symmetric address is read back through the buffer's own address (the same memory mapped
// twice), an allocation after it lands outside it, and bad input throws on every PE alike.
// nvshmemx_buffer_register_symmetric runs the same path from C (tests/nvshmem/user_buffer.cu).
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class RegisterTest : public ::testing::TestWithParam<PeConfig> {};

// The driver's calls through the runtime, as the library takes them: a program linked to
// libcuda cannot start where there is no driver, and gtest lists the tests at build time.
template <class F>
F driver(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F>(p);
}
#define SYMMETRA_DRIVER(fn) static const auto fn = driver<decltype(&::fn)>(#fn)

std::uint32_t word(std::uint64_t seed, int pe, std::size_t i) {
  std::uint64_t x = seed ^ (static_cast<std::uint64_t>(pe) << 48) ^ (i * 0x9e3779b97f4a7c15ull);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  return static_cast<std::uint32_t>(x >> 17) | 1u;
}

CUmemAllocationProp device_prop(int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// `bytes` of device memory made and mapped as NVSHMEM's user-buffer example makes it.
CUdeviceptr vmm_buffer(std::size_t bytes, int device) {
  SYMMETRA_DRIVER(cuMemCreate);
  SYMMETRA_DRIVER(cuMemAddressReserve);
  SYMMETRA_DRIVER(cuMemMap);
  SYMMETRA_DRIVER(cuMemSetAccess);
  SYMMETRA_DRIVER(cuMemRelease);
  const CUmemAllocationProp prop = device_prop(device);
  CUmemGenericAllocationHandle h;
  CUdeviceptr at = 0;
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cuMemCreate(&h, bytes, &prop, 0) != CUDA_SUCCESS) return 0;
  if (cuMemAddressReserve(&at, bytes, 0, 0, 0) != CUDA_SUCCESS ||
      cuMemMap(at, bytes, 0, h, 0) != CUDA_SUCCESS ||
      cuMemSetAccess(at, bytes, &access, 1) != CUDA_SUCCESS)
    at = 0;
  cuMemRelease(h);  // the mapping holds the memory
  return at;
}

void release(CUdeviceptr at, std::size_t bytes) {
  SYMMETRA_DRIVER(cuMemUnmap);
  SYMMETRA_DRIVER(cuMemAddressFree);
  cuMemUnmap(at, bytes);
  cuMemAddressFree(at, bytes);
}

TEST_P(RegisterTest, UsersBufferBecomesSymmetric) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    const std::uint64_t seed = run_seed();
    SYMMETRA_DRIVER(cuMemGetAllocationGranularity);
    const CUmemAllocationProp prop = device_prop(rt.device());
    std::size_t gran = 0;
    ASSERT_EQ(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              CUDA_SUCCESS);
    const std::size_t bytes = 2 * gran, words = bytes / sizeof(std::uint32_t);
    const CUdeviceptr buffer = vmm_buffer(bytes, rt.device());
    ASSERT_NE(buffer, 0u);
    void* raw = reinterpret_cast<void*>(buffer);

    // Bad input throws on every PE, before anything is mapped.
    EXPECT_THROW(rt.register_symmetric(raw, gran + 4096), Error);
    EXPECT_THROW(rt.register_symmetric(static_cast<char*>(raw) + gran, gran), Error);

    auto* sym = static_cast<std::uint32_t*>(rt.register_symmetric(raw, bytes));
    ASSERT_NE(sym, nullptr);
    EXPECT_NE(static_cast<void*>(sym), raw);
    EXPECT_TRUE(rt.is_symmetric(sym + words - 1));
    auto* after = rt.allocate_array<std::uint32_t>(words);
    EXPECT_TRUE(after >= sym + words || after + words <= sym) << "an allocation overlaps it";

    std::vector<std::uint32_t> mine(words), got(words);
    for (std::size_t i = 0; i < words; ++i) mine[i] = word(seed, me, i);
    ASSERT_EQ(cudaMemset(raw, 0, bytes), cudaSuccess);
    rt.barrier_all();
    rt.put(sym, mine.data(), words, next);
    rt.barrier_all();
    ASSERT_EQ(cudaMemcpy(got.data(), raw, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < words; ++i) bad += got[i] != word(seed, prev, i);
    EXPECT_EQ(bad, 0u) << "words of PE " << prev << " not in PE " << me << "'s own buffer";

    rt.barrier_all();
    rt.unregister_symmetric(sym, bytes);
    EXPECT_THROW(rt.unregister_symmetric(sym, bytes), Error);
    rt.free(after);
    rt.barrier_all();
    release(buffer, bytes);
  });
}

// PEs as threads: a process forked after this one has used CUDA cannot use it, so PEs as
// processes run the same path from tests/nvshmem/user_buffer.cu under symrun.
std::vector<PeConfig> configs() {
  return {{1, Mode::kThreads, Backend::kCuda},
          {2, Mode::kThreads, Backend::kCuda},
          {3, Mode::kThreads, Backend::kCuda}};
}

INSTANTIATE_TEST_SUITE_P(Gpu, RegisterTest, ::testing::ValuesIn(configs()), PeConfigName());

}  // namespace
}  // namespace symmetra::testing

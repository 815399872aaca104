#include "backend/cuda/driver.hpp"

#include <mutex>

#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

template <class F>
bool resolve(const char* name, F* fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess || p == nullptr)
    return false;
  *fn = reinterpret_cast<F>(p);
  return true;
}

}  // namespace

Result<const Driver*> cuda_driver() {
  static Driver d{};
  static Status loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      loaded = Status::fail("no usable CUDA device: " + cuda_error("cudaGetDeviceCount", rc));
      return;
    }
    const bool ok = resolve("cuMemCreate", &d.mem_create) &&
                    resolve("cuMemRelease", &d.mem_release) && resolve("cuMemMap", &d.mem_map) &&
                    resolve("cuMemUnmap", &d.mem_unmap) &&
                    resolve("cuMemSetAccess", &d.mem_set_access) &&
                    resolve("cuMemAddressReserve", &d.mem_address_reserve) &&
                    resolve("cuMemAddressFree", &d.mem_address_free) &&
                    resolve("cuMemGetAllocationGranularity", &d.mem_get_allocation_granularity) &&
                    resolve("cuMemExportToShareableHandle", &d.mem_export) &&
                    resolve("cuMemImportFromShareableHandle", &d.mem_import) &&
                    resolve("cuMemRetainAllocationHandle", &d.mem_retain_allocation_handle) &&
                    resolve("cuMemGetAddressRange", &d.mem_get_address_range) &&
                    resolve("cuStreamWriteValue64", &d.stream_write_value64) &&
                    resolve("cuStreamWaitValue64", &d.stream_wait_value64) &&
                    resolve("cuGetErrorString", &d.get_error_string);
    if (!ok)
      loaded =
          Status::fail("the CUDA driver lacks the virtual memory management API (driver too old?)");
  });
  if (!loaded.ok()) return loaded;
  return &d;
}

std::string cu_error(const Driver& d, const char* call, CUresult rc) {
  const char* text = nullptr;
  if (d.get_error_string != nullptr) d.get_error_string(rc, &text);
  return std::string(call) + ": " + (text ? text : "unknown error") + " (CUresult " +
         std::to_string(static_cast<int>(rc)) + ")";
}

void check_cuda(const device::Context& ctx, const char* op, cudaError_t rc, const char* call) {
  if (rc != cudaSuccess)
    device::detail::host_fatalf(ctx, op, "%s failed: %s (%s)", call, cudaGetErrorString(rc),
                                cudaGetErrorName(rc));
}

std::string cuda_error(const char* call, cudaError_t rc) {
  return std::string(call) + ": " + cudaGetErrorString(rc) + " (" + cudaGetErrorName(rc) + ")";
}

}  // namespace symmetra::detail

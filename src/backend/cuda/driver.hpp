// CUDA driver entry points, resolved at run time through the runtime library.
//
// libsymmetra must load on machines without a GPU driver (CI builds and runs the CPU tests with
// the CUDA targets built), so nothing links libcuda directly: the runtime (libcudart.so)
// hands out the driver's functions, and a missing driver becomes a clear error at init.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

#include "symmetra/device/context.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

struct Driver {
  CUresult (*mem_create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                         unsigned long long);
  CUresult (*mem_release)(CUmemGenericAllocationHandle);
  CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                      unsigned long long);
  CUresult (*mem_unmap)(CUdeviceptr, size_t);
  CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t);
  CUresult (*mem_address_reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*mem_address_free)(CUdeviceptr, size_t);
  CUresult (*mem_get_allocation_granularity)(size_t*, const CUmemAllocationProp*,
                                             CUmemAllocationGranularity_flags);
  CUresult (*mem_export)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                         unsigned long long);
  CUresult (*mem_import)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType);
  CUresult (*mem_retain_allocation_handle)(CUmemGenericAllocationHandle*, void*);
  CUresult (*mem_get_address_range)(CUdeviceptr*, size_t*, CUdeviceptr);
  CUresult (*stream_write_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
  CUresult (*stream_wait_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
  CUresult (*get_error_string)(CUresult, const char**);
};

// The driver's functions, or a Status saying why they are not available. Thread-safe.
Result<const Driver*> cuda_driver();

// "cuMemCreate: out of memory (CUDA_ERROR_OUT_OF_MEMORY)" style text.
std::string cu_error(const Driver& d, const char* call, CUresult rc);
std::string cuda_error(const char* call, cudaError_t rc);

// Data-path calls return nothing: a failed CUDA call there ends the job with
// "[pe N] op: call failed: ..." (through device::detail::host_fatal on `ctx`).
void check_cuda(const device::Context& ctx, const char* op, cudaError_t rc, const char* call);

}  // namespace symmetra::detail

// Return a failed Status from a driver call (needs `drv` in scope) or a runtime call.
#define SYMMETRA_CU(call)                                                                          \
  do {                                                                                             \
    const CUresult symmetra_cu_rc_ = drv->call;                                                    \
    if (symmetra_cu_rc_ != CUDA_SUCCESS)                                                           \
      return ::symmetra::Status::fail(::symmetra::detail::cu_error(*drv, #call, symmetra_cu_rc_)); \
  } while (0)
#define SYMMETRA_CUDA(call)                                                                      \
  do {                                                                                           \
    const cudaError_t symmetra_cuda_rc_ = (call);                                                \
    if (symmetra_cuda_rc_ != cudaSuccess)                                                        \
      return ::symmetra::Status::fail(::symmetra::detail::cuda_error(#call, symmetra_cuda_rc_)); \
  } while (0)

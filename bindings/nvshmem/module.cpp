// Modules loaded at run time (nvshmemx_cumodule_init, nvshmemx_culibrary_init): a module
// compiled against nvshmem.h holds the device state its kernels read in a __constant__ variable
// (nvshmem_device.cuh); a module the program loads itself has no host code to register it, so
// the program hands it over, and the library fills that variable now and whenever the state
// changes (push_state).
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "bindings/nvshmem/state.hpp"

#if SYMMETRA_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace symmetra::nvshmem {
namespace {

// The variable's name in a module compiled without -rdc; with -rdc nvcc gives static variables
// a name unique to their translation unit, which no lookup can guess.
constexpr const char* kStateSymbol = "symmetrai_nvshmem_state";

// The driver's calls, from the CUDA runtime's entry points (the library links no libcuda, which
// a machine without a GPU driver does not have).
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

struct Loaded {
  const void* handle;  // the CUmodule or CUlibrary, to forget it by
  CUdeviceptr state;
};
std::mutex g_loaded_mutex;
std::vector<Loaded>& loaded() {
  static std::vector<Loaded> l;
  return l;
}

// Registers the state variable at `state` (`bytes` long) of a loaded module, and fills it.
int adopt(const char* op, const void* handle, CUresult found, CUdeviceptr state, size_t bytes) {
  const int pe = rt(op).my_pe();
  if (found != CUDA_SUCCESS) {
    const char* why = nullptr;
    if (auto text = driver<CUresult (*)(CUresult, const char**)>("cuGetErrorString"))
      text(found, &why);
    std::fprintf(stderr,
                 "[pe %d] %s: the module has no %s (%s): compile it against nvshmem.h, without "
                 "-rdc\n",
                 pe, op, kStateSymbol, why ? why : "?");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (bytes != sizeof(device::Context)) {
    std::fprintf(stderr,
                 "[pe %d] %s: the module's %s is %zu bytes, not %zu: built against other "
                 "headers\n",
                 pe, op, kStateSymbol, bytes, sizeof(device::Context));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  {
    std::lock_guard<std::mutex> lock(g_loaded_mutex);
    loaded().push_back({handle, state});
  }
  return fill_loaded(rt(op).device_context(), op);
}

int forget(const void* handle) {
  std::lock_guard<std::mutex> lock(g_loaded_mutex);
  auto& l = loaded();
  for (auto it = l.begin(); it != l.end(); ++it)
    if (it->handle == handle) {
      l.erase(it);
      return NVSHMEMX_SUCCESS;
    }
  return NVSHMEMX_ERROR_INVALID_VALUE;
}

}  // namespace

int fill_loaded(const device::Context& c, const char* op) {
  std::lock_guard<std::mutex> lock(g_loaded_mutex);
  for (const Loaded& m : loaded())
    if (const cudaError_t rc =
            cudaMemcpy(reinterpret_cast<void*>(m.state), &c, sizeof(c), cudaMemcpyHostToDevice);
        rc != cudaSuccess)
      die(op,
          std::string("filling a loaded module's device state failed: ") + cudaGetErrorString(rc));
  return NVSHMEMX_SUCCESS;
}

}  // namespace symmetra::nvshmem

namespace nv = symmetra::nvshmem;

extern "C" {

int nvshmemx_cumodule_init(struct CUmod_st* module) {
  constexpr const char* op = "nvshmemx_cumodule_init";
  CUdeviceptr state = 0;
  size_t bytes = 0;
  auto get =
      nv::driver<CUresult (*)(CUdeviceptr*, size_t*, CUmodule, const char*)>("cuModuleGetGlobal");
  const CUresult rc =
      get ? get(&state, &bytes, module, nv::kStateSymbol) : CUDA_ERROR_NOT_SUPPORTED;
  return nv::adopt(op, module, rc, state, bytes);
}
int nvshmemx_cumodule_finalize(struct CUmod_st* module) {
  return nv::forget(module);
}
int nvshmemx_culibrary_init(struct CUlib_st* library) {
  constexpr const char* op = "nvshmemx_culibrary_init";
  CUdeviceptr state = 0;
  size_t bytes = 0;
  auto get =
      nv::driver<CUresult (*)(CUdeviceptr*, size_t*, CUlibrary, const char*)>("cuLibraryGetGlobal");
  const CUresult rc =
      get ? get(&state, &bytes, library, nv::kStateSymbol) : CUDA_ERROR_NOT_SUPPORTED;
  return nv::adopt(op, library, rc, state, bytes);
}
int nvshmemx_culibrary_finalize(struct CUlib_st* library) {
  return nv::forget(library);
}

}  // extern "C"
#else   // a library without CUDA: no module can be loaded, and the calls say so
namespace symmetra::nvshmem {
int fill_loaded(const device::Context&, const char*) {
  return NVSHMEMX_SUCCESS;
}
namespace {
int no_cuda(const char* op) {
  std::fprintf(stderr, "%s: needs the GPU backend; this library was built without CUDA\n", op);
  return NVSHMEMX_ERROR_NOT_SUPPORTED;
}
}  // namespace
}  // namespace symmetra::nvshmem

extern "C" {
int nvshmemx_cumodule_init(struct CUmod_st*) {
  return symmetra::nvshmem::no_cuda("nvshmemx_cumodule_init");
}
int nvshmemx_cumodule_finalize(struct CUmod_st*) {
  return symmetra::nvshmem::no_cuda("nvshmemx_cumodule_finalize");
}
int nvshmemx_culibrary_init(struct CUlib_st*) {
  return symmetra::nvshmem::no_cuda("nvshmemx_culibrary_init");
}
int nvshmemx_culibrary_finalize(struct CUlib_st*) {
  return symmetra::nvshmem::no_cuda("nvshmemx_culibrary_finalize");
}
}  // extern "C"
#endif  // SYMMETRA_HAVE_CUDA

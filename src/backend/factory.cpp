// make_backend (backend.hpp): the one place that knows which backends this build has.
#include <string>

#include "backend/backend.hpp"
#include "backend/cpu/cpu_backend.hpp"

#if SYMMETRA_HAVE_CUDA
#include "backend/cuda/cuda_backend.hpp"
#endif

namespace symmetra::detail {

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, Bootstrap& bs,
                                              const BackendParams& params) {
  if (kind == BackendKind::kCpu)
    return std::unique_ptr<Backend>(new CpuBackend(*params.host_heap, *params.control));
#if SYMMETRA_HAVE_CUDA
  auto cuda = CudaBackend::create(bs, params);
  SYMMETRA_TRY(cuda);
  return std::unique_ptr<Backend>(std::move(cuda.value()));
#else
  return Status::fail(
      "[pe " + std::to_string(bs.rank()) +
      "] the CUDA backend was asked for (SYMMETRA_BACKEND=cuda or "
      "RuntimeOptions::backend), but this build of Symmetra has no CUDA support: "
      "rebuild with nvcc on PATH (SYMMETRA_ENABLE_CUDA=ON), or use the CPU backend");
#endif
}

}  // namespace symmetra::detail

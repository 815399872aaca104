// NVTX ranges for core/trace.hpp. nvtx3 is header-only: with no tool attached (Nsight Systems
// sets NVTX_INJECTION64_PATH) each call returns at once.
#include "core/trace.hpp"

#if SYMMETRA_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace symmetra::detail {

#if SYMMETRA_HAVE_NVTX
bool nvtx_available() {
  return true;
}
void nvtx_push(const char* name) {
  nvtxRangePushA(name);
}
void nvtx_pop() {
  nvtxRangePop();
}
#else
bool nvtx_available() {
  return false;
}
void nvtx_push(const char*) {}
void nvtx_pop() {}
#endif

}  // namespace symmetra::detail

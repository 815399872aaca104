// Which memory a GPU PE's remote operations stage through pinned host memory (docs/proxy.md,
// "Staging"): device memory that the transport does not move itself. Host memory goes to the
// transport as it is. The host forms (backend/cuda/remote_ops.cu) and the proxy's staging
// (runtime/gpu_proxy.cpp) both ask this. Host code.
#pragma once

#include <cstddef>

#include "symmetra/device/impl/remote.hpp"

namespace symmetra::detail {

// A staging step, the size of each bounce buffer (the host forms' and the proxy's, one each per
// PE): large enough that a copy's fixed cost (about 10 us) is small against its bytes, small
// enough to stay pinned for the PE's life.
inline constexpr std::size_t kBounceBytes = 4u << 20;

// `device_memory`: the backend's Backend::is_device_memory(p).
inline bool staged(const device::RemotePath& r, const void* p, std::size_t bytes,
                   bool device_memory) {
  return device_memory && !device::moved_as_is(r, p, bytes);
}

}  // namespace symmetra::detail

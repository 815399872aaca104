// Copies a byte range with all threads of a group. Threads: every thread of the group.
// CPU: memcpy. GPU: 16-byte vector accesses when both ends allow it, spread across the group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/platform.hpp"

namespace symmetra::device::detail {

template <class Group>
SYMMETRA_INLINE void group_copy(Group g, void* dst, const void* src, std::size_t bytes) {
#if SYMMETRA_DEVICE_PASS
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const int r = g.thread_rank();
  const int n = g.size();
  std::size_t done = 0;
  if (((reinterpret_cast<std::uintptr_t>(d) | reinterpret_cast<std::uintptr_t>(s)) & 15) == 0) {
    const std::size_t vecs = bytes / 16;
    auto* dv = reinterpret_cast<int4*>(d);
    const auto* sv = reinterpret_cast<const int4*>(s);
    for (std::size_t i = r; i < vecs; i += n) dv[i] = sv[i];
    done = vecs * 16;
  }
  for (std::size_t i = done + r; i < bytes; i += n) d[i] = s[i];
#else
  (void)g;
  if (bytes != 0) std::memcpy(dst, src, bytes);
#endif
}

}  // namespace symmetra::device::detail

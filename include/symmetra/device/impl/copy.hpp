// Copies a byte range with all threads of a group. Threads: every thread of the group.
// CPU: memcpy (host_copy_in for gets). GPU: 16-byte vector accesses when both ends allow it,
// spread across the group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/platform.hpp"

namespace symmetra::device::detail {

#if !SYMMETRA_DEVICE_PASS
// Copies bytes out of another PE's memory on the CPU (src/core/copy_in.cpp): vector loads and
// aligned vector stores instead of glibc's `rep movsb`, which ran 2-4x slower reading pages that
// another process had mapped (docs/perf_cpu.md#copies). Any sizes, any alignment.
void host_copy_in(void* dst, const void* src, std::size_t bytes);
// The sizes that take host_copy_in: below, glibc copies with vectors already; above 512 KiB
// `rep movsb`, which writes whole lines without reading them first, was as fast or faster
// (a 1 MiB copy into a peer: 35-39 us against the vector loop's 53-55). From 8 KiB
// (kCopyInCoaligned) only when source and destination differ in their offset in a cache line:
// `rep movsb` loses to the vector loop then (a malloc'd buffer 16 bytes into a line, got into
// from a line-aligned heap block), and wins when they agree (docs/perf_cpu.md#copies).
inline constexpr std::size_t kCopyInMin = 2048, kCopyInMax = 524288, kCopyInCoaligned = 8192;
SYMMETRA_INLINE bool copy_in_wins(void* dst, const void* src, std::size_t bytes) {
  if (bytes < kCopyInMin || bytes > kCopyInMax) return false;
  return bytes < kCopyInCoaligned ||
         ((reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 63) !=
             0;
}
#endif

template <class Group>
SYMMETRA_INLINE void group_copy(Group g, void* dst, const void* src, std::size_t bytes) {
#if SYMMETRA_DEVICE_PASS
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const std::size_t r = static_cast<std::size_t>(g.thread_rank());
  const std::size_t n = static_cast<std::size_t>(g.size());
  const auto align = (reinterpret_cast<std::uintptr_t>(d) | reinterpret_cast<std::uintptr_t>(s));
  std::size_t done = 0;
  if ((align & 15) == 0) {
    // 16-byte accesses, four in flight per thread before the first store.
    const std::size_t vecs = bytes / 16;
    auto* dv = reinterpret_cast<int4*>(d);
    const auto* sv = reinterpret_cast<const int4*>(s);
    std::size_t i = r;
    for (; i + 3 * n < vecs; i += 4 * n) {
      const int4 a = sv[i], b = sv[i + n], c = sv[i + 2 * n], e = sv[i + 3 * n];
      dv[i] = a;
      dv[i + n] = b;
      dv[i + 2 * n] = c;
      dv[i + 3 * n] = e;
    }
    for (; i < vecs; i += n) dv[i] = sv[i];
    done = vecs * 16;
  }
  if ((align & 7) == 0) {  // what 16-byte vectors left, or all of an 8-byte aligned copy
    const std::size_t words = (bytes - done) / 8;
    auto* dw = reinterpret_cast<unsigned long long*>(d + done);
    const auto* sw = reinterpret_cast<const unsigned long long*>(s + done);
    for (std::size_t i = r; i < words; i += n) dw[i] = sw[i];
    done += words * 8;
  } else if ((align & 3) == 0) {
    const std::size_t words = (bytes - done) / 4;
    auto* dw = reinterpret_cast<unsigned*>(d + done);
    const auto* sw = reinterpret_cast<const unsigned*>(s + done);
    for (std::size_t i = r; i < words; i += n) dw[i] = sw[i];
    done += words * 4;
  }
  for (std::size_t i = done + r; i < bytes; i += n) d[i] = s[i];
#else
  (void)g;
  if (bytes != 0) std::memcpy(dst, src, bytes);
#endif
}

// group_copy for reads of a peer's memory (get): on the CPU, avoids `rep movsb` (host_copy_in).
template <class Group>
SYMMETRA_INLINE void group_copy_in(Group g, void* dst, const void* src, std::size_t bytes) {
#if !SYMMETRA_DEVICE_PASS
  if (copy_in_wins(dst, src, bytes)) return host_copy_in(dst, src, bytes);
#endif
  group_copy(g, dst, src, bytes);
}

}  // namespace symmetra::device::detail

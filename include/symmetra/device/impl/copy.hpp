// Copies a byte range with all threads of a group. Threads: every thread of the group.
// CPU: memcpy. GPU: 16-byte vector accesses when both ends allow it, spread across the group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/platform.hpp"

namespace symmetra::device::detail {

#if !SYMMETRA_DEVICE_PASS
// glibc's memcpy moves 4 KiB and more with `rep movsb`, which ran about 4x slower reading a
// peer's heap when dst and src lay within 64 bytes of each other modulo 4 KiB (but not at the
// same offset): a get of 4 KiB from a page-aligned heap block into a malloc'd buffer (16 bytes
// past a page) took 0.15 us instead of 0.04. Puts with the same offsets ran at full speed
// (docs/perf_notes.md). Such gets up to 16 KiB go through a bounce buffer 2 KiB away from both:
// two fast copies beat one slow one up to there.
inline constexpr std::size_t kAliasMin = 4096, kAliasMax = 16384;

inline bool aliased_4k(const void* dst, const void* src) {
  const auto d = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  return d != 0 && (d < 64 || d > 4096 - 64);  // equal offsets copy at full speed
}

inline void bounce_copy(void* dst, const void* src, std::size_t bytes) {
  static thread_local unsigned char bounce[kAliasMax + 4096];
  const auto base = reinterpret_cast<std::uintptr_t>(bounce);
  unsigned char* tmp = bounce + ((reinterpret_cast<std::uintptr_t>(src) + 2048 - base) & 4095);  // src + 2 KiB, mod 4 KiB
  std::memcpy(tmp, src, bytes);
  std::memcpy(dst, tmp, bytes);
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

// group_copy for reads of a peer's memory (get): on the CPU, avoids the aliasing slow path above.
template <class Group>
SYMMETRA_INLINE void group_copy_in(Group g, void* dst, const void* src, std::size_t bytes) {
#if !SYMMETRA_DEVICE_PASS
  if (bytes >= kAliasMin && bytes <= kAliasMax && aliased_4k(dst, src)) return bounce_copy(dst, src, bytes);
#endif
  group_copy(g, dst, src, bytes);
}

}  // namespace symmetra::device::detail

// host_copy_in (device/impl/copy.hpp): the CPU copy for gets, out of another PE's memory.
//
// Why not memcpy: glibc (2.36) copies 2 KiB and more with `rep movsb`, and reading pages that
// another process mapped, `rep movsb` ran 2-4x slower than vector loads of the same pages in the
// OpenSHMEM benchmark, while vector loads ran at full speed (docs/perf_cpu.md#copies). The loop
// below is glibc's own vector loop: unaligned loads, stores aligned to the vector, four vectors per
// step, the first and last four copied unaligned (they may overlap the aligned body).
//
// Threads: any; no state besides the one-time choice of the loop. Ordering: none (plain stores).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "core/copy_in.hpp"
#include "symmetra/device/impl/copy.hpp"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SYMMETRA_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SYMMETRA_SANITIZED 1
#endif

// Vector loops on x86-64 only, and not under ThreadSanitizer, whose memcpy interceptor sees a
// copy's ranges whole, where the loops' wide accesses might pass unseen. AddressSanitizer checks
// vector accesses as it checks any other (the loops stay inside both ranges), so its builds keep
// the loops, and CI's main run, which is one, tests them.
#if defined(__x86_64__) && !defined(SYMMETRA_SANITIZED)
#include <immintrin.h>
#define SYMMETRA_COPY_IN_VECTORS 1
#endif

namespace symmetra::device::detail {

namespace {

using CopyFn = void (*)(unsigned char*, const unsigned char*, std::size_t);

void copy_plain(unsigned char* d, const unsigned char* s, std::size_t n) {
  std::memcpy(d, s, n);
}

#if SYMMETRA_COPY_IN_VECTORS
// One loop, written once for both vector widths: `name` compiled for `isa`, with vectors of type
// VEC and V bytes, LD / ST unaligned and STA aligned accesses. n >= 8 vectors (the head and tail
// cover the rest).
#define SYMMETRA_COPY_LOOP(name, isa, VEC, V, LD, ST, STA)                                     \
  __attribute__((target(isa))) void name(unsigned char* d, const unsigned char* s,             \
                                         std::size_t n) {                                      \
    const VEC h0 = LD(s), h1 = LD(s + V), h2 = LD(s + 2 * V), h3 = LD(s + 3 * V);              \
    const VEC t0 = LD(s + n - 4 * V), t1 = LD(s + n - 3 * V), t2 = LD(s + n - 2 * V),          \
              t3 = LD(s + n - V);                                                              \
    const std::size_t skip = V - (reinterpret_cast<std::uintptr_t>(d) & (V - 1)); /* 1..V */   \
    unsigned char* dd = d + skip;                                                              \
    const unsigned char* ss = s + skip;                                                        \
    for (std::size_t left = n - skip; left > 4 * V; left -= 4 * V, dd += 4 * V, ss += 4 * V) { \
      const VEC a = LD(ss), b = LD(ss + V), c = LD(ss + 2 * V), e = LD(ss + 3 * V);            \
      STA(dd, a);                                                                              \
      STA(dd + V, b);                                                                          \
      STA(dd + 2 * V, c);                                                                      \
      STA(dd + 3 * V, e);                                                                      \
    }                                                                                          \
    ST(d, h0);                                                                                 \
    ST(d + V, h1);                                                                             \
    ST(d + 2 * V, h2);                                                                         \
    ST(d + 3 * V, h3);                                                                         \
    ST(d + n - 4 * V, t0);                                                                     \
    ST(d + n - 3 * V, t1);                                                                     \
    ST(d + n - 2 * V, t2);                                                                     \
    ST(d + n - V, t3);                                                                         \
  }

#define SYMMETRA_LD512(p) _mm512_loadu_si512(p)
#define SYMMETRA_ST512(p, v) _mm512_storeu_si512(p, v)
#define SYMMETRA_STA512(p, v) _mm512_store_si512(p, v)
SYMMETRA_COPY_LOOP(copy_avx512, "avx512f", __m512i, std::size_t{64}, SYMMETRA_LD512, SYMMETRA_ST512,
                   SYMMETRA_STA512)

#define SYMMETRA_LD256(p) _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
#define SYMMETRA_ST256(p, v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v)
#define SYMMETRA_STA256(p, v) _mm256_store_si256(reinterpret_cast<__m256i*>(p), v)
SYMMETRA_COPY_LOOP(copy_avx2, "avx2", __m256i, std::size_t{32}, SYMMETRA_LD256, SYMMETRA_ST256,
                   SYMMETRA_STA256)
#endif

struct Choice {
  CopyFn fn = copy_plain;
  std::size_t min_bytes = 0;  // below it, memcpy (the vector loop needs 8 vectors)
};

Choice choice_for(CopyInLoop loop) {
#if SYMMETRA_COPY_IN_VECTORS
  __builtin_cpu_init();
  if (loop == CopyInLoop::kAvx512 && __builtin_cpu_supports("avx512f"))
    return {copy_avx512, 8 * 64};
  if (loop == CopyInLoop::kAvx2 && __builtin_cpu_supports("avx2")) return {copy_avx2, 8 * 32};
#endif
  if (loop == CopyInLoop::kMemcpy) return {};
  return {nullptr, 0};
}

Choice choose() {
  for (CopyInLoop loop : {CopyInLoop::kAvx512, CopyInLoop::kAvx2})
    if (const Choice c = choice_for(loop); c.fn != nullptr) return c;
  return {};
}

void run(const Choice& c, void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (bytes < c.min_bytes) {
    if (bytes != 0) std::memcpy(d, s, bytes);
    return;
  }
  c.fn(d, s, bytes);
}

}  // namespace

void host_copy_in(void* dst, const void* src, std::size_t bytes) {
  static const Choice choice = choose();
  run(choice, dst, src, bytes);
}

bool copy_in_using(CopyInLoop loop, void* dst, const void* src, std::size_t bytes) {
  const Choice c = choice_for(loop);
  if (c.fn == nullptr) return false;
  run(c, dst, src, bytes);
  return true;
}

}  // namespace symmetra::device::detail

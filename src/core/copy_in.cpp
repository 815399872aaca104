// host_copy_in (device/impl/copy.hpp): the CPU copy for gets, out of another PE's memory.
//
// Why not memcpy: glibc (2.36) copies 2 KiB and more with `rep movsb`, and reading pages that
// another process mapped, `rep movsb` ran 2-4x slower than vector loads of the same pages in the
// OpenSHMEM benchmark (4 KiB get: 0.13 us against 0.037), while vector loads ran at full speed
// (docs/perf_notes.md, session 6). The loop below is glibc's own vector loop: unaligned loads,
// stores aligned to the vector, four vectors per step, the first and last four copied unaligned
// (they may overlap the aligned body).
//
// Threads: any; no state besides the one-time choice of the loop. Ordering: none (plain stores).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "copy_in.hpp"
#include "symmetra/device/impl/copy.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SYMMETRA_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SYMMETRA_SANITIZED 1
#endif

// Vector loops on x86-64 only, and not under sanitizers: they check memcpy's ranges, which the
// intrinsics would bypass.
#if defined(__x86_64__) && !defined(SYMMETRA_SANITIZED)
#include <immintrin.h>
#define SYMMETRA_COPY_IN_VECTORS 1
#endif

namespace symmetra::device::detail {

namespace {

using CopyFn = void (*)(unsigned char*, const unsigned char*, std::size_t);

void copy_plain(unsigned char* d, const unsigned char* s, std::size_t n) { std::memcpy(d, s, n); }

#if SYMMETRA_COPY_IN_VECTORS
// n >= 8 vectors (the head and tail cover the rest).
__attribute__((target("avx512f"))) void copy_avx512(unsigned char* d, const unsigned char* s, std::size_t n) {
  constexpr std::size_t V = 64;
  const __m512i h0 = _mm512_loadu_si512(s), h1 = _mm512_loadu_si512(s + V), h2 = _mm512_loadu_si512(s + 2 * V),
                h3 = _mm512_loadu_si512(s + 3 * V);
  const __m512i t0 = _mm512_loadu_si512(s + n - 4 * V), t1 = _mm512_loadu_si512(s + n - 3 * V),
                t2 = _mm512_loadu_si512(s + n - 2 * V), t3 = _mm512_loadu_si512(s + n - V);
  const std::size_t skip = V - (reinterpret_cast<std::uintptr_t>(d) & (V - 1));  // 1..V
  unsigned char* dd = d + skip;
  const unsigned char* ss = s + skip;
  for (std::size_t left = n - skip; left > 4 * V; left -= 4 * V, dd += 4 * V, ss += 4 * V) {
    const __m512i a = _mm512_loadu_si512(ss), b = _mm512_loadu_si512(ss + V), c = _mm512_loadu_si512(ss + 2 * V),
                  e = _mm512_loadu_si512(ss + 3 * V);
    _mm512_store_si512(dd, a);
    _mm512_store_si512(dd + V, b);
    _mm512_store_si512(dd + 2 * V, c);
    _mm512_store_si512(dd + 3 * V, e);
  }
  _mm512_storeu_si512(d, h0);
  _mm512_storeu_si512(d + V, h1);
  _mm512_storeu_si512(d + 2 * V, h2);
  _mm512_storeu_si512(d + 3 * V, h3);
  _mm512_storeu_si512(d + n - 4 * V, t0);
  _mm512_storeu_si512(d + n - 3 * V, t1);
  _mm512_storeu_si512(d + n - 2 * V, t2);
  _mm512_storeu_si512(d + n - V, t3);
}

__attribute__((target("avx2"))) void copy_avx2(unsigned char* d, const unsigned char* s, std::size_t n) {
  constexpr std::size_t V = 32;
#define ld(p) _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
#define st(p, v) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v)
  const __m256i h0 = ld(s), h1 = ld(s + V), h2 = ld(s + 2 * V), h3 = ld(s + 3 * V);
  const __m256i t0 = ld(s + n - 4 * V), t1 = ld(s + n - 3 * V), t2 = ld(s + n - 2 * V), t3 = ld(s + n - V);
  const std::size_t skip = V - (reinterpret_cast<std::uintptr_t>(d) & (V - 1));
  unsigned char* dd = d + skip;
  const unsigned char* ss = s + skip;
  for (std::size_t left = n - skip; left > 4 * V; left -= 4 * V, dd += 4 * V, ss += 4 * V) {
    const __m256i a = ld(ss), b = ld(ss + V), c = ld(ss + 2 * V), e = ld(ss + 3 * V);
    _mm256_store_si256(reinterpret_cast<__m256i*>(dd), a);
    _mm256_store_si256(reinterpret_cast<__m256i*>(dd + V), b);
    _mm256_store_si256(reinterpret_cast<__m256i*>(dd + 2 * V), c);
    _mm256_store_si256(reinterpret_cast<__m256i*>(dd + 3 * V), e);
  }
  st(d, h0);
  st(d + V, h1);
  st(d + 2 * V, h2);
  st(d + 3 * V, h3);
  st(d + n - 4 * V, t0);
  st(d + n - 3 * V, t1);
  st(d + n - 2 * V, t2);
  st(d + n - V, t3);
#undef ld
#undef st
}
#endif

struct Choice {
  CopyFn fn = copy_plain;
  std::size_t min_bytes = 0;  // below it, memcpy (the vector loop needs 8 vectors)
};

Choice choice_for(CopyInLoop loop) {
#if SYMMETRA_COPY_IN_VECTORS
  __builtin_cpu_init();
  if (loop == CopyInLoop::kAvx512 && __builtin_cpu_supports("avx512f")) return {copy_avx512, 8 * 64};
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

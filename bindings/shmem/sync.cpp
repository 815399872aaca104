// OpenSHMEM point-to-point synchronization, ordering, barriers and locks (shmem.h).
#include <sched.h>

#include <chrono>

#include <shmemx.h>

#include "bindings/shmem/active_set.hpp"
#include "bindings/shmem/state.hpp"

namespace symmetra::shmem {
namespace {

// Bounded polling for the lock: the same bound as every wait (SYMMETRA_TIMEOUT_S).
class Deadline {
 public:
  explicit Deadline(Runtime& r)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::nanoseconds(r.device_context().timeout_ns)) {}
  bool passed() const { return std::chrono::steady_clock::now() > end_; }

 private:
  std::chrono::steady_clock::time_point end_;
};

// The lock lives on PE 0: a ticket lock in one 64-bit word, next ticket in the high half, the
// ticket being served in the low half. Fair, and one remote atomic to take a ticket.
constexpr std::uint64_t kTicket = std::uint64_t{1} << 32;
constexpr int kLockPe = 0;

// The operations to the PEs named complete (OpenSHMEM 1.6): a quiet, which completes those to
// every PE (the standard allows more). The PEs are checked all the same, in the numbering of
// the context's team, so that a bad one is an error here as it would be on a stricter library.
void pe_quiet(shmem_ctx_t ctx, const int* pes, std::size_t npes, const char* op) {
  if (ctx == SHMEM_CTX_INVALID) return;
  Runtime& r = rt(op);
  if (npes > 0 && pes == nullptr) die(op, "target_pes is NULL and npes is " + std::to_string(npes));
  const int n = ctx == SHMEM_CTX_DEFAULT ? r.n_pes() : Team(&r, ctx->team).n_pes();
  for (std::size_t i = 0; i < npes; ++i)
    if (pes[i] < 0 || pes[i] >= n)
      die(op, "target_pes[" + std::to_string(i) + "] is " + std::to_string(pes[i]) +
                  ", not a PE of the context's team (0-" + std::to_string(n - 1) + ")");
  SYMMETRA_SHMEM_GUARD(op, r.quiet());
}

}  // namespace
}  // namespace symmetra::shmem

using namespace symmetra;
using namespace symmetra::shmem;

extern "C" {

#define SYMMETRA_DEF_P2P(T, N)                                                                     \
  void shmem_##N##_wait_until(T* v, int cmp, T value) {                                            \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_wait_until",                                                \
                         rt("shmem_wait_until")                                                    \
                             .wait_until(canon(v), cmp_of(cmp, "shmem_wait_until"),                \
                                         static_cast<canon_t<T>>(value)));                         \
  }                                                                                                \
  void shmem_##N##_wait_until_all(T* v, size_t n, const int* st, int cmp, T value) {               \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_wait_until_all",                                            \
                         rt("shmem_wait_until_all")                                                \
                             .wait_until_all(canon(v), n, st, cmp_of(cmp, "shmem_wait_until_all"), \
                                             static_cast<canon_t<T>>(value)));                     \
  }                                                                                                \
  size_t shmem_##N##_wait_until_any(T* v, size_t n, const int* st, int cmp, T value) {             \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_wait_until_any",                                            \
                         return rt("shmem_wait_until_any")                                         \
                             .wait_until_any(canon(v), n, st, cmp_of(cmp, "shmem_wait_until_any"), \
                                             static_cast<canon_t<T>>(value)));                     \
    return SIZE_MAX;                                                                               \
  }                                                                                                \
  size_t shmem_##N##_wait_until_some(T* v, size_t n, size_t* idx, const int* st, int cmp,          \
                                     T value) {                                                    \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_wait_until_some",                                                            \
        return rt("shmem_wait_until_some")                                                         \
            .wait_until_some(canon(v), n, idx, st, cmp_of(cmp, "shmem_wait_until_some"),           \
                             static_cast<canon_t<T>>(value)));                                     \
    return 0;                                                                                      \
  }                                                                                                \
  void shmem_##N##_wait_until_all_vector(T* v, size_t n, const int* st, int cmp, T* values) {      \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_wait_until_all_vector",                                                      \
        rt("shmem_wait_until_all_vector")                                                          \
            .wait_until_all_vector(canon(v), n, st, cmp_of(cmp, "shmem_wait_until_all_vector"),    \
                                   canon(values)));                                                \
  }                                                                                                \
  size_t shmem_##N##_wait_until_any_vector(T* v, size_t n, const int* st, int cmp, T* values) {    \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_wait_until_any_vector",                                                      \
        return rt("shmem_wait_until_any_vector")                                                   \
            .wait_until_any_vector(canon(v), n, st, cmp_of(cmp, "shmem_wait_until_any_vector"),    \
                                   canon(values)));                                                \
    return SIZE_MAX;                                                                               \
  }                                                                                                \
  size_t shmem_##N##_wait_until_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp,   \
                                            T* values) {                                           \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_wait_until_some_vector",                                                     \
        return rt("shmem_wait_until_some_vector")                                                  \
            .wait_until_some_vector(canon(v), n, idx, st,                                          \
                                    cmp_of(cmp, "shmem_wait_until_some_vector"), canon(values)));  \
    return 0;                                                                                      \
  }                                                                                                \
  int shmem_##N##_test(T* v, int cmp, T value) {                                                   \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_test",                                                                       \
        return rt("shmem_test")                                                                    \
                       .test(canon(v), cmp_of(cmp, "shmem_test"), static_cast<canon_t<T>>(value))  \
                   ? 1                                                                             \
                   : 0);                                                                           \
    return 0;                                                                                      \
  }                                                                                                \
  int shmem_##N##_test_all(T* v, size_t n, const int* st, int cmp, T value) {                      \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_test_all",                                                  \
                         return rt("shmem_test_all")                                               \
                                        .test_all(canon(v), n, st, cmp_of(cmp, "shmem_test_all"),  \
                                                  static_cast<canon_t<T>>(value))                  \
                                    ? 1                                                            \
                                    : 0);                                                          \
    return 0;                                                                                      \
  }                                                                                                \
  size_t shmem_##N##_test_any(T* v, size_t n, const int* st, int cmp, T value) {                   \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_test_any",                                                  \
                         return rt("shmem_test_any")                                               \
                             .test_any(canon(v), n, st, cmp_of(cmp, "shmem_test_any"),             \
                                       static_cast<canon_t<T>>(value)));                           \
    return SIZE_MAX;                                                                               \
  }                                                                                                \
  size_t shmem_##N##_test_some(T* v, size_t n, size_t* idx, const int* st, int cmp, T value) {     \
    SYMMETRA_SHMEM_GUARD("shmem_" #N "_test_some",                                                 \
                         return rt("shmem_test_some")                                              \
                             .test_some(canon(v), n, idx, st, cmp_of(cmp, "shmem_test_some"),      \
                                        static_cast<canon_t<T>>(value)));                          \
    return 0;                                                                                      \
  }                                                                                                \
  int shmem_##N##_test_all_vector(T* v, size_t n, const int* st, int cmp, T* values) {             \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_test_all_vector",                                                            \
        return rt("shmem_test_all_vector")                                                         \
                       .test_all_vector(canon(v), n, st, cmp_of(cmp, "shmem_test_all_vector"),     \
                                        canon(values))                                             \
                   ? 1                                                                             \
                   : 0);                                                                           \
    return 0;                                                                                      \
  }                                                                                                \
  size_t shmem_##N##_test_any_vector(T* v, size_t n, const int* st, int cmp, T* values) {          \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_test_any_vector",                                                            \
        return rt("shmem_test_any_vector")                                                         \
            .test_any_vector(canon(v), n, st, cmp_of(cmp, "shmem_test_any_vector"),                \
                             canon(values)));                                                      \
    return SIZE_MAX;                                                                               \
  }                                                                                                \
  size_t shmem_##N##_test_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp,         \
                                      T* values) {                                                 \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_test_some_vector",                                                           \
        return rt("shmem_test_some_vector")                                                        \
            .test_some_vector(canon(v), n, idx, st, cmp_of(cmp, "shmem_test_some_vector"),         \
                              canon(values)));                                                     \
    return 0;                                                                                      \
  }                                                                                                \
  void shmem_##N##_wait(T* v, T value) {                                                           \
    shmem_##N##_wait_until(v, SHMEM_CMP_NE, value);                                                \
  }
SHMEM_P2P_SYNC_TYPES(SYMMETRA_DEF_P2P)

void shmem_fence(void) {
  SYMMETRA_SHMEM_GUARD("shmem_fence", rt("shmem_fence").fence());
}
// On SHMEM_CTX_INVALID, ctx_fence and ctx_quiet do nothing (OpenSHMEM 1.5 section 9.9).
void shmem_ctx_fence(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) shmem_fence();
}
void shmem_quiet(void) {
  SYMMETRA_SHMEM_GUARD("shmem_quiet", rt("shmem_quiet").quiet());
}
void shmem_ctx_quiet(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) shmem_quiet();
}
// shmemx.h: local completion.
void shmemx_flush(void) {
  SYMMETRA_SHMEM_GUARD("shmemx_flush", rt("shmemx_flush").flush());
}
void shmemx_ctx_flush(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) shmemx_flush();
}
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* pes, size_t npes) {
  pe_quiet(ctx, pes, npes, "shmem_ctx_pe_quiet");
}
void shmem_pe_quiet(const int* pes, size_t npes) {
  pe_quiet(SHMEM_CTX_DEFAULT, pes, npes, "shmem_pe_quiet");
}
void shmem_barrier_all(void) {
  SYMMETRA_SHMEM_GUARD("shmem_barrier_all", rt("shmem_barrier_all").barrier_all());
}
void shmem_sync_all(void) {
  SYMMETRA_SHMEM_GUARD("shmem_sync_all", rt("shmem_sync_all").sync_all());
}
int shmem_team_sync(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return 1;
  SYMMETRA_SHMEM_GUARD("shmem_team_sync", rt("shmem_team_sync").sync(team(t, "shmem_team_sync")));
  return 0;
}
void shmem_barrier(int start, int log_stride, int size, long* psync) {
  SYMMETRA_SHMEM_GUARD("shmem_barrier", {
    rt("shmem_barrier").quiet();
    ActiveSet(rt("shmem_barrier"), start, log_stride, size, psync, "shmem_barrier").sync();
  });
}
void shmem_sync(int start, int log_stride, int size, long* psync) {
  SYMMETRA_SHMEM_GUARD(
      "shmem_sync",
      ActiveSet(rt("shmem_sync"), start, log_stride, size, psync, "shmem_sync").sync());
}

void shmem_set_lock(long* lock) {
  SYMMETRA_SHMEM_GUARD("shmem_set_lock", {
    Runtime& r = rt("shmem_set_lock");
    auto* word = reinterpret_cast<std::uint64_t*>(lock);
    const std::uint64_t mine = r.atomic_fetch_add(word, kTicket, kLockPe) >> 32;
    Deadline deadline(r);
    for (unsigned spins = 0; (r.atomic_fetch(word, kLockPe) & 0xffffffffu) != (mine & 0xffffffffu);
         ++spins) {
      if (spins > 64) sched_yield();
      if (deadline.passed())
        die("shmem_set_lock", "timed out waiting for the lock (SYMMETRA_TIMEOUT_S sets the bound)");
    }
  });
}
void shmem_clear_lock(long* lock) {
  SYMMETRA_SHMEM_GUARD("shmem_clear_lock", {
    Runtime& r = rt("shmem_clear_lock");
    r.quiet();  // the critical section's stores complete before the next holder enters
    auto* word = reinterpret_cast<std::uint64_t*>(lock);
    // The low half wraps within itself: add 1, and take 2^32 back from the high half on wrap.
    const std::uint64_t before = r.atomic_fetch_add(word, std::uint64_t{1}, kLockPe);
    if ((before & 0xffffffffu) == 0xffffffffu) r.atomic_add(word, ~kTicket + 1, kLockPe);
  });
}
int shmem_test_lock(long* lock) {
  SYMMETRA_SHMEM_GUARD("shmem_test_lock", {
    Runtime& r = rt("shmem_test_lock");
    auto* word = reinterpret_cast<std::uint64_t*>(lock);
    const std::uint64_t v = r.atomic_fetch(word, kLockPe);
    if (((v >> 32) & 0xffffffffu) != (v & 0xffffffffu)) return 1;  // held or queued
    return r.atomic_compare_swap(word, v, v + kTicket, kLockPe) == v ? 0 : 1;
  });
  return 1;
}

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

}  // extern "C"

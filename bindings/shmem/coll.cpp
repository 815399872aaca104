// OpenSHMEM collectives (shmem.h): the team forms over the Runtime's collectives, and the
// deprecated active-set forms over ActiveSet (active_set.hpp) with one-sided gets.
#include <complex>
#include <cstring>
#include <vector>

#include "bindings/shmem/active_set.hpp"
#include "bindings/shmem/state.hpp"
#include "symmetra/collectives.hpp"

namespace symmetra::shmem {
namespace {

using coll::ReduceOp;

// Runs f(runtime, team) for a team collective; 0, or 1 for SHMEM_TEAM_INVALID. Elements move
// as unsigned words of their size (word_t); 16-byte elements as byte runs.
template <class F>
int move(shmem_team_t t, const char* op, F&& f) {
  if (t == SHMEM_TEAM_INVALID) return 1;
  SYMMETRA_SHMEM_GUARD(op, f(rt(op), team(t, op)));
  return 0;
}

template <std::size_t kBytes>
int broadcast(shmem_team_t t, void* d, const void* s, std::size_t n, int root, const char* op) {
  return move(t, op, [&](Runtime& r, const Team& tm) {
    if constexpr (kBytes <= 8)
      r.broadcast(tm, static_cast<word_t<kBytes>*>(d), static_cast<const word_t<kBytes>*>(s), n,
                  root);
    else
      r.broadcast(tm, static_cast<std::uint8_t*>(d), static_cast<const std::uint8_t*>(s),
                  n * kBytes, root);
  });
}
template <std::size_t kBytes>
int collect(shmem_team_t t, void* d, const void* s, std::size_t n, bool fixed, const char* op) {
  return move(t, op, [&](Runtime& r, const Team& tm) {
    if constexpr (kBytes <= 8) {
      auto* dd = static_cast<word_t<kBytes>*>(d);
      auto* ss = static_cast<const word_t<kBytes>*>(s);
      fixed ? r.fcollect(tm, dd, ss, n) : r.collect(tm, dd, ss, n);
    } else {
      auto* dd = static_cast<std::uint8_t*>(d);
      auto* ss = static_cast<const std::uint8_t*>(s);
      fixed ? r.fcollect(tm, dd, ss, n * kBytes) : r.collect(tm, dd, ss, n * kBytes);
    }
  });
}
template <std::size_t kBytes>
int alltoall(shmem_team_t t, void* d, const void* s, std::size_t n, const char* op) {
  return move(t, op, [&](Runtime& r, const Team& tm) {
    if constexpr (kBytes <= 8)
      r.alltoall(tm, static_cast<word_t<kBytes>*>(d), static_cast<const word_t<kBytes>*>(s), n);
    else
      r.alltoall(tm, static_cast<std::uint8_t*>(d), static_cast<const std::uint8_t*>(s),
                 n * kBytes);
  });
}
template <std::size_t kBytes>
int alltoalls(shmem_team_t t, void* d, const void* s, std::ptrdiff_t dst, std::ptrdiff_t sst,
              std::size_t n, const char* op) {
  return move(t, op, [&](Runtime& r, const Team& tm) {
    if (dst == 1 && sst == 1) {  // unit strides: the contiguous all-to-all moves whole blocks
      r.alltoall(tm, static_cast<std::uint8_t*>(d), static_cast<const std::uint8_t*>(s),
                 n * kBytes);
    } else if constexpr (kBytes <= 8) {
      r.alltoalls(tm, static_cast<word_t<kBytes>*>(d), static_cast<const word_t<kBytes>*>(s), dst,
                  sst, n);
    } else {  // each 16-byte element as its two 8-byte halves, strided twice as far
      auto* dd = static_cast<std::uint64_t*>(d);
      auto* ss = static_cast<const std::uint64_t*>(s);
      r.alltoalls(tm, dd, ss, 2 * dst, 2 * sst, n);
      r.alltoalls(tm, dd + 1, ss + 1, 2 * dst, 2 * sst, n);
    }
  });
}

template <class T>
int reduce(shmem_team_t t, T* d, const T* s, std::size_t n, ReduceOp rop, const char* op) {
  return move(t, op,
              [&](Runtime& r, const Team& tm) { r.allreduce(tm, canon(d), canon(s), n, rop); });
}

// --- Active-set forms: pull with gets between two syncs of the set; a set of every PE runs the
//     world team's collective instead (same result, faster algorithms, pSync untouched). ---

void as_broadcast(void* d, const void* s, std::size_t bytes, int root, int start, int log_stride,
                  int size, long* psync, const char* op) {
  Runtime& r = rt(op);
  ActiveSet set(r, start, log_stride, size, psync, op);
  if (root < 0 || root >= size)
    die(op, "PE_root " + std::to_string(root) + " is not in the active set");
  if (set.world() && !r.on_gpu())  // the world team's broadcast, the root's dest left alone
    return r.broadcast(r.team_world(), static_cast<std::uint8_t*>(d),
                       static_cast<const std::uint8_t*>(s), bytes, root, false);
  set.sync();  // the root's source is ready
  if (set.rank() != root) r.getmem(d, s, bytes, set.pe(root));
  set.sync();  // nobody changes source before everyone read it
}

template <std::size_t kElem>
void as_collect(void* d, const void* s, std::size_t n, bool fixed, int start, int log_stride,
                int size, long* psync, const char* op) {
  Runtime& r = rt(op);
  ActiveSet set(r, start, log_stride, size, psync, op);
  if (set.world()) {  // the world team's all-gather
    auto* dd = static_cast<word_t<kElem>*>(d);
    const auto* ss = static_cast<const word_t<kElem>*>(s);
    return fixed ? r.fcollect(r.team_world(), dd, ss, n) : r.collect(r.team_world(), dd, ss, n);
  }
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size), static_cast<std::int64_t>(n));
  if (!fixed) {
    r.atomic_set(set.word(), static_cast<std::int64_t>(n), r.my_pe());
    set.sync();
    for (int k = 0; k < size; ++k)
      counts[static_cast<std::size_t>(k)] = r.atomic_fetch(set.word(), set.pe(k));
  }
  set.sync();
  std::size_t at = 0;
  for (int k = 0; k < size; ++k) {
    const std::size_t bytes = static_cast<std::size_t>(counts[static_cast<std::size_t>(k)]) * kElem;
    r.getmem(static_cast<char*>(d) + at, s, bytes, set.pe(k));
    at += bytes;
  }
  set.sync();
  if (!fixed)
    r.atomic_set(set.word(), std::int64_t{0},
                 r.my_pe());  // restored; read by nobody until the next sync
}

template <std::size_t kElem>
void as_alltoall(void* d, const void* s, std::size_t n, int start, int log_stride, int size,
                 long* psync, const char* op) {
  Runtime& r = rt(op);
  ActiveSet set(r, start, log_stride, size, psync, op);
  if (set.world())
    return r.alltoall(r.team_world(), static_cast<word_t<kElem>*>(d),
                      static_cast<const word_t<kElem>*>(s), n);
  const std::size_t bytes = kElem * n;
  set.sync();
  for (int k = 0; k < size; ++k)
    r.getmem(static_cast<char*>(d) + static_cast<std::size_t>(k) * bytes,
             static_cast<const char*>(s) + static_cast<std::size_t>(set.rank()) * bytes, bytes,
             set.pe(k));
  set.sync();
}

template <class E>
void as_alltoalls(void* d, const void* s, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t n,
                  int start, int log_stride, int size, long* psync, const char* op) {
  Runtime& r = rt(op);
  ActiveSet set(r, start, log_stride, size, psync, op);
  if (set.world() && dst == 1 && sst == 1)  // unit strides: the contiguous all-to-all
    return r.alltoall(r.team_world(), static_cast<E*>(d), static_cast<const E*>(s), n);
  if (set.world())
    return r.alltoalls(r.team_world(), static_cast<E*>(d), static_cast<const E*>(s), dst, sst, n);
  const auto me = static_cast<std::ptrdiff_t>(set.rank());
  const auto count = static_cast<std::ptrdiff_t>(n);
  set.sync();
  for (int k = 0; k < size; ++k)
    r.iget(static_cast<E*>(d) + k * count * dst, static_cast<const E*>(s) + me * count * sst, dst,
           sst, n, set.pe(k));
  set.sync();
}

// Combines b into a for every operation T has: integers wrap in 64-bit unsigned arithmetic (no
// UB); min and max need an order (not complex); bitwise needs integers.
template <class T>
T combine(T a, T b, ReduceOp rop) {
  switch (rop) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
      if constexpr (std::is_integral_v<T>) {
        const auto x = static_cast<std::uint64_t>(a), y = static_cast<std::uint64_t>(b);
        return static_cast<T>(rop == ReduceOp::kSum ? x + y : x * y);
      } else {
        return rop == ReduceOp::kSum ? a + b : a * b;
      }
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      if constexpr (std::is_arithmetic_v<T>) return (rop == ReduceOp::kMin) == (b < a) ? b : a;
      break;
    case ReduceOp::kAnd:
    case ReduceOp::kOr:
    case ReduceOp::kXor:
      if constexpr (std::is_integral_v<T>) {
        if (rop == ReduceOp::kAnd) return static_cast<T>(a & b);
        if (rop == ReduceOp::kOr) return static_cast<T>(a | b);
        return static_cast<T>(a ^ b);
      }
      break;
  }
  return a;
}

// A reduction by pulls over any group of members (an active set, or a team for the types the
// Runtime's collectives do not carry: long double, complex; and the scans): every member reads
// the sources of members 0 to upto - 1 in member order (every member's for a reduction), so
// results agree bit for bit; with upto 0, dest gets zeros. dest may be source, so nothing is
// written before every member has read. Members: size(), pe(k) (world PE), sync().
template <class T, class Members>
void reduce_by_pulls(Runtime& r, Members& m, T* d, const T* s, std::size_t count, ReduceOp rop,
                     int upto) {
  std::vector<T> acc(count), part(count);
  m.sync();
  for (int k = 0; k < upto; ++k) {
    r.getmem(part.data(), s, count * sizeof(T), m.pe(k));
    for (std::size_t i = 0; i < count; ++i)
      acc[i] = k == 0 ? part[i] : combine(acc[i], part[i], rop);
  }
  m.sync();
  // Through the Runtime, not memcpy: on the GPU backend dest is device memory.
  r.putmem(d, acc.data(), count * sizeof(T), r.my_pe());
}

// The Runtime's collectives carry the fixed-width integers, float and double; long double and
// the complex types reduce by pulls everywhere.
template <class T>
inline constexpr bool kPulled = std::is_same_v<T, long double> || !std::is_arithmetic_v<T>;

template <class T>
void as_reduce(T* d, const T* s, int n, ReduceOp rop, int start, int log_stride, int size,
               long* psync, const char* op) {
  Runtime& r = rt(op);
  ActiveSet set(r, start, log_stride, size, psync, op);
  if (n < 0) die(op, "nreduce is negative");
  const std::size_t count = static_cast<std::size_t>(n);
  if constexpr (!kPulled<T>) {
    if (set.world())
      return r.allreduce(r.team_world(), canon(d), canon(s), count, rop);  // in place allowed
  }
  r.quiet();  // sources written with puts are complete before anyone reads them
  reduce_by_pulls(r, set, d, s, count, rop, set.size());
}

// A team's members, for reduce_by_pulls.
struct TeamMembers {
  Runtime& r;
  Team t;
  int size() const { return t.n_pes(); }
  int pe(int k) const { return t.world_pe(k); }
  void sync() { r.sync(t); }
};

// Team reductions of the types the Runtime's collectives do not carry.
template <class T>
int reduce_pulled(shmem_team_t t, T* d, const T* s, std::size_t n, ReduceOp rop, const char* op) {
  if (t == SHMEM_TEAM_INVALID) return 1;
  SYMMETRA_SHMEM_GUARD(op, {
    Runtime& r = rt(op);
    r.quiet();  // sources written with puts are complete before anyone reads them
    TeamMembers m{r, team(t, op)};
    reduce_by_pulls(r, m, d, s, n, rop, m.size());
  });
  return 0;
}

// Prefix sums over a team (OpenSHMEM 1.6), by pulls like the reductions above: member k sums
// the sources of members 0 to k (inclusive) or 0 to k - 1 (exclusive: member 0 gets zeros).
// O(team size) gets for the last member: the scans are rare, and this is exact and in order.
template <class T>
int scan(shmem_team_t t, T* d, const T* s, std::size_t n, bool inclusive, const char* op) {
  if (t == SHMEM_TEAM_INVALID) return 1;
  SYMMETRA_SHMEM_GUARD(op, {
    Runtime& r = rt(op);
    r.quiet();  // sources written with puts are complete before anyone reads them
    TeamMembers m{r, team(t, op)};
    const int me = m.t.my_pe();
    reduce_by_pulls(r, m, d, s, n, ReduceOp::kSum, inclusive ? me + 1 : me);
  });
  return 0;
}

}  // namespace
}  // namespace symmetra::shmem

using namespace symmetra::shmem;
using symmetra::coll::ReduceOp;

extern "C" {

int shmem_broadcastmem(shmem_team_t t, void* d, const void* s, size_t n, int root) {
  return broadcast<1>(t, d, s, n, root, "shmem_broadcastmem");
}
int shmem_collectmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return collect<1>(t, d, s, n, false, "shmem_collectmem");
}
int shmem_fcollectmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return collect<1>(t, d, s, n, true, "shmem_fcollectmem");
}
int shmem_alltoallmem(shmem_team_t t, void* d, const void* s, size_t n) {
  return alltoall<1>(t, d, s, n, "shmem_alltoallmem");
}
int shmem_alltoallsmem(shmem_team_t t, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,
                       size_t n) {
  return alltoalls<1>(t, d, s, dst, sst, n, "shmem_alltoallsmem");
}

#define SYMMETRA_DEF_COLL(T, N)                                                             \
  int shmem_##N##_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {         \
    return broadcast<sizeof(T)>(t, d, s, n, root, "shmem_" #N "_broadcast");                \
  }                                                                                         \
  int shmem_##N##_collect(shmem_team_t t, T* d, const T* s, size_t n) {                     \
    return collect<sizeof(T)>(t, d, s, n, false, "shmem_" #N "_collect");                   \
  }                                                                                         \
  int shmem_##N##_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {                    \
    return collect<sizeof(T)>(t, d, s, n, true, "shmem_" #N "_fcollect");                   \
  }                                                                                         \
  int shmem_##N##_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {                    \
    return alltoall<sizeof(T)>(t, d, s, n, "shmem_" #N "_alltoall");                        \
  }                                                                                         \
  int shmem_##N##_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t n) {                                                     \
    return alltoalls<sizeof(T)>(t, d, s, dst, sst, n, "shmem_" #N "_alltoalls");            \
  }
SHMEM_RMA_TYPES(SYMMETRA_DEF_COLL)

#define SYMMETRA_DEF_REDUCE(T, N, OP, ROP)                                      \
  int shmem_##N##_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {   \
    return reduce<T>(t, d, s, n, ReduceOp::ROP, "shmem_" #N "_" #OP "_reduce"); \
  }
// clang-format off
#define SYMMETRA_DEF_REDUCE_BIT(T, N)                                     \
  SYMMETRA_DEF_REDUCE(T, N, and, kAnd) SYMMETRA_DEF_REDUCE(T, N, or, kOr) \
  SYMMETRA_DEF_REDUCE(T, N, xor, kXor)
#define SYMMETRA_DEF_REDUCE_ARITH(T, N)                                     \
  SYMMETRA_DEF_REDUCE(T, N, max, kMax) SYMMETRA_DEF_REDUCE(T, N, min, kMin) \
  SYMMETRA_DEF_REDUCE(T, N, sum, kSum) SYMMETRA_DEF_REDUCE(T, N, prod, kProd)
// clang-format on
SHMEM_REDUCE_BITWISE_TYPES(SYMMETRA_DEF_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(SYMMETRA_DEF_REDUCE_ARITH)

// long double and the complex types, by pulls (CPU). std::complex<T> has the layout of C's
// T _Complex, which shmem.h declares.
#define SYMMETRA_DEF_REDUCE_PULLED(T, N, OP, ROP)                                      \
  int shmem_##N##_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {          \
    return reduce_pulled<T>(t, d, s, n, ReduceOp::ROP, "shmem_" #N "_" #OP "_reduce"); \
  }
SYMMETRA_DEF_REDUCE_PULLED(long double, longdouble, max, kMax)
SYMMETRA_DEF_REDUCE_PULLED(long double, longdouble, min, kMin)
SYMMETRA_DEF_REDUCE_PULLED(long double, longdouble, sum, kSum)
SYMMETRA_DEF_REDUCE_PULLED(long double, longdouble, prod, kProd)
SYMMETRA_DEF_REDUCE_PULLED(std::complex<float>, complexf, sum, kSum)
SYMMETRA_DEF_REDUCE_PULLED(std::complex<float>, complexf, prod, kProd)
SYMMETRA_DEF_REDUCE_PULLED(std::complex<double>, complexd, sum, kSum)
SYMMETRA_DEF_REDUCE_PULLED(std::complex<double>, complexd, prod, kProd)

// --- Deprecated active-set collectives ---
#define SYMMETRA_DEF_AS_SIZED(B, BYTES)                                                            \
  void shmem_broadcast##B(void* d, const void* s, size_t n, int root, int start, int ls, int size, \
                          long* ps) {                                                              \
    SYMMETRA_SHMEM_GUARD("shmem_broadcast" #B, as_broadcast(d, s, n* BYTES, root, start, ls, size, \
                                                            ps, "shmem_broadcast" #B));            \
  }                                                                                                \
  void shmem_collect##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) { \
    SYMMETRA_SHMEM_GUARD("shmem_collect" #B, as_collect<BYTES>(d, s, n, false, start, ls, size,    \
                                                               ps, "shmem_collect" #B));           \
  }                                                                                                \
  void shmem_fcollect##B(void* d, const void* s, size_t n, int start, int ls, int size,            \
                         long* ps) {                                                               \
    SYMMETRA_SHMEM_GUARD("shmem_fcollect" #B, as_collect<BYTES>(d, s, n, true, start, ls, size,    \
                                                                ps, "shmem_fcollect" #B));         \
  }                                                                                                \
  void shmem_alltoall##B(void* d, const void* s, size_t n, int start, int ls, int size,            \
                         long* ps) {                                                               \
    SYMMETRA_SHMEM_GUARD("shmem_alltoall" #B,                                                      \
                         as_alltoall<BYTES>(d, s, n, start, ls, size, ps, "shmem_alltoall" #B));   \
  }
SYMMETRA_DEF_AS_SIZED(32, 4)
SYMMETRA_DEF_AS_SIZED(64, 8)
void shmem_alltoalls32(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int start,
                       int ls, int size, long* ps) {
  SYMMETRA_SHMEM_GUARD("shmem_alltoalls32", as_alltoalls<word_t<4>>(d, s, dst, sst, n, start, ls,
                                                                    size, ps, "shmem_alltoalls32"));
}
void shmem_alltoalls64(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int start,
                       int ls, int size, long* ps) {
  SYMMETRA_SHMEM_GUARD("shmem_alltoalls64", as_alltoalls<word_t<8>>(d, s, dst, sst, n, start, ls,
                                                                    size, ps, "shmem_alltoalls64"));
}

#define SYMMETRA_DEF_TO_ALL(T, N, OP, ROP)                                                         \
  void shmem_##N##_##OP##_to_all(T* d, const T* s, int n, int start, int ls, int size, T*,         \
                                 long* ps) {                                                       \
    SYMMETRA_SHMEM_GUARD(                                                                          \
        "shmem_" #N "_" #OP "_to_all",                                                             \
        as_reduce<T>(d, s, n, ReduceOp::ROP, start, ls, size, ps, "shmem_" #N "_" #OP "_to_all")); \
  }
// clang-format off
#define SYMMETRA_DEF_TO_ALL_BIT(T, N)                                     \
  SYMMETRA_DEF_TO_ALL(T, N, and, kAnd) SYMMETRA_DEF_TO_ALL(T, N, or, kOr) \
  SYMMETRA_DEF_TO_ALL(T, N, xor, kXor)
#define SYMMETRA_DEF_TO_ALL_ARITH(T, N)                                     \
  SYMMETRA_DEF_TO_ALL(T, N, max, kMax) SYMMETRA_DEF_TO_ALL(T, N, min, kMin) \
  SYMMETRA_DEF_TO_ALL(T, N, sum, kSum) SYMMETRA_DEF_TO_ALL(T, N, prod, kProd)
// clang-format on
SHMEM_TO_ALL_BITWISE_TYPES(SYMMETRA_DEF_TO_ALL_BIT)
SHMEM_TO_ALL_ARITH_TYPES(SYMMETRA_DEF_TO_ALL_ARITH)
SYMMETRA_DEF_TO_ALL_ARITH(long double, longdouble)
SYMMETRA_DEF_TO_ALL(std::complex<float>, complexf, sum, kSum)
SYMMETRA_DEF_TO_ALL(std::complex<float>, complexf, prod, kProd)
SYMMETRA_DEF_TO_ALL(std::complex<double>, complexd, sum, kSum)
SYMMETRA_DEF_TO_ALL(std::complex<double>, complexd, prod, kProd)

// Scans (OpenSHMEM 1.6): the types of sum_reduce.
#define SYMMETRA_DEF_SCAN(T, N)                                            \
  int shmem_##N##_sum_inscan(shmem_team_t t, T* d, const T* s, size_t n) { \
    return scan<T>(t, d, s, n, true, "shmem_" #N "_sum_inscan");           \
  }                                                                        \
  int shmem_##N##_sum_exscan(shmem_team_t t, T* d, const T* s, size_t n) { \
    return scan<T>(t, d, s, n, false, "shmem_" #N "_sum_exscan");          \
  }
SHMEM_REDUCE_ARITH_TYPES(SYMMETRA_DEF_SCAN)
SYMMETRA_DEF_SCAN(long double, longdouble)
SYMMETRA_DEF_SCAN(std::complex<float>, complexf)
SYMMETRA_DEF_SCAN(std::complex<double>, complexd)

}  // extern "C"

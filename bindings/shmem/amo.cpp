// OpenSHMEM atomic memory operations (shmem.h): standard, extended and bitwise families, their
// non-blocking fetch forms (complete on return, so already "delivered" at the next quiet), and
// the deprecated 1.3 names. Each C type runs as the fixed-width type of its size (Canon).
#include <shmemx.h>

#include "bindings/shmem/state.hpp"

namespace symmetra::shmem {
namespace {

enum class Op {
  kFetch,
  kSet,
  kSwap,
  kCswap,
  kFinc,
  kInc,
  kFadd,
  kAdd,
  kFand,
  kAnd,
  kFor,
  kOr,
  kFxor,
  kXor
};

template <class T>
T amo(shmem_ctx_t ctx, Op op, T* dest, T value, T cond, int pe, const char* name) {
  check_ctx(ctx, name);
  using C = canon_t<T>;
  C* d = canon(dest);
  const C v = static_cast<C>(value), c = static_cast<C>(cond);
  C r{};
  SYMMETRA_SHMEM_GUARD(name, {
    Runtime& R = rt(name);
    const int w = world_pe(ctx, pe, name);
    switch (op) {
      case Op::kFetch:
        r = R.atomic_fetch(d, w);
        return static_cast<T>(r);
      case Op::kSet:
        R.atomic_set(d, v, w);
        return static_cast<T>(r);
      case Op::kSwap:
        r = R.atomic_swap(d, v, w);
        return static_cast<T>(r);
      default:
        break;
    }
    // The extended table adds float and double to fetch, set and swap; shmemx.h to add too.
    if constexpr (!std::is_integral_v<C>) switch (op) {
        case Op::kFadd:
          r = R.atomic_fetch_add(d, v, w);
          return static_cast<T>(r);
        case Op::kAdd:
          R.atomic_add(d, v, w);
          return static_cast<T>(r);
        default:
          break;
      }
    if constexpr (std::is_integral_v<C>) switch (op) {
        case Op::kCswap:
          r = R.atomic_compare_swap(d, c, v, w);
          break;
        case Op::kFinc:
          r = R.atomic_fetch_inc(d, w);
          break;
        case Op::kInc:
          R.atomic_inc(d, w);
          break;
        case Op::kFadd:
          r = R.atomic_fetch_add(d, v, w);
          break;
        case Op::kAdd:
          R.atomic_add(d, v, w);
          break;
        case Op::kFand:
          r = R.atomic_fetch_and(d, v, w);
          break;
        case Op::kAnd:
          R.atomic_and(d, v, w);
          break;
        case Op::kFor:
          r = R.atomic_fetch_or(d, v, w);
          break;
        case Op::kOr:
          R.atomic_or(d, v, w);
          break;
        case Op::kFxor:
          r = R.atomic_fetch_xor(d, v, w);
          break;
        case Op::kXor:
          R.atomic_xor(d, v, w);
          break;
        default:
          break;
      }
  });
  return static_cast<T>(r);
}

// Bitwise operations exist for integers only; the float rows never reach them.
template <class T>
T amo_bits(shmem_ctx_t ctx, Op op, T* dest, T value, int pe, const char* name) {
  static_assert(std::is_integral_v<T>);
  return amo(ctx, op, dest, value, T{}, pe, name);
}

}  // namespace
}  // namespace symmetra::shmem

using namespace symmetra::shmem;
#define D SHMEM_CTX_DEFAULT

extern "C" {

#define SYMMETRA_DEF_AMO_STD(T, N)                                                               \
  T shmem_##N##_atomic_fetch_inc(T* d, int pe) {                                                 \
    return amo<T>(D, Op::kFinc, d, 0, 0, pe, "shmem_" #N "_atomic_fetch_inc");                   \
  }                                                                                              \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t c, T* d, int pe) {                              \
    return amo<T>(c, Op::kFinc, d, 0, 0, pe, "shmem_ctx_" #N "_atomic_fetch_inc");               \
  }                                                                                              \
  void shmem_##N##_atomic_inc(T* d, int pe) {                                                    \
    amo<T>(D, Op::kInc, d, 0, 0, pe, "shmem_" #N "_atomic_inc");                                 \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t c, T* d, int pe) {                                 \
    amo<T>(c, Op::kInc, d, 0, 0, pe, "shmem_ctx_" #N "_atomic_inc");                             \
  }                                                                                              \
  T shmem_##N##_atomic_fetch_add(T* d, T v, int pe) {                                            \
    return amo<T>(D, Op::kFadd, d, v, 0, pe, "shmem_" #N "_atomic_fetch_add");                   \
  }                                                                                              \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t c, T* d, T v, int pe) {                         \
    return amo<T>(c, Op::kFadd, d, v, 0, pe, "shmem_ctx_" #N "_atomic_fetch_add");               \
  }                                                                                              \
  void shmem_##N##_atomic_add(T* d, T v, int pe) {                                               \
    amo<T>(D, Op::kAdd, d, v, 0, pe, "shmem_" #N "_atomic_add");                                 \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t c, T* d, T v, int pe) {                            \
    amo<T>(c, Op::kAdd, d, v, 0, pe, "shmem_ctx_" #N "_atomic_add");                             \
  }                                                                                              \
  T shmem_##N##_atomic_compare_swap(T* d, T cond, T v, int pe) {                                 \
    return amo<T>(D, Op::kCswap, d, v, cond, pe, "shmem_" #N "_atomic_compare_swap");            \
  }                                                                                              \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t c, T* d, T cond, T v, int pe) {              \
    return amo<T>(c, Op::kCswap, d, v, cond, pe, "shmem_ctx_" #N "_atomic_compare_swap");        \
  }                                                                                              \
  void shmem_##N##_atomic_fetch_inc_nbi(T* f, T* d, int pe) {                                    \
    *f = shmem_##N##_atomic_fetch_inc(d, pe);                                                    \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t c, T* f, T* d, int pe) {                 \
    *f = shmem_ctx_##N##_atomic_fetch_inc(c, d, pe);                                             \
  }                                                                                              \
  void shmem_##N##_atomic_fetch_add_nbi(T* f, T* d, T v, int pe) {                               \
    *f = shmem_##N##_atomic_fetch_add(d, v, pe);                                                 \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t c, T* f, T* d, T v, int pe) {            \
    *f = shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe);                                          \
  }                                                                                              \
  void shmem_##N##_atomic_compare_swap_nbi(T* f, T* d, T cond, T v, int pe) {                    \
    *f = shmem_##N##_atomic_compare_swap(d, cond, v, pe);                                        \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t c, T* f, T* d, T cond, T v, int pe) { \
    *f = shmem_ctx_##N##_atomic_compare_swap(c, d, cond, v, pe);                                 \
  }
SHMEM_AMO_STANDARD_TYPES(SYMMETRA_DEF_AMO_STD)

#define SYMMETRA_DEF_AMO_EXT(T, N)                                                              \
  T shmem_##N##_atomic_fetch(const T* s, int pe) {                                              \
    return amo<T>(D, Op::kFetch, const_cast<T*>(s), 0, 0, pe, "shmem_" #N "_atomic_fetch");     \
  }                                                                                             \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t c, const T* s, int pe) {                           \
    return amo<T>(c, Op::kFetch, const_cast<T*>(s), 0, 0, pe, "shmem_ctx_" #N "_atomic_fetch"); \
  }                                                                                             \
  void shmem_##N##_atomic_set(T* d, T v, int pe) {                                              \
    amo<T>(D, Op::kSet, d, v, 0, pe, "shmem_" #N "_atomic_set");                                \
  }                                                                                             \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t c, T* d, T v, int pe) {                           \
    amo<T>(c, Op::kSet, d, v, 0, pe, "shmem_ctx_" #N "_atomic_set");                            \
  }                                                                                             \
  T shmem_##N##_atomic_swap(T* d, T v, int pe) {                                                \
    return amo<T>(D, Op::kSwap, d, v, 0, pe, "shmem_" #N "_atomic_swap");                       \
  }                                                                                             \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t c, T* d, T v, int pe) {                             \
    return amo<T>(c, Op::kSwap, d, v, 0, pe, "shmem_ctx_" #N "_atomic_swap");                   \
  }                                                                                             \
  void shmem_##N##_atomic_fetch_nbi(T* f, const T* s, int pe) {                                 \
    *f = shmem_##N##_atomic_fetch(s, pe);                                                       \
  }                                                                                             \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t c, T* f, const T* s, int pe) {              \
    *f = shmem_ctx_##N##_atomic_fetch(c, s, pe);                                                \
  }                                                                                             \
  void shmem_##N##_atomic_swap_nbi(T* f, T* d, T v, int pe) {                                   \
    *f = shmem_##N##_atomic_swap(d, v, pe);                                                     \
  }                                                                                             \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t c, T* f, T* d, T v, int pe) {                \
    *f = shmem_ctx_##N##_atomic_swap(c, d, v, pe);                                              \
  }
SHMEM_AMO_EXTENDED_TYPES(SYMMETRA_DEF_AMO_EXT)

// shmemx.h: floating-point add.
#define SYMMETRA_DEF_AMO_FADD(T, N)                                                 \
  void shmemx_##N##_atomic_add(T* d, T v, int pe) {                                 \
    amo<T>(D, Op::kAdd, d, v, 0, pe, "shmemx_" #N "_atomic_add");                   \
  }                                                                                 \
  void shmemx_ctx_##N##_atomic_add(shmem_ctx_t c, T* d, T v, int pe) {              \
    amo<T>(c, Op::kAdd, d, v, 0, pe, "shmemx_ctx_" #N "_atomic_add");               \
  }                                                                                 \
  T shmemx_##N##_atomic_fetch_add(T* d, T v, int pe) {                              \
    return amo<T>(D, Op::kFadd, d, v, 0, pe, "shmemx_" #N "_atomic_fetch_add");     \
  }                                                                                 \
  T shmemx_ctx_##N##_atomic_fetch_add(shmem_ctx_t c, T* d, T v, int pe) {           \
    return amo<T>(c, Op::kFadd, d, v, 0, pe, "shmemx_ctx_" #N "_atomic_fetch_add"); \
  }
SYMMETRA_DEF_AMO_FADD(float, float)
SYMMETRA_DEF_AMO_FADD(double, double)

#define SYMMETRA_DEF_AMO_BIT_OP(T, N, OP, FOP, F, P)                                     \
  T shmem_##N##_atomic_fetch_##OP(T* d, T v, int pe) {                                   \
    return amo_bits<T>(D, Op::F, d, v, pe, "shmem_" #N "_atomic_fetch_" #OP);            \
  }                                                                                      \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t c, T* d, T v, int pe) {                \
    return amo_bits<T>(c, Op::F, d, v, pe, "shmem_ctx_" #N "_atomic_fetch_" #OP);        \
  }                                                                                      \
  void shmem_##N##_atomic_##OP(T* d, T v, int pe) {                                      \
    amo_bits<T>(D, Op::P, d, v, pe, "shmem_" #N "_atomic_" #OP);                         \
  }                                                                                      \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t c, T* d, T v, int pe) {                   \
    amo_bits<T>(c, Op::P, d, v, pe, "shmem_ctx_" #N "_atomic_" #OP);                     \
  }                                                                                      \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* f, T* d, T v, int pe) {                    \
    *f = shmem_##N##_atomic_fetch_##OP(d, v, pe);                                        \
  }                                                                                      \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t c, T* f, T* d, T v, int pe) { \
    *f = shmem_ctx_##N##_atomic_fetch_##OP(c, d, v, pe);                                 \
  }
#define SYMMETRA_DEF_AMO_BIT(T, N)                           \
  SYMMETRA_DEF_AMO_BIT_OP(T, N, and, fetch_and, kFand, kAnd) \
  SYMMETRA_DEF_AMO_BIT_OP(T, N, or, fetch_or, kFor, kOr)     \
  SYMMETRA_DEF_AMO_BIT_OP(T, N, xor, fetch_xor, kFxor, kXor)
SHMEM_AMO_BITWISE_TYPES(SYMMETRA_DEF_AMO_BIT)

#define SYMMETRA_DEF_AMO_OLD(T, N)                          \
  T shmem_##N##_fadd(T* d, T v, int pe) {                   \
    return shmem_##N##_atomic_fetch_add(d, v, pe);          \
  }                                                         \
  T shmem_##N##_finc(T* d, int pe) {                        \
    return shmem_##N##_atomic_fetch_inc(d, pe);             \
  }                                                         \
  void shmem_##N##_add(T* d, T v, int pe) {                 \
    shmem_##N##_atomic_add(d, v, pe);                       \
  }                                                         \
  void shmem_##N##_inc(T* d, int pe) {                      \
    shmem_##N##_atomic_inc(d, pe);                          \
  }                                                         \
  T shmem_##N##_cswap(T* d, T cond, T v, int pe) {          \
    return shmem_##N##_atomic_compare_swap(d, cond, v, pe); \
  }                                                         \
  T shmem_##N##_swap(T* d, T v, int pe) {                   \
    return shmem_##N##_atomic_swap(d, v, pe);               \
  }                                                         \
  T shmem_##N##_fetch(const T* s, int pe) {                 \
    return shmem_##N##_atomic_fetch(s, pe);                 \
  }                                                         \
  void shmem_##N##_set(T* d, T v, int pe) {                 \
    shmem_##N##_atomic_set(d, v, pe);                       \
  }
SYMMETRA_DEF_AMO_OLD(int, int)
SYMMETRA_DEF_AMO_OLD(long, long)
SYMMETRA_DEF_AMO_OLD(long long, longlong)
float shmem_float_swap(float* d, float v, int pe) {
  return shmem_float_atomic_swap(d, v, pe);
}
double shmem_double_swap(double* d, double v, int pe) {
  return shmem_double_atomic_swap(d, v, pe);
}
float shmem_float_fetch(const float* s, int pe) {
  return shmem_float_atomic_fetch(s, pe);
}
double shmem_double_fetch(const double* s, int pe) {
  return shmem_double_atomic_fetch(s, pe);
}
void shmem_float_set(float* d, float v, int pe) {
  shmem_float_atomic_set(d, v, pe);
}
void shmem_double_set(double* d, double v, int pe) {
  shmem_double_atomic_set(d, v, pe);
}

}  // extern "C"

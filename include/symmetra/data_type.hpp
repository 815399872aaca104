// Element types of the collectives, as a value: the GPU backend runs the host forms of the
// collectives through kernels compiled once per type in the library, and picks them by this.
#pragma once

#include <cstdint>
#include <type_traits>

#include "symmetra/core/float16.hpp"

namespace symmetra {

enum class DataType : int {
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kBfloat16,
  kFloat,
  kDouble,
};

// The DataType of T: integers by size and signedness (so char, long and long long map to the
// fixed-width type they match), half, bfloat16, float, double.
template <class T>
constexpr DataType data_type_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, half>)
    return DataType::kHalf;
  else if constexpr (std::is_same_v<U, bfloat16>)
    return DataType::kBfloat16;
  else if constexpr (std::is_same_v<U, float>)
    return DataType::kFloat;
  else if constexpr (std::is_same_v<U, double>)
    return DataType::kDouble;
  else {
    static_assert(std::is_integral_v<U> && sizeof(U) <= 8,
                  "collectives take integers up to 64 bits, half, bfloat16, float and double");
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1)
      return s ? DataType::kInt8 : DataType::kUint8;
    else if constexpr (sizeof(U) == 2)
      return s ? DataType::kInt16 : DataType::kUint16;
    else if constexpr (sizeof(U) == 4)
      return s ? DataType::kInt32 : DataType::kUint32;
    else
      return s ? DataType::kInt64 : DataType::kUint64;
  }
}

// The same as a constant, which device code may read (it may not call a host constexpr function).
template <class T>
inline constexpr DataType kDataTypeOf = data_type_of<T>();

// The tag visit_type passes: std::type_identity, or the same where the includer compiles C++17
// (nvshmem.h's device forms under nvcc's default standard).
#if __cplusplus >= 202002L
template <class T>
using TypeTag = std::type_identity<T>;
#else
template <class T>
struct TypeTag {
  using type = T;
};
#endif

// Calls f(TypeTag<T>{}) with the C++ type of `t` and returns what f returns: how
// type-erased code (the collectives' dispatch, host-initiated atomics) gets back to templates.
template <class F>
constexpr decltype(auto) visit_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt8:
      return f(TypeTag<std::int8_t>{});
    case DataType::kUint8:
      return f(TypeTag<std::uint8_t>{});
    case DataType::kInt16:
      return f(TypeTag<std::int16_t>{});
    case DataType::kUint16:
      return f(TypeTag<std::uint16_t>{});
    case DataType::kInt32:
      return f(TypeTag<std::int32_t>{});
    case DataType::kUint32:
      return f(TypeTag<std::uint32_t>{});
    case DataType::kInt64:
      return f(TypeTag<std::int64_t>{});
    case DataType::kUint64:
      return f(TypeTag<std::uint64_t>{});
    case DataType::kHalf:
      return f(TypeTag<half>{});
    case DataType::kBfloat16:
      return f(TypeTag<bfloat16>{});
    case DataType::kFloat:
      return f(TypeTag<float>{});
    case DataType::kDouble:
      break;
  }
  return f(TypeTag<double>{});
}

// The same with the unsigned integer of `bytes` (1, 2, 4, else 8): what moves elements of a
// type of that size.
template <class F>
constexpr decltype(auto) visit_size(std::size_t bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(TypeTag<std::uint8_t>{});
    case 2:
      return f(TypeTag<std::uint16_t>{});
    case 4:
      return f(TypeTag<std::uint32_t>{});
    default:
      break;
  }
  return f(TypeTag<std::uint64_t>{});
}

constexpr int data_type_size(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
      return 1;
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kHalf:
    case DataType::kBfloat16:
      return 2;
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kFloat:
      return 4;
    default:
      return 8;
  }
}

}  // namespace symmetra

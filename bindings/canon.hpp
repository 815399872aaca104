// The C types of the C APIs (shmem.h, nvshmem.h) as the Runtime's templates take them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace symmetra::bindings {

// The type the Runtime's templates take for C type T: fixed-width integers of the same size and
// signedness (char is int8_t or uint8_t as the platform has it), float and double as they are.
template <class T>
struct Canon {
  using type = std::conditional_t<
      std::is_floating_point_v<T>, T,
      std::conditional_t<
          std::is_signed_v<T>,
          std::conditional_t<
              sizeof(T) == 1, std::int8_t,
              std::conditional_t<sizeof(T) == 2, std::int16_t,
                                 std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>>>,
          std::conditional_t<sizeof(T) == 1, std::uint8_t,
                             std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                                   std::uint64_t>>>>>;
};
template <class T>
using canon_t = typename Canon<T>::type;
template <class T>
canon_t<T>* canon(T* p) {
  return reinterpret_cast<canon_t<T>*>(p);
}
template <class T>
const canon_t<T>* canon(const T* p) {
  return reinterpret_cast<const canon_t<T>*>(p);
}

// A 16-byte element (long double, put128): moved as bytes.
struct Bytes16 {
  std::uint64_t lo, hi;
};

// The element type that moves kBytes-sized values (no arithmetic on them): unsigned words, or
// Bytes16.
template <std::size_t kBytes>
using word_t = std::conditional_t<
    kBytes == 1, std::uint8_t,
    std::conditional_t<
        kBytes == 2, std::uint16_t,
        std::conditional_t<kBytes == 4, std::uint32_t,
                           std::conditional_t<kBytes == 8, std::uint64_t, Bytes16>>>>;

}  // namespace symmetra::bindings

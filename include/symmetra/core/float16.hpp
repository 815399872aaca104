// 16-bit floating-point storage types for reductions, usable on the host and in kernels without
// CUDA's headers: IEEE binary16 (`half`) and bfloat16. Arithmetic happens in float: convert,
// compute, convert back (round to nearest even).
#pragma once

#include <cstdint>
#include <cstring>

#include "symmetra/core/platform.hpp"

namespace symmetra {

namespace detail {
SYMMETRA_INLINE std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
SYMMETRA_INLINE float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
}  // namespace detail

struct bfloat16 {
  std::uint16_t bits;  // trivially default-constructible, like CUDA's __half
  bfloat16() = default;
  SYMMETRA_INLINE explicit bfloat16(float f) {
    const std::uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN stays NaN
      bits = static_cast<std::uint16_t>((u >> 16) | 0x40u);
      return;
    }
    bits = static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  SYMMETRA_INLINE explicit operator float() const {
    return detail::bits_float(static_cast<std::uint32_t>(bits) << 16);
  }
};

struct half {
  std::uint16_t bits;  // trivially default-constructible, like CUDA's __half
  half() = default;
  SYMMETRA_INLINE explicit half(float f) {
    const std::uint32_t u = detail::float_bits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) {  // NaN
      bits = static_cast<std::uint16_t>(sign | 0x7e00u);
    } else if (a >= 0x477ff000u) {  // rounds to infinity (>= 65520)
      bits = static_cast<std::uint16_t>(sign | 0x7c00u);
    } else if (a < 0x38800000u) {  // subnormal or zero in half: scale into an integer and round
      const float mag = detail::bits_float(a) * 16777216.0f;  // * 2^24: units of 2^-24
      std::uint32_t m = static_cast<std::uint32_t>(mag);
      const float rest = mag - static_cast<float>(m);
      if (rest > 0.5f || (rest == 0.5f && (m & 1u))) ++m;
      bits = static_cast<std::uint16_t>(sign | m);
    } else {  // normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even
      const std::uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - (112u << 23);
      bits = static_cast<std::uint16_t>(sign | (r >> 13));
    }
  }
  SYMMETRA_INLINE explicit operator float() const {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1fu;
    const std::uint32_t man = bits & 0x3ffu;
    if (exp == 0) {  // zero or subnormal: man * 2^-24
      const float f = static_cast<float>(man) * (1.0f / 16777216.0f);
      return sign ? -f : f;
    }
    if (exp == 31) return detail::bits_float(sign | 0x7f800000u | (man << 13));
    return detail::bits_float(sign | ((exp + 112u) << 23) | (man << 13));
  }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace symmetra

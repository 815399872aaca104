// The host's monotonic clock in nanoseconds, for wait bounds and timings. Threads: any.
#pragma once

#include <chrono>
#include <cstdint>

namespace symmetra::detail {

inline std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace symmetra::detail

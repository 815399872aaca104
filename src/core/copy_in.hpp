// The loops behind host_copy_in (device/impl/copy.hpp), each callable on its own so that tests
// check every loop this CPU can run, not only the one host_copy_in picks.
#pragma once

#include <cstddef>

namespace symmetra::device::detail {

enum class CopyInLoop { kMemcpy, kAvx2, kAvx512 };

// Copies with `loop`; false (nothing copied) where this build or CPU cannot run it: the vector
// loops need x86-64 and are left out of sanitizer builds.
bool copy_in_using(CopyInLoop loop, void* dst, const void* src, std::size_t bytes);

}  // namespace symmetra::device::detail

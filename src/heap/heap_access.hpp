// How a transport reads and writes a PE's heap memory that the host cannot load and store (a
// GPU heap): the backend's copies and atomics. The backend makes one (Backend::heap_access),
// the runtime hands it to the transport with the memory it registers, and the transport calls
// it where a peer's operation lands (UCX's served mode).
//
// Threads: the transport calls it from whichever thread serves its peers (its progress thread,
// or a PE thread that progresses), one call at a time. Ordering: the calls take effect in the
// order they are made. A load or an atomic is complete on return; a store may complete later,
// by the next flush (null flush: on return).
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/data_type.hpp"
#include "symmetra/types.hpp"

namespace symmetra::detail {

struct HeapAccess {
  void* arg = nullptr;
  // `bytes` from host memory `src` into this PE's heap at `dst`, each aligned 8-byte word whole.
  void (*store)(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) = nullptr;
  // `bytes` of this PE's heap at `src` into host memory `dst`, each aligned 8-byte word whole.
  void (*load)(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) = nullptr;
  // `op` on the word of `type` at `word`; operands and the old value as the word's bits.
  std::uint64_t (*amo)(void* arg, std::byte* word, AmoOp op, DataType type, std::uint64_t value,
                       std::uint64_t cond) = nullptr;
  // Completes every store made before it: what a peer's quiet waits for (null: nothing to do).
  void (*flush)(void* arg) = nullptr;
};

}  // namespace symmetra::detail

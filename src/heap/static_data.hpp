// The program's static data (its data and bss) made symmetric, as OpenSHMEM requires of global
// and static variables: the pages are moved, contents and addresses unchanged, onto the host's
// heap memfd (symmetric_heap.hpp), at a window at the top of this PE's heap slot, mapped shared
// where they were. Every PE maps that memfd whole, so the window is already in every PE's view
// of this PE's slot (Context::static_window), with no fd or mapping per peer. A put to a static
// variable then translates like a heap address (Context::peer).
//
// Only the main executable's writable, non-RELRO segment; shared libraries keep their data
// private. PEs as processes on one host only: threads share one copy of the data.
// Threads: create is collective over the PEs and must run before the program starts threads
// that write static data (shmem_init, as the standard has it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

// [lo, lo + bytes) of the main program's static data, page-aligned; bytes 0 if there is none.
struct StaticRange {
  std::uintptr_t lo = 0;
  std::uint64_t bytes = 0;
};
StaticRange program_static_range();

class StaticData {
 public:
  // Collective over the PEs. `fd` at `offset` is this PE's window: range.bytes of the heap
  // memfd that every PE has mapped.
  static Status create(Bootstrap& bs, const StaticRange& range, int fd, std::uint64_t offset);
};

}  // namespace symmetra::detail

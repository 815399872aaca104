// The program's static data (its data and bss) made symmetric, as OpenSHMEM requires of global
// and static variables: the pages are moved, contents and addresses unchanged, onto a memfd
// mapped shared at the same place, and that memfd is also mapped into every PE's view of this
// PE's heap slot, at a window after the heap (Context::static_window). A put to a static
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

#include "../bootstrap/bootstrap.hpp"
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
  // Collective over the PEs. `window(i)` is where PE i's copy goes in this process's mapping.
  template <class Window>
  static Result<std::unique_ptr<StaticData>> create(Bootstrap& bs, const StaticRange& range, Window window) {
    std::vector<std::byte*> windows(static_cast<std::size_t>(bs.size()));
    for (int i = 0; i < bs.size(); ++i) windows[static_cast<std::size_t>(i)] = window(i);
    return create(bs, range, windows);
  }
  static Result<std::unique_ptr<StaticData>> create(Bootstrap& bs, const StaticRange& range,
                                                    const std::vector<std::byte*>& windows);
  ~StaticData();
  StaticData(const StaticData&) = delete;
  StaticData& operator=(const StaticData&) = delete;

 private:
  StaticData() = default;
  int fd_ = -1;
  std::vector<int> peer_fds_;
};

}  // namespace symmetra::detail

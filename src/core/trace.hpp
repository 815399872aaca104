// SYMMETRA_TRACE=<file>: one JSON line per host and stream operation of the Runtime
// (docs/observability.md), so that a user can see what ran, on which path, for how long:
//   {"pe":0,"op":"put","peer":1,"bytes":4096,"form":"host","path":"remote","start_us":12.5,"us":3.1}
// A "%p" in the name becomes the PE's number (a file per PE); otherwise every PE appends to the
// one file. SYMMETRA_NVTX=1 opens an NVTX range per operation instead of, or as well as, a line
// (where the build found nvtx3, which ships with CUDA), so that Nsight Systems shows them.
//
// Threads: record() from any thread of the PE. Lines are buffered per PE and written whole, in
// writes of whole lines, so PEs that share a file do not split each other's lines; the buffer
// is written when it fills and by flush() (finalize, abandon, and the destructor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "symmetra/error.hpp"

namespace symmetra::detail {

class TraceFile {
 public:
  // Opens (creates, appends to) `path` for PE `pe`; a clear error if it cannot.
  static Result<std::unique_ptr<TraceFile>> open(const std::string& path, int pe);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  // One operation: peer -1 where there is none, team -1 where it is not a collective; path is
  // "local", "remote" or "both"; times in nanoseconds of this PE's steady clock from the start of
  // the job.
  void record(const char* op, int peer, int team, std::uint64_t bytes, const char* form,
              const char* path, std::uint64_t start_ns, std::uint64_t ns);
  void flush();

 private:
  TraceFile(int fd, int pe) : fd_(fd), pe_(pe) {}
  void write_locked();
  int fd_;
  int pe_;
  std::mutex mutex_;
  std::string buffer_;
};

// NVTX ranges (no-ops where the build has no nvtx3). Threads: any; push and pop on one thread.
bool nvtx_available();
void nvtx_push(const char* name);
void nvtx_pop();

}  // namespace symmetra::detail

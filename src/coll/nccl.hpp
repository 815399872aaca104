// NCCL as a backend of the all-reduce (docs/selector.md), loaded at run time with dlopen: the
// build needs no NCCL, and a machine without it runs everything else. The declarations below are
// the parts of NCCL's stable C ABI (nccl.h, 2.x) that Symmetra calls.
// Threads: nccl_library() is thread-safe; a NcclTeams belongs to its PE's thread.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "symmetra/device/context.hpp"
#include "symmetra/error.hpp"
#include "symmetra/stream.hpp"

namespace symmetra::detail {

struct NcclUniqueId {
  char internal[128];
};
using NcclComm = struct ncclComm*;

// ncclDataType_t and ncclRedOp_t values.
enum NcclType : int {
  kNcclInt8 = 0,
  kNcclUint8 = 1,
  kNcclInt32 = 2,
  kNcclUint32 = 3,
  kNcclInt64 = 4,
  kNcclUint64 = 5,
  kNcclFloat16 = 6,
  kNcclFloat32 = 7,
  kNcclFloat64 = 8,
  kNcclBfloat16 = 9
};
enum NcclOp : int { kNcclSum = 0, kNcclProd = 1, kNcclMax = 2, kNcclMin = 3 };

struct Nccl {
  int version = 0;  // e.g. 22803 for 2.28.3
  int (*get_unique_id)(NcclUniqueId*);
  int (*comm_init_rank)(NcclComm*, int, NcclUniqueId, int);
  int (*comm_destroy)(NcclComm);
  int (*all_reduce)(const void*, void*, std::size_t, int, int, NcclComm, Stream);
  const char* (*get_error_string)(int);
};

// The library: SYMMETRA_NCCL_LIB if set, else libnccl.so.2 on the loader's path. A Status says
// why not (SYMMETRA_NCCL=0, not found, symbols missing).
Result<const Nccl*> nccl_library();

// One communicator per team slot, created on a team's first all-reduce (Runtime::ensure_nccl).
class NcclTeams {
 public:
  enum class State { kUnknown, kIneligible, kReady };
  struct Entry {
    State state = State::kUnknown;
    NcclComm comm = nullptr;
    std::string why;  // kIneligible: the reason, for errors on explicit requests
  };
  NcclTeams() = default;
  NcclTeams(const NcclTeams&) = delete;
  NcclTeams& operator=(const NcclTeams&) = delete;
  ~NcclTeams();
  Entry& at(int slot) { return entries_[static_cast<std::size_t>(slot)]; }
  const Entry& at(int slot) const { return entries_[static_cast<std::size_t>(slot)]; }
  // A destroyed team's slot: its communicator goes (local; NCCL needs no collective for that).
  void release(int slot);
  void release_all();

 private:
  std::array<Entry, device::kMaxTeams> entries_{};
};

}  // namespace symmetra::detail

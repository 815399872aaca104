// The all-reduce algorithms, as values (allreduce.hpp says what each does): what the selector,
// the host forms, coll::Call and the benchmarks name.
#pragma once

#include "symmetra/core/platform.hpp"

namespace symmetra::coll {

enum class AllreduceAlgo : int {
  kAuto,
  kOneShot,
  kTwoShot,
  kRecursiveDoubling,
  kLLTwoShot,
  kHierarchical,
  kRing,
  kNccl,
};
inline constexpr int kAllreduceAlgos = 8;

// The algorithms that run in device code (all but kAuto and kNccl): what the benchmarks,
// symmetra-tune and the tests iterate.
inline constexpr AllreduceAlgo kDeviceAllreduceAlgos[] = {
    AllreduceAlgo::kOneShot,   AllreduceAlgo::kTwoShot,      AllreduceAlgo::kRecursiveDoubling,
    AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kHierarchical, AllreduceAlgo::kRing};

SYMMETRA_INLINE const char* algo_name(AllreduceAlgo a) {
  switch (a) {
    case AllreduceAlgo::kAuto:
      return "auto";
    case AllreduceAlgo::kOneShot:
      return "one_shot";
    case AllreduceAlgo::kTwoShot:
      return "two_shot";
    case AllreduceAlgo::kRecursiveDoubling:
      return "recursive_doubling";
    case AllreduceAlgo::kLLTwoShot:
      return "ll_two_shot";
    case AllreduceAlgo::kHierarchical:
      return "hierarchical";
    case AllreduceAlgo::kRing:
      return "ring";
    case AllreduceAlgo::kNccl:
      return "nccl";
  }
  return "?";
}

// Whether `a` splits into channels (channel.hpp): every algorithm that runs in device code.
SYMMETRA_INLINE constexpr bool takes_channels(AllreduceAlgo a) {
  return a != AllreduceAlgo::kAuto && a != AllreduceAlgo::kNccl;
}

// Whether `a` reads or writes other members' memory by load and store (the direct and ring
// algorithms), and so runs only on a team inside one host. The LL ones send their packets
// through the transport to members on other hosts.
SYMMETRA_INLINE constexpr bool needs_load_store(AllreduceAlgo a) {
  return a == AllreduceAlgo::kOneShot || a == AllreduceAlgo::kTwoShot || a == AllreduceAlgo::kRing;
}

// How an all-reduce's dest and source lie (Runtime::allreduce_buffers): both in the symmetric
// heap and apart, both there and the same (in place), or anything else (private memory).
enum class Buffers : int { kOther, kInPlace, kSeparate };

// Whether `a` runs on buffers that lie as `b`. The LL algorithms take any. The one-shot and
// two-shot read other members' source while those write their dest, so the two must be apart.
// The ring reads only chunks their owners are done with (allreduce_ring.hpp), so dest may also
// be source.
SYMMETRA_INLINE constexpr bool takes_buffers(AllreduceAlgo a, Buffers b) {
  return !needs_load_store(a) || b == Buffers::kSeparate ||
         (b == Buffers::kInPlace && a == AllreduceAlgo::kRing);
}

// Whether `a` sends LL packets (allreduce_ll.hpp): its channels carry less data each, since an
// LL channel's time grows with its chunks where a direct one's is mostly its syncs.
SYMMETRA_INLINE constexpr bool is_ll(AllreduceAlgo a) {
  return a == AllreduceAlgo::kRecursiveDoubling || a == AllreduceAlgo::kLLTwoShot ||
         a == AllreduceAlgo::kHierarchical;
}

}  // namespace symmetra::coll

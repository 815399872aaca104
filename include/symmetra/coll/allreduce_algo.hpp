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
  kPutRing,  // after kNccl: the values are the bindings' and the tables' names' order
};
inline constexpr int kAllreduceAlgos = 9;

// The algorithms that run in device code (all but kAuto and kNccl): what the benchmarks,
// symmetra-tune and the tests iterate.
inline constexpr AllreduceAlgo kDeviceAllreduceAlgos[] = {
    AllreduceAlgo::kOneShot,   AllreduceAlgo::kTwoShot,      AllreduceAlgo::kRecursiveDoubling,
    AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kHierarchical, AllreduceAlgo::kRing,
    AllreduceAlgo::kPutRing};

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
    case AllreduceAlgo::kPutRing:
      return "put_ring";
  }
  return "?";
}

// Whether `a` splits into channels (channel.hpp): every algorithm that runs in device code but
// the put ring. Across hosts each PE's steps go through its one proxy thread, where channels
// only queue: on the H200 (2 hosts x 2 PEs, UCX over TCP) 8 channels took 512 KiB in 8.6 ms,
// one channel in 1.5 (bench/results/nvidia-h200-remote.txt). And its host stage counts on
// channel 0's words (allreduce_put_ring.hpp).
SYMMETRA_INLINE constexpr bool takes_channels(AllreduceAlgo a) {
  return a != AllreduceAlgo::kAuto && a != AllreduceAlgo::kNccl && a != AllreduceAlgo::kPutRing;
}

// Whether `a` reads or writes other members' memory by load and store (the direct and ring
// algorithms), and so runs only on a team inside one host. The LL ones and the put ring send
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
// be source. The put ring writes into members' dest chunks that their source still holds
// uncombined (allreduce_put_ring.hpp): apart.
SYMMETRA_INLINE constexpr bool takes_buffers(AllreduceAlgo a, Buffers b) {
  if (a == AllreduceAlgo::kPutRing) return b == Buffers::kSeparate;
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

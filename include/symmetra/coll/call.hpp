// One collective call as a value (docs/adding_a_collective.md): which collective, on which
// team, over which buffers, with every parameter any collective takes. The host forms build
// one and hand it to Runtime::collective; the GPU backend passes it, as it is, to the kernel
// that runs the device form; the channel rule reads it. Adding a collective adds a Kind here.
#pragma once

#include <cstddef>
#include <type_traits>

#include "symmetra/coll/allreduce_algo.hpp"
#include "symmetra/coll/reduce_op.hpp"
#include "symmetra/core/platform.hpp"
#include "symmetra/data_type.hpp"

namespace symmetra::coll {

enum class Kind : int {
  kBroadcast,      // root's source to every member's dest
  kFcollect,       // all-gather, push: each member puts its block to every member
  kFcollectRead,   // all-gather, pull: each member reads every block
  kFcollectRing,   // all-gather, ring: n-1 steps to the next member
  kCollect,        // all-gather of blocks of different sizes
  kAlltoall,       // block j of member i to block i of member j
  kAlltoalls,      // alltoall with element strides
  kReduce,         // every member's dest: the reduction of all sources
  kReduceScatter,  // member i's dest: block i of the reduction
  kAllreduce,      // reduce, through the all-reduce algorithms (algo)
  kPermute,        // source to member `to`, dest from member `from`
  kBarrier,        // quiet, then sync
  kSync,           // sync
};

// A permute's consumer of each received chunk when there is none (permute_signal.hpp).
struct NoChunkCallback {
  template <class T>
  SYMMETRA_INLINE void operator()(std::size_t, const T*, std::size_t) const {}
};

// Whether `k` combines values (and so needs a type the operator applies to).
SYMMETRA_INLINE constexpr bool is_reduction(Kind k) {
  return k == Kind::kReduce || k == Kind::kReduceScatter || k == Kind::kAllreduce;
}

SYMMETRA_INLINE const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kBroadcast:
      return "broadcast";
    case Kind::kFcollect:
      return "fcollect";
    case Kind::kFcollectRead:
      return "fcollect_read";
    case Kind::kFcollectRing:
      return "fcollect_ring";
    case Kind::kCollect:
      return "collect";
    case Kind::kAlltoall:
      return "alltoall";
    case Kind::kAlltoalls:
      return "alltoalls";
    case Kind::kReduce:
      return "reduce";
    case Kind::kReduceScatter:
      return "reduce_scatter";
    case Kind::kAllreduce:
      return "allreduce";
    case Kind::kPermute:
      return "permute";
    case Kind::kBarrier:
      return "barrier";
    case Kind::kSync:
      return "sync";
  }
  return "?";
}

// Trivially copyable: a kernel takes it by value. Fields a kind does not use keep their defaults.
struct Call {
  Kind kind = Kind::kSync;
  DataType type = DataType::kUint8;
  int team = 0;  // team handle (device::kTeamWorld ...)
  void* dest = nullptr;
  const void* source = nullptr;
  std::size_t nelems = 0;
  int root = 0;                                   // broadcast: team rank of the root
  std::ptrdiff_t dst_stride = 1, src_stride = 1;  // alltoalls, in elements
  ReduceOp op = ReduceOp::kSum;                   // reductions
  AllreduceAlgo algo = AllreduceAlgo::kAuto;      // all-reduce: resolved before launch
  int to = -1, from = -1;                         // permute: team ranks, -1 for none
  std::size_t chunk = 1;                          // permute: elements per chunk
};
static_assert(std::is_trivially_copyable_v<Call>);

// A call of `kind` on team handle `team` over elements of T; set the kind's other fields after.
template <class T>
constexpr Call make_call(Kind kind, int team, T* dest, const T* source, std::size_t nelems) {
  Call c;
  c.kind = kind;
  c.type = data_type_of<T>();
  c.team = team;
  c.dest = dest;
  c.source = source;
  c.nelems = nelems;
  return c;
}

}  // namespace symmetra::coll

// Runs one coll::Call (call.hpp) with its device form: the one switch from a collective's value
// to its algorithm, used by the host forms on the CPU (a ThreadGroup, src/runtime/collective.cpp)
// and by the GPU backend's kernels (a BlockGroup per channel, src/backend/cuda/coll_ops.cu).
// Adding a collective adds its case here (docs/adding_a_collective.md).
//
// Two entry points, so that a kernel holds only the code its calls need: run_move for the
// collectives that move elements (instantiated by element size: a broadcast of floats runs as
// one of uint32_t), run_reduce for those that combine them (instantiated by type).
// Threads: every thread of `g`, on every member of the call's team, with the same call.
#pragma once

#include "symmetra/coll.hpp"
#include "symmetra/coll/call.hpp"
#include "symmetra/device/sync.hpp"

namespace symmetra::coll {

template <class T, class Group>
SYMMETRA_INLINE void run_move(Group g, const device::Context& ctx, const Call& c, Channel ch) {
  T* d = static_cast<T*>(c.dest);
  const T* s = static_cast<const T*>(c.source);
  switch (c.kind) {
    case Kind::kBroadcast:
      broadcast(g, ctx, c.team, d, s, c.nelems, c.root, ch);
      break;
    case Kind::kFcollect:
      fcollect(g, ctx, c.team, d, s, c.nelems, ch);
      break;
    case Kind::kFcollectRead:
      fcollect_read(g, ctx, c.team, d, s, c.nelems, ch);
      break;
    case Kind::kFcollectRing:
      fcollect_ring(g, ctx, c.team, d, s, c.nelems);
      break;
    case Kind::kCollect:
      collect(g, ctx, c.team, d, s, c.nelems);
      break;
    case Kind::kAlltoall:
      alltoall(g, ctx, c.team, d, s, c.nelems, ch);
      break;
    case Kind::kAlltoalls:
      alltoalls(g, ctx, c.team, d, s, c.dst_stride, c.src_stride, c.nelems);
      break;
    case Kind::kPermute:
      permute(g, ctx, c.team, d, s, c.nelems, c.to, c.from, c.chunk, NoChunkCallback{}, ch);
      break;
    case Kind::kBarrier:
      device::barrier(g, ctx, c.team);
      break;
    case Kind::kSync:
      device::sync(g, ctx, c.team);
      break;
    default:  // the reductions: run_reduce
      break;
  }
}

template <class T, class Group>
SYMMETRA_INLINE void run_reduce(Group g, const device::Context& ctx, const Call& c, Channel ch) {
  T* d = static_cast<T*>(c.dest);
  const T* s = static_cast<const T*>(c.source);
  switch (c.kind) {
    case Kind::kReduce:
      reduce(g, ctx, c.team, d, s, c.nelems, c.op, ch);
      break;
    case Kind::kReduceScatter:
      reduce_scatter(g, ctx, c.team, d, s, c.nelems, c.op, ch);
      break;
    case Kind::kAllreduce:
      allreduce(g, ctx, c.team, d, s, c.nelems, c.op, c.algo, ch);
      break;
    default:  // the rest: run_move
      break;
  }
}

}  // namespace symmetra::coll

// The CUDA forms of nvshmem_coll.h's collectives (nvshmem.h includes this under nvcc): the thread
// forms, callable on both sides, and the _warp and _block forms. On the device they run
// Symmetra's device collectives (symmetra/coll.hpp) on this unit's constant copy of the PE's
// device state (nvshmem_device.cuh); on the host, the library's host forms.
//
// Threads, as NVSHMEM's: every thread of the group (one thread, a warp, a block) calls with the
// same arguments, one group per PE at a time for a team. On the device dest must not overlap src
// (an error naming the call ends the job; the host forms take dest == src for reductions).
// Ordering: a collective's sync comes after every member's src is ready and before its dest is
// read, as the device collectives say.
#pragma once

#include "symmetra/coll.hpp"

namespace symmetra::nvshmem_detail {

// A program's element type as the device collectives take it: CUDA's 16-bit floating types as
// Symmetra's, which have the same layout.
template <class T>
struct DeviceType {
  using type = T;
};
#ifdef SYMMETRAI_HALF_T
template <>
struct DeviceType<SYMMETRAI_HALF_T> {
  using type = symmetra::half;
};
template <>
struct DeviceType<SYMMETRAI_BFLOAT16_T> {
  using type = symmetra::bfloat16;
};
#endif
template <class T>
__device__ inline typename DeviceType<T>::type* device_ptr(T* p) {
  return reinterpret_cast<typename DeviceType<T>::type*>(p);
}
template <class T>
__device__ inline const typename DeviceType<T>::type* device_ptr(const T* p) {
  return reinterpret_cast<const typename DeviceType<T>::type*>(p);
}

// 0, or 1 where `team` is NVSHMEM_TEAM_INVALID (an id of no team ends the job, naming it).
template <class G, class T>
__device__ inline int reduce(G g, const device::Context& ctx, nvshmem_team_t team, T* dest,
                             const T* src, size_t nreduce, coll::ReduceOp op, bool scatter) {
  const int h = team_handle(team);
  if (h < 0) return 1;
  if (scatter)
    coll::reduce_scatter(g, ctx, h, device_ptr(dest), device_ptr(src), nreduce, op);
  else
    coll::reduce(g, ctx, h, device_ptr(dest), device_ptr(src), nreduce, op);
  return 0;
}

template <class G, class T>
__device__ inline int alltoalls(G g, const device::Context& ctx, nvshmem_team_t team, T* dest,
                                const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelem) {
  const int h = team_handle(team);
  if (h < 0) return 1;
  coll::alltoalls(g, ctx, h, device_ptr(dest), device_ptr(src), dst, sst, nelem);
  return 0;
}

enum class Move { kBroadcast, kFcollect, kAlltoall };

template <class G, class T>
__device__ inline int move(G g, const device::Context& ctx, Move what, nvshmem_team_t team, T* dest,
                           const T* src, size_t nelem, int root) {
  const int h = team_handle(team);
  if (h < 0) return 1;
  if (what == Move::kBroadcast)
    coll::broadcast(g, ctx, h, dest, src, nelem, root);
  else if (what == Move::kFcollect)
    coll::fcollect(g, ctx, h, dest, src, nelem);
  else
    coll::alltoall(g, ctx, h, dest, src, nelem);
  return 0;
}

template <class G>
__device__ inline int sync_team(G g, const device::Context& ctx, nvshmem_team_t team,
                                bool barrier) {
  const int h = team_handle(team);
  if (h < 0) return 1;
  if (barrier)
    device::barrier(g, ctx, h);
  else
    device::sync(g, ctx, h);
  return 0;
}

// MAXLOC over (value, index) pairs (double2: x the value, y its index), MPI's rule: the largest
// value, of equal values the lowest index. Each member reads every member's src[i] with two g's
// (a word each, so that across hosts the proxy returns them in its result words: a larger get
// would need a destination in global memory); the barriers make every src ready before the
// first read and keep it until the last.
template <class G>
__device__ inline int maxloc_reduce(G g, const device::Context& ctx, nvshmem_team_t team,
                                    double2* dest, const double2* src, size_t nreduce) {
  constexpr const char* kOp = "nvshmemx_double2_maxloc_reduce_block";
  const int h = team_handle(team);
  if (h < 0) return 1;
  const coll::detail::TeamView view = coll::detail::team_view(ctx, h, kOp);
  if (coll::detail::ranges_overlap(dest, nreduce * sizeof(double2), src, nreduce * sizeof(double2)))
    SYMMETRA_FATAL(ctx, kOp, "dest %p and source %p overlap (%llu pairs)", static_cast<void*>(dest),
                   static_cast<const void*>(src), static_cast<unsigned long long>(nreduce));
  device::barrier(g, ctx, h);
  for (size_t i = g.thread_rank(); i < nreduce; i += g.size()) {
    double2 best = src[i];
    for (int r = 0; r < view.size(); ++r) {
      if (r == view.rank()) continue;
      const int pe = view.world(r);
      const double x = device::g_unordered(ctx, &src[i].x, pe);
      const double y = device::g_unordered(ctx, &src[i].y, pe);
      if (x > best.x || (x == best.x && y < best.y)) best = make_double2(x, y);
    }
    dest[i] = best;
  }
  device::barrier(g, ctx, h);
  return 0;
}

}  // namespace symmetra::nvshmem_detail

#ifdef __CUDA_ARCH__
#define SYMMETRAI_EITHER(on_device, on_host) on_device
#else
#define SYMMETRAI_EITHER(on_device, on_host) on_host
#endif
#define SYMMETRAI_WARP \
  symmetra::device::WarpGroup {}
#define SYMMETRAI_BLOCK \
  symmetra::device::BlockGroup {}
#define SYMMETRAI_REDUCE_OP_and symmetra::coll::ReduceOp::kAnd
#define SYMMETRAI_REDUCE_OP_or symmetra::coll::ReduceOp::kOr
#define SYMMETRAI_REDUCE_OP_xor symmetra::coll::ReduceOp::kXor
#define SYMMETRAI_REDUCE_OP_max symmetra::coll::ReduceOp::kMax
#define SYMMETRAI_REDUCE_OP_min symmetra::coll::ReduceOp::kMin
#define SYMMETRAI_REDUCE_OP_sum symmetra::coll::ReduceOp::kSum
#define SYMMETRAI_REDUCE_OP_prod symmetra::coll::ReduceOp::kProd

extern "C" {

// Barrier (quiet, then sync) and sync over a team.
__host__ __device__ inline int nvshmem_barrier(nvshmem_team_t team) {
  return SYMMETRAI_EITHER(
      symmetra::nvshmem_detail::sync_team(SYMMETRAI_THREAD, SYMMETRAI_STATE, team, true),
      symmetrai_host_barrier(team));
}
__host__ __device__ inline int nvshmem_team_sync(nvshmem_team_t team) {
  return SYMMETRAI_EITHER(
      symmetra::nvshmem_detail::sync_team(SYMMETRAI_THREAD, SYMMETRAI_STATE, team, false),
      symmetrai_host_team_sync(team));
}
#define SYMMETRAI_SYNC_SCOPE(SCOPE, GROUP)                                                  \
  __device__ inline int nvshmemx_barrier_##SCOPE(nvshmem_team_t team) {                     \
    return symmetra::nvshmem_detail::sync_team(GROUP, SYMMETRAI_STATE, team, true);         \
  }                                                                                         \
  __device__ inline int nvshmemx_team_sync_##SCOPE(nvshmem_team_t team) {                   \
    return symmetra::nvshmem_detail::sync_team(GROUP, SYMMETRAI_STATE, team, false);        \
  }                                                                                         \
  __device__ inline void nvshmemx_barrier_all_##SCOPE(void) {                               \
    symmetra::nvshmem_detail::sync_team(GROUP, SYMMETRAI_STATE, NVSHMEM_TEAM_WORLD, true);  \
  }                                                                                         \
  __device__ inline void nvshmemx_sync_all_##SCOPE(void) {                                  \
    symmetra::nvshmem_detail::sync_team(GROUP, SYMMETRAI_STATE, NVSHMEM_TEAM_WORLD, false); \
  }
SYMMETRAI_SYNC_SCOPE(warp, SYMMETRAI_WARP)
SYMMETRAI_SYNC_SCOPE(block, SYMMETRAI_BLOCK)
#undef SYMMETRAI_SYNC_SCOPE
// The one warpgroup form NVSHMEM 3.4 declares: a barrier by the 128 threads of a warpgroup.
__device__ inline int nvshmemx_barrier_warpgroup(nvshmem_team_t team) {
  return symmetra::nvshmem_detail::sync_team(symmetra::device::WarpgroupGroup{}, SYMMETRAI_STATE,
                                             team, true);
}

// broadcast, fcollect, alltoall: typed, and _mem in bytes.
#define SYMMETRAI_MOVE_DEVICE(GROUP, WHAT, dest, src, nelem, root)                             \
  symmetra::nvshmem_detail::move(GROUP, SYMMETRAI_STATE, symmetra::nvshmem_detail::Move::WHAT, \
                                 team, dest, src, nelem, root)

#define SYMMETRAI_MOVE_SCOPE(NAME, T, SCOPE, GROUP)                                      \
  __device__ inline int nvshmemx_##NAME##_broadcast_##SCOPE(                             \
      nvshmem_team_t team, T* dest, const T* src, size_t nelem, int PE_root) {           \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kBroadcast, dest, src, nelem, PE_root);          \
  }                                                                                      \
  __device__ inline int nvshmemx_##NAME##_fcollect_##SCOPE(nvshmem_team_t team, T* dest, \
                                                           const T* src, size_t nelem) { \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kFcollect, dest, src, nelem, 0);                 \
  }                                                                                      \
  __device__ inline int nvshmemx_##NAME##_alltoall_##SCOPE(nvshmem_team_t team, T* dest, \
                                                           const T* src, size_t nelem) { \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kAlltoall, dest, src, nelem, 0);                 \
  }
#define SYMMETRAI_MOVE_TYPED(NAME, T)                                                    \
  __host__ __device__ inline int nvshmem_##NAME##_broadcast(                             \
      nvshmem_team_t team, T* dest, const T* src, size_t nelem, int PE_root) {           \
    return SYMMETRAI_EITHER(                                                             \
        SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kBroadcast, dest, src, nelem, PE_root),  \
        symmetrai_host_##NAME##_broadcast(team, dest, src, nelem, PE_root));             \
  }                                                                                      \
  __host__ __device__ inline int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T* dest, \
                                                           const T* src, size_t nelem) { \
    return SYMMETRAI_EITHER(                                                             \
        SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kFcollect, dest, src, nelem, 0),         \
        symmetrai_host_##NAME##_fcollect(team, dest, src, nelem));                       \
  }                                                                                      \
  __host__ __device__ inline int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T* dest, \
                                                           const T* src, size_t nelem) { \
    return SYMMETRAI_EITHER(                                                             \
        SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kAlltoall, dest, src, nelem, 0),         \
        symmetrai_host_##NAME##_alltoall(team, dest, src, nelem));                       \
  }                                                                                      \
  SYMMETRAI_MOVE_SCOPE(NAME, T, warp, SYMMETRAI_WARP)                                    \
  SYMMETRAI_MOVE_SCOPE(NAME, T, block, SYMMETRAI_BLOCK)
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRAI_MOVE_TYPED)
#define SYMMETRAI_ALLTOALLS(NAME, T)                                                               \
  __host__ __device__ inline int nvshmem_##NAME##_alltoalls(                                       \
      nvshmem_team_t team, T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelem) {    \
    return SYMMETRAI_EITHER(symmetra::nvshmem_detail::alltoalls(SYMMETRAI_THREAD, SYMMETRAI_STATE, \
                                                                team, dest, src, dst, sst, nelem), \
                            symmetrai_host_##NAME##_alltoalls(team, dest, src, dst, sst, nelem));  \
  }
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRAI_ALLTOALLS)
#undef SYMMETRAI_ALLTOALLS
#undef SYMMETRAI_MOVE_TYPED
#undef SYMMETRAI_MOVE_SCOPE

// The _mem forms: nelem bytes.
#define SYMMETRAI_BYTES(p) static_cast<unsigned char*>(static_cast<void*>(p))
#define SYMMETRAI_CBYTES(p) static_cast<const unsigned char*>(static_cast<const void*>(p))
__host__ __device__ inline int nvshmem_broadcastmem(nvshmem_team_t team, void* dest,
                                                    const void* src, size_t nelem, int PE_root) {
  return SYMMETRAI_EITHER(SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kBroadcast, SYMMETRAI_BYTES(dest),
                                                SYMMETRAI_CBYTES(src), nelem, PE_root),
                          symmetrai_host_broadcastmem(team, dest, src, nelem, PE_root));
}
__host__ __device__ inline int nvshmem_fcollectmem(nvshmem_team_t team, void* dest, const void* src,
                                                   size_t nelem) {
  return SYMMETRAI_EITHER(SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kFcollect, SYMMETRAI_BYTES(dest),
                                                SYMMETRAI_CBYTES(src), nelem, 0),
                          symmetrai_host_fcollectmem(team, dest, src, nelem));
}
__host__ __device__ inline int nvshmem_alltoallmem(nvshmem_team_t team, void* dest, const void* src,
                                                   size_t nelem) {
  return SYMMETRAI_EITHER(SYMMETRAI_MOVE_DEVICE(SYMMETRAI_THREAD, kAlltoall, SYMMETRAI_BYTES(dest),
                                                SYMMETRAI_CBYTES(src), nelem, 0),
                          symmetrai_host_alltoallmem(team, dest, src, nelem));
}
#define SYMMETRAI_MEM_SCOPE(SCOPE, GROUP)                                                         \
  __device__ inline int nvshmemx_broadcastmem_##SCOPE(                                            \
      nvshmem_team_t team, void* dest, const void* src, size_t nelem, int PE_root) {              \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kBroadcast, SYMMETRAI_BYTES(dest), SYMMETRAI_CBYTES(src), \
                                 nelem, PE_root);                                                 \
  }                                                                                               \
  __device__ inline int nvshmemx_fcollectmem_##SCOPE(nvshmem_team_t team, void* dest,             \
                                                     const void* src, size_t nelem) {             \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kFcollect, SYMMETRAI_BYTES(dest), SYMMETRAI_CBYTES(src),  \
                                 nelem, 0);                                                       \
  }                                                                                               \
  __device__ inline int nvshmemx_alltoallmem_##SCOPE(nvshmem_team_t team, void* dest,             \
                                                     const void* src, size_t nelem) {             \
    return SYMMETRAI_MOVE_DEVICE(GROUP, kAlltoall, SYMMETRAI_BYTES(dest), SYMMETRAI_CBYTES(src),  \
                                 nelem, 0);                                                       \
  }
SYMMETRAI_MEM_SCOPE(warp, SYMMETRAI_WARP)
SYMMETRAI_MEM_SCOPE(block, SYMMETRAI_BLOCK)
#undef SYMMETRAI_MEM_SCOPE
#undef SYMMETRAI_BYTES
#undef SYMMETRAI_CBYTES
#undef SYMMETRAI_MOVE_DEVICE

// Reductions: reduce (an all-reduce) and reducescatter.
#define SYMMETRAI_REDUCE_DEVICE(GROUP, OP, SCATTER)                                  \
  symmetra::nvshmem_detail::reduce(GROUP, SYMMETRAI_STATE, team, dest, src, nreduce, \
                                   SYMMETRAI_REDUCE_OP_##OP, SCATTER)
#define SYMMETRAI_REDUCE_SCOPE(NAME, T, OP, SCOPE, GROUP)                                       \
  __device__ inline int nvshmemx_##NAME##_##OP##_reduce_##SCOPE(nvshmem_team_t team, T* dest,   \
                                                                const T* src, size_t nreduce) { \
    return SYMMETRAI_REDUCE_DEVICE(GROUP, OP, false);                                           \
  }                                                                                             \
  __device__ inline int nvshmemx_##NAME##_##OP##_reducescatter_##SCOPE(                         \
      nvshmem_team_t team, T* dest, const T* src, size_t nreduce) {                             \
    return SYMMETRAI_REDUCE_DEVICE(GROUP, OP, true);                                            \
  }
#define SYMMETRAI_REDUCE_FORMS(NAME, T, OP)                                                     \
  __host__ __device__ inline int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, T* dest,   \
                                                                const T* src, size_t nreduce) { \
    return SYMMETRAI_EITHER(SYMMETRAI_REDUCE_DEVICE(SYMMETRAI_THREAD, OP, false),               \
                            symmetrai_host_##NAME##_##OP##_reduce(team, dest, src, nreduce));   \
  }                                                                                             \
  __host__ __device__ inline int nvshmem_##NAME##_##OP##_reducescatter(                         \
      nvshmem_team_t team, T* dest, const T* src, size_t nreduce) {                             \
    return SYMMETRAI_EITHER(                                                                    \
        SYMMETRAI_REDUCE_DEVICE(SYMMETRAI_THREAD, OP, true),                                    \
        symmetrai_host_##NAME##_##OP##_reducescatter(team, dest, src, nreduce));                \
  }                                                                                             \
  SYMMETRAI_REDUCE_SCOPE(NAME, T, OP, warp, SYMMETRAI_WARP)                                     \
  SYMMETRAI_REDUCE_SCOPE(NAME, T, OP, block, SYMMETRAI_BLOCK)
SYMMETRA_NVSHMEM_REDUCTIONS(SYMMETRAI_REDUCE_FORMS)
// NVSHMEM's one MAXLOC reduction: a block form only, as NVSHMEM declares it.
__device__ inline int nvshmemx_double2_maxloc_reduce_block(nvshmem_team_t team, double2* dest,
                                                           const double2* src, size_t nreduce) {
  return symmetra::nvshmem_detail::maxloc_reduce(SYMMETRAI_BLOCK, SYMMETRAI_STATE, team, dest, src,
                                                 nreduce);
}
#undef SYMMETRAI_REDUCE_FORMS
#undef SYMMETRAI_REDUCE_SCOPE
#undef SYMMETRAI_REDUCE_DEVICE

}  // extern "C"

// NVSHMEM's team collectives (symmetra/nvshmem_coll.h; the _on_stream forms of nvshmemx.h): the
// host and stream forms over the Runtime's typed collectives. A null stream is the host form.
#include <cstdint>
#include <type_traits>

#include "bindings/nvshmem/state.hpp"
#include "symmetra/collectives.hpp"

namespace symmetra::nvshmem {
namespace {

using bindings::canon_t;
// Elements that only move travel as unsigned words of their size.
using bindings::word_t;

// Runs f(runtime, team) for a collective over NVSHMEM team `id`: 0, or 1 where the id names no
// team (with the reason on stderr, except for NVSHMEM_TEAM_INVALID).
template <class F>
int on_team(nvshmem_team_t id, const char* op, F f) {
  if (id == NVSHMEM_TEAM_INVALID) return 1;  // OpenSHMEM: no operation, nonzero, no message
  const Team t = team_of(id, op);
  if (!t.valid()) return 1;
  guarded(op, [&] { f(rt(op), t); });
  return 0;
}

enum class Move { kBroadcast, kFcollect, kAlltoall };

template <std::size_t kBytes>
int move(Move what, nvshmem_team_t id, void* dest, const void* src, size_t nelem, int root,
         Stream stream, const char* op) {
  using W = word_t<kBytes>;
  return on_team(id, op, [&](Runtime& r, const Team& t) {
    auto* d = static_cast<W*>(dest);
    const auto* s = static_cast<const W*>(src);
    switch (what) {
      case Move::kBroadcast:
        return stream ? r.broadcast_on_stream(t, d, s, nelem, root, stream)
                      : r.broadcast(t, d, s, nelem, root);
      case Move::kFcollect:
        return stream ? r.fcollect_on_stream(t, d, s, nelem, stream) : r.fcollect(t, d, s, nelem);
      case Move::kAlltoall:
        return stream ? r.alltoall_on_stream(t, d, s, nelem, stream) : r.alltoall(t, d, s, nelem);
    }
  });
}

template <std::size_t kBytes>
int alltoalls(nvshmem_team_t id, void* dest, const void* src, std::ptrdiff_t dst,
              std::ptrdiff_t sst, size_t nelem, const char* op) {
  using W = word_t<kBytes>;
  return on_team(id, op, [&](Runtime& r, const Team& t) {
    r.alltoalls(t, static_cast<W*>(dest), static_cast<const W*>(src), dst, sst, nelem);
  });
}

// The Runtime's type for a reduction's C type: fixed-width integers, float and double as they
// are, the library's 16-bit floating types as they are.
template <class T>
using reduce_t = std::conditional_t<std::is_class_v<T>, T, canon_t<T>>;

template <class T>
int reduce(bool scatter, nvshmem_team_t id, T* dest, const T* src, size_t nreduce,
           coll::ReduceOp rop, Stream stream, const char* op) {
  return on_team(id, op, [&](Runtime& r, const Team& t) {
    auto* d = reinterpret_cast<reduce_t<T>*>(dest);
    const auto* s = reinterpret_cast<const reduce_t<T>*>(src);
    if (scatter)
      return stream ? r.reduce_scatter_on_stream(t, d, s, nreduce, rop, stream)
                    : r.reduce_scatter(t, d, s, nreduce, rop);
    stream ? r.allreduce_on_stream(t, d, s, nreduce, rop, stream)
           : r.allreduce(t, d, s, nreduce, rop);
  });
}

// NVSHMEM's operation names as the Runtime's.
constexpr coll::ReduceOp kOp_and = coll::ReduceOp::kAnd, kOp_or = coll::ReduceOp::kOr,
                         kOp_xor = coll::ReduceOp::kXor, kOp_max = coll::ReduceOp::kMax,
                         kOp_min = coll::ReduceOp::kMin, kOp_sum = coll::ReduceOp::kSum,
                         kOp_prod = coll::ReduceOp::kProd;

int sync_team(bool barrier, nvshmem_team_t id, Stream stream, const char* op) {
  return on_team(id, op, [&](Runtime& r, const Team& t) {
    if (barrier) return stream ? r.barrier_on_stream(t, stream) : r.barrier(t);
    stream ? r.sync_on_stream(t, stream) : r.sync(t);
  });
}

}  // namespace
}  // namespace symmetra::nvshmem

using namespace symmetra;
namespace nv = symmetra::nvshmem;

extern "C" {

// Host forms, under both names (nvshmem.h's SYMMETRA_NVSHMEM_COLL_BOTH_SIDED).
int symmetrai_host_barrier(nvshmem_team_t team) {
  return nv::sync_team(true, team, nullptr, "nvshmem_barrier");
}
int symmetrai_host_team_sync(nvshmem_team_t team) {
  return nv::sync_team(false, team, nullptr, "nvshmem_team_sync");
}
int symmetrai_host_broadcastmem(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                int PE_root) {
  return nv::move<1>(nv::Move::kBroadcast, team, dest, src, nelem, PE_root, nullptr,
                     "nvshmem_broadcastmem");
}
int symmetrai_host_fcollectmem(nvshmem_team_t team, void* dest, const void* src, size_t nelem) {
  return nv::move<1>(nv::Move::kFcollect, team, dest, src, nelem, 0, nullptr,
                     "nvshmem_fcollectmem");
}
int symmetrai_host_alltoallmem(nvshmem_team_t team, void* dest, const void* src, size_t nelem) {
  return nv::move<1>(nv::Move::kAlltoall, team, dest, src, nelem, 0, nullptr,
                     "nvshmem_alltoallmem");
}
#define SYMMETRA_NVSHMEM_HOST_COLL(NAME, T)                                                        \
  int symmetrai_host_##NAME##_broadcast(nvshmem_team_t team, T* dest, const T* src, size_t nelem,  \
                                        int PE_root) {                                             \
    return nv::move<sizeof(T)>(nv::Move::kBroadcast, team, dest, src, nelem, PE_root, nullptr,     \
                               "nvshmem_" #NAME "_broadcast");                                     \
  }                                                                                                \
  int symmetrai_host_##NAME##_fcollect(nvshmem_team_t team, T* dest, const T* src, size_t nelem) { \
    return nv::move<sizeof(T)>(nv::Move::kFcollect, team, dest, src, nelem, 0, nullptr,            \
                               "nvshmem_" #NAME "_fcollect");                                      \
  }                                                                                                \
  int symmetrai_host_##NAME##_alltoall(nvshmem_team_t team, T* dest, const T* src, size_t nelem) { \
    return nv::move<sizeof(T)>(nv::Move::kAlltoall, team, dest, src, nelem, 0, nullptr,            \
                               "nvshmem_" #NAME "_alltoall");                                      \
  }
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRA_NVSHMEM_HOST_COLL)
#define SYMMETRA_NVSHMEM_HOST_ALLTOALLS(NAME, T)                                                   \
  int symmetrai_host_##NAME##_alltoalls(nvshmem_team_t team, T* dest, const T* src, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelem) {                             \
    return nv::alltoalls<sizeof(T)>(team, dest, src, dst, sst, nelem,                              \
                                    "nvshmem_" #NAME "_alltoalls");                                \
  }
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRA_NVSHMEM_HOST_ALLTOALLS)
#define SYMMETRA_NVSHMEM_HOST_REDUCE(NAME, T, OP)                                              \
  int symmetrai_host_##NAME##_##OP##_reduce(nvshmem_team_t team, T* dest, const T* src,        \
                                            size_t nreduce) {                                  \
    return nv::reduce(false, team, dest, src, nreduce, nv::kOp_##OP, nullptr,                  \
                      "nvshmem_" #NAME "_" #OP "_reduce");                                     \
  }                                                                                            \
  int symmetrai_host_##NAME##_##OP##_reducescatter(nvshmem_team_t team, T* dest, const T* src, \
                                                   size_t nreduce) {                           \
    return nv::reduce(true, team, dest, src, nreduce, nv::kOp_##OP, nullptr,                   \
                      "nvshmem_" #NAME "_" #OP "_reducescatter");                              \
  }
SYMMETRA_NVSHMEM_REDUCTIONS(SYMMETRA_NVSHMEM_HOST_REDUCE)

#define X SYMMETRA_NVSHMEM_BOTH_NAMES
SYMMETRA_NVSHMEM_COLL_BOTH_SIDED
#undef X

// The stream forms (nvshmemx.h).
int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return nv::sync_team(true, team, stream, "nvshmemx_barrier_on_stream");
}
int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return nv::sync_team(false, team, stream, "nvshmemx_team_sync_on_stream");
}
int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                    int PE_root, cudaStream_t stream) {
  return nv::move<1>(nv::Move::kBroadcast, team, dest, src, nelem, PE_root, stream,
                     "nvshmemx_broadcastmem_on_stream");
}
int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                   cudaStream_t stream) {
  return nv::move<1>(nv::Move::kFcollect, team, dest, src, nelem, 0, stream,
                     "nvshmemx_fcollectmem_on_stream");
}
int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                   cudaStream_t stream) {
  return nv::move<1>(nv::Move::kAlltoall, team, dest, src, nelem, 0, stream,
                     "nvshmemx_alltoallmem_on_stream");
}
#define SYMMETRA_NVSHMEM_STREAM_COLL(NAME, T)                                                 \
  int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, T* dest, const T* src,       \
                                            size_t nelem, int PE_root, cudaStream_t stream) { \
    return nv::move<sizeof(T)>(nv::Move::kBroadcast, team, dest, src, nelem, PE_root, stream, \
                               "nvshmemx_" #NAME "_broadcast_on_stream");                     \
  }                                                                                           \
  int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t team, T* dest, const T* src,        \
                                           size_t nelem, cudaStream_t stream) {               \
    return nv::move<sizeof(T)>(nv::Move::kFcollect, team, dest, src, nelem, 0, stream,        \
                               "nvshmemx_" #NAME "_fcollect_on_stream");                      \
  }                                                                                           \
  int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t team, T* dest, const T* src,        \
                                           size_t nelem, cudaStream_t stream) {               \
    return nv::move<sizeof(T)>(nv::Move::kAlltoall, team, dest, src, nelem, 0, stream,        \
                               "nvshmemx_" #NAME "_alltoall_on_stream");                      \
  }
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRA_NVSHMEM_STREAM_COLL)
#define SYMMETRA_NVSHMEM_STREAM_REDUCE(NAME, T, OP)                                                \
  int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T* dest, const T* src,        \
                                                size_t nreduce, cudaStream_t stream) {             \
    return nv::reduce(false, team, dest, src, nreduce, nv::kOp_##OP, stream,                       \
                      "nvshmemx_" #NAME "_" #OP "_reduce_on_stream");                              \
  }                                                                                                \
  int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T* dest, const T* src, \
                                                       size_t nreduce, cudaStream_t stream) {      \
    return nv::reduce(true, team, dest, src, nreduce, nv::kOp_##OP, stream,                        \
                      "nvshmemx_" #NAME "_" #OP "_reducescatter_on_stream");                       \
  }
SYMMETRA_NVSHMEM_REDUCTIONS(SYMMETRA_NVSHMEM_STREAM_REDUCE)

}  // extern "C"

// The stream forms of the team collectives (declared in symmetra/runtime.hpp, read there for the
// contract): each builds a coll::Call and hands it to Runtime::collective, which plans it and
// enqueues the device form's kernel (src/backend/cuda/coll_ops.cu). The host forms, which run
// their algorithms on the CPU backend, are in impl/runtime_coll_host.hpp.
#pragma once

#ifndef SYMMETRA_RUNTIME_CONTRACT
#error "include symmetra/runtime.hpp, not symmetra/impl/runtime_coll.hpp"
#endif

#include <cstddef>

#include "symmetra/coll/call.hpp"

namespace symmetra {

template <class T>
void Runtime::broadcast_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  int root, Stream s) {
  auto c = coll::make_call(coll::Kind::kBroadcast, team.handle(), dest, source, nelems);
  c.root = root;
  collective(c, s);
}
template <class T>
void Runtime::fcollect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  collective(coll::make_call(coll::Kind::kFcollect, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::fcollect_read_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  collective(coll::make_call(coll::Kind::kFcollectRead, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::fcollect_ring_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  collective(coll::make_call(coll::Kind::kFcollectRing, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::collect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                Stream s) {
  collective(coll::make_call(coll::Kind::kCollect, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::alltoall_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  collective(coll::make_call(coll::Kind::kAlltoall, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::alltoalls_on_stream(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                                  std::ptrdiff_t sst, std::size_t nelems, Stream s) {
  auto c = coll::make_call(coll::Kind::kAlltoalls, team.handle(), dest, source, nelems);
  c.dst_stride = dst;
  c.src_stride = sst;
  collective(c, s);
}
template <class T>
void Runtime::reduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nreduce,
                               coll::ReduceOp op, Stream s) {
  auto c = coll::make_call(coll::Kind::kReduce, team.handle(), dest, source, nreduce);
  c.op = op;
  collective(c, s);
}
template <class T>
void Runtime::reduce_scatter_on_stream(const Team& team, T* dest, const T* source,
                                       std::size_t nreduce, coll::ReduceOp op, Stream s) {
  auto c = coll::make_call(coll::Kind::kReduceScatter, team.handle(), dest, source, nreduce);
  c.op = op;
  collective(c, s);
}
template <class T>
void Runtime::allreduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  coll::ReduceOp op, Stream s, coll::AllreduceAlgo algo) {
  auto c = coll::make_call(coll::Kind::kAllreduce, team.handle(), dest, source, nelems);
  c.op = op;
  c.algo = algo;
  collective(c, s);
}
template <class T>
void Runtime::permute_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                int to, int from, std::size_t chunk_elems, Stream s) {
  auto c = coll::make_call(coll::Kind::kPermute, team.handle(), dest, source, nelems);
  c.to = to;
  c.from = from;
  c.chunk = chunk_elems;
  collective(c, s);
}

inline void Runtime::barrier_on_stream(const Team& team, Stream s) {
  // The world's is barrier_all's, whichever a program calls: one kernel, no descriptor.
  if (team.handle() == device::kTeamWorld) return barrier_all_on_stream(s);
  collective(
      coll::make_call<std::uint8_t>(coll::Kind::kBarrier, team.handle(), nullptr, nullptr, 0), s);
}
inline void Runtime::sync_on_stream(const Team& team, Stream s) {
  collective(coll::make_call<std::uint8_t>(coll::Kind::kSync, team.handle(), nullptr, nullptr, 0),
             s);
}

}  // namespace symmetra

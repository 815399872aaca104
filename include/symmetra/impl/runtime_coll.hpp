// The host and stream forms of the team collectives (declared in symmetra/runtime.hpp, read there
// for the contract): each builds a coll::Call and hands it to Runtime::collective, which resolves
// it (the all-reduce's algorithm, in-place forms) and runs it where the backend runs it (the CPU:
// on the calling thread; the GPU: a kernel per call, src/backend/cuda/coll_ops.cu). Two forms
// stay inline on the CPU: a broadcast that leaves the root's dest alone, and a permute with a
// chunk consumer, whose callback has no value to travel as.
//
// On the CPU backend the typed host forms also run their algorithm inline, in the caller's
// code, as they did before the one entry: out of line behind the Call's dispatch, the
// small fcollect, collect and reduce of the C API took 1.1-1.2x as long on 2 PEs (the
// compiler's inlining of the waits differs there), and an 8 B permute and reduce-scatter
// 1.06-1.15x (docs/perf_cpu.md#collectives). A reduce-scatter in place is the exception:
// Runtime::collective reduces it into a temporary.
#pragma once

#ifndef SYMMETRA_RUNTIME_CONTRACT
#error "include symmetra/runtime.hpp, not symmetra/impl/runtime_coll.hpp"
#endif

#include <cstddef>
#include <type_traits>

#include "symmetra/coll/call.hpp"

namespace symmetra {

template <class T>
void Runtime::broadcast(const Team& team, T* dest, const T* source, std::size_t nelems, int root,
                        bool write_root) {
  SYMMETRA_OBSERVE(&Runtime::broadcast<T>, "broadcast", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems, root, write_root);
  if (!gpu_) {
    auto c = coll::make_call(coll::Kind::kBroadcast, team.handle(), dest, source, nelems);
    c.root = root;
    enter_collective(c, "broadcast");
  }
  if (!write_root) {
    if (gpu_)
      fail("broadcast: leaving the root's dest alone (write_root false) needs the CPU backend");
    return coll::broadcast(device::ThreadGroup{}, ctx_, checked(team, "broadcast"), dest, source,
                           nelems, root, {}, false);
  }
  if (!gpu_)
    return coll::broadcast(device::ThreadGroup{}, ctx_, checked(team, "broadcast"), dest, source,
                           nelems, root);
  broadcast_on_stream(team, dest, source, nelems, root, nullptr);
}
template <class T>
void Runtime::broadcast_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  int root, Stream s) {
  auto c = coll::make_call(coll::Kind::kBroadcast, team.handle(), dest, source, nelems);
  c.root = root;
  collective(c, s);
}

template <class T>
void Runtime::fcollect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect<T>, "fcollect", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  if (!gpu_)
    enter_collective(coll::make_call(coll::Kind::kFcollect, team.handle(), dest, source, nelems),
                     "fcollect");
  if (!gpu_)
    return coll::fcollect(device::ThreadGroup{}, ctx_, checked(team, "fcollect"), dest, source,
                          nelems);
  collective(coll::make_call(coll::Kind::kFcollect, team.handle(), dest, source, nelems));
}
template <class T>
void Runtime::fcollect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  collective(coll::make_call(coll::Kind::kFcollect, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::fcollect_read(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect_read<T>, "fcollect_read", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  if (!gpu_)
    enter_collective(
        coll::make_call(coll::Kind::kFcollectRead, team.handle(), dest, source, nelems),
        "fcollect_read");
  if (!gpu_)
    return coll::fcollect_read(device::ThreadGroup{}, ctx_, checked(team, "fcollect_read"), dest,
                               source, nelems);
  collective(coll::make_call(coll::Kind::kFcollectRead, team.handle(), dest, source, nelems));
}
template <class T>
void Runtime::fcollect_read_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  collective(coll::make_call(coll::Kind::kFcollectRead, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::fcollect_ring(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect_ring<T>, "fcollect_ring", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  if (!gpu_)
    enter_collective(
        coll::make_call(coll::Kind::kFcollectRing, team.handle(), dest, source, nelems),
        "fcollect_ring");
  if (!gpu_)
    return coll::fcollect_ring(device::ThreadGroup{}, ctx_, checked(team, "fcollect_ring"), dest,
                               source, nelems);
  collective(coll::make_call(coll::Kind::kFcollectRing, team.handle(), dest, source, nelems));
}
template <class T>
void Runtime::fcollect_ring_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  collective(coll::make_call(coll::Kind::kFcollectRing, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::collect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::collect<T>, "collect", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  if (!gpu_)
    enter_collective(coll::make_call(coll::Kind::kCollect, team.handle(), dest, source, nelems),
                     "collect");
  if (!gpu_)
    return coll::collect(device::ThreadGroup{}, ctx_, checked(team, "collect"), dest, source,
                         nelems);
  collective(coll::make_call(coll::Kind::kCollect, team.handle(), dest, source, nelems));
}
template <class T>
void Runtime::collect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                Stream s) {
  collective(coll::make_call(coll::Kind::kCollect, team.handle(), dest, source, nelems), s);
}

template <class T>
void Runtime::alltoall(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::alltoall<T>, "alltoall", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  if (!gpu_)
    enter_collective(coll::make_call(coll::Kind::kAlltoall, team.handle(), dest, source, nelems),
                     "alltoall");
  if (!gpu_)
    return coll::alltoall(device::ThreadGroup{}, ctx_, checked(team, "alltoall"), dest, source,
                          nelems);
  collective(coll::make_call(coll::Kind::kAlltoall, team.handle(), dest, source, nelems));
}
template <class T>
void Runtime::alltoall_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  collective(coll::make_call(coll::Kind::kAlltoall, team.handle(), dest, source, nelems), s);
}
template <class T>
void Runtime::alltoalls(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                        std::ptrdiff_t sst, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::alltoalls<T>, "alltoalls", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, dst, sst, nelems);
  if (!gpu_)
    enter_collective(coll::make_call(coll::Kind::kAlltoalls, team.handle(), dest, source, nelems),
                     "alltoalls");
  if (!gpu_)
    return coll::alltoalls(device::ThreadGroup{}, ctx_, checked(team, "alltoalls"), dest, source,
                           dst, sst, nelems);
  alltoalls_on_stream(team, dest, source, dst, sst, nelems, nullptr);
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
void Runtime::reduce(const Team& team, T* dest, const T* source, std::size_t nreduce,
                     coll::ReduceOp op) {
  SYMMETRA_OBSERVE(&Runtime::reduce<T>, "reduce", -1, nreduce * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nreduce, op);
  if (!gpu_) return allreduce(team, dest, source, nreduce, op);  // the same result, faster
  reduce_on_stream(team, dest, source, nreduce, op, nullptr);
}
template <class T>
void Runtime::reduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nreduce,
                               coll::ReduceOp op, Stream s) {
  auto c = coll::make_call(coll::Kind::kReduce, team.handle(), dest, source, nreduce);
  c.op = op;
  collective(c, s);
}

template <class T>
void Runtime::reduce_scatter(const Team& team, T* dest, const T* source, std::size_t nreduce,
                             coll::ReduceOp op) {
  SYMMETRA_OBSERVE(&Runtime::reduce_scatter<T>, "reduce_scatter", -1, nreduce * sizeof(T),
                   Form::kHost, team.handle(), team, dest, source, nreduce, op);
  if (!gpu_) {
    auto c = coll::make_call(coll::Kind::kReduceScatter, team.handle(), dest, source, nreduce);
    c.op = op;
    enter_collective(c, "reduce_scatter");
    // In place, Runtime::collective reduces into a temporary first; otherwise the caller's code.
    const int h = checked(team, "reduce_scatter");
    const std::size_t out = nreduce * sizeof(T);
    if (!coll::detail::ranges_overlap(dest, out, source,
                                      out * static_cast<std::size_t>(ctx_.teams[h].size)))
      return coll::reduce_scatter(device::ThreadGroup{}, ctx_, h, dest, source, nreduce, op);
  }
  reduce_scatter_on_stream(team, dest, source, nreduce, op, nullptr);
}
template <class T>
void Runtime::reduce_scatter_on_stream(const Team& team, T* dest, const T* source,
                                       std::size_t nreduce, coll::ReduceOp op, Stream s) {
  auto c = coll::make_call(coll::Kind::kReduceScatter, team.handle(), dest, source, nreduce);
  c.op = op;
  collective(c, s);
}

template <class T>
void Runtime::allreduce(const Team& team, T* dest, const T* source, std::size_t nelems,
                        coll::ReduceOp op, coll::AllreduceAlgo algo) {
  SYMMETRA_OBSERVE(&Runtime::allreduce<T>, "allreduce", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems, op, algo);
  if (!gpu_) {
    auto c = coll::make_call(coll::Kind::kAllreduce, team.handle(), dest, source, nelems);
    c.op = op;
    enter_collective(c, "allreduce");
    algo = allreduce_algo(team, nelems * sizeof(T),
                          allreduce_buffers(dest, source, nelems * sizeof(T)), algo,
                          data_type_of<T>(), op);
    return coll::allreduce(device::ThreadGroup{}, ctx_, checked(team, "allreduce"), dest, source,
                           nelems, op, algo);
  }
  allreduce_on_stream(team, dest, source, nelems, op, nullptr, algo);
}
template <class T>
void Runtime::allreduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  coll::ReduceOp op, Stream s, coll::AllreduceAlgo algo) {
  auto c = coll::make_call(coll::Kind::kAllreduce, team.handle(), dest, source, nelems);
  c.op = op;
  c.algo = algo;
  collective(c, s);
}

template <class T, class OnChunk>
void Runtime::permute(const Team& team, T* dest, const T* source, std::size_t nelems, int to,
                      int from, std::size_t chunk_elems, OnChunk on_chunk) {
  if (ctx_.flags & device::Context::kObserve) [[unlikely]]
    if (observe_outer())
      return observed<&Runtime::permute<T, OnChunk>>(
          ObserveCall{"permute", -1, team.handle(), nelems * sizeof(T), Form::kHost},
          std::make_tuple(team, dest, source, nelems, to, from, chunk_elems, on_chunk));
  if (!gpu_) {
    auto c = coll::make_call(coll::Kind::kPermute, team.handle(), dest, source, nelems);
    c.to = to;
    c.from = from;
    enter_collective(c, "permute");
    return coll::permute(device::ThreadGroup{}, ctx_, checked(team, "permute"), dest, source,
                         nelems, to, from, chunk_elems, on_chunk);
  }
  if constexpr (!std::is_same_v<OnChunk, coll::NoChunkCallback>)
    fail(
        "permute: a chunk callback runs on the CPU backend only; on the GPU backend consume "
        "chunks in a kernel with the device form (coll::permute)");
  permute_on_stream(team, dest, source, nelems, to, from, chunk_elems, nullptr);
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

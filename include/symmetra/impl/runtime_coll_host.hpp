// The host forms of the team collectives (declared in symmetra/runtime.hpp, read there for the
// contract), with their algorithms: include symmetra/collectives.hpp, not this.
//
// Each form builds a coll::Call. On the GPU backend it hands the call to Runtime::collective,
// which plans it and runs the device form in a kernel. On the CPU backend it hands the call to
// Runtime::plan, the same planner (checks, the members' agreement, the all-reduce's algorithm,
// in-place and private buffers), and runs the planned call's algorithm here, in the caller's
// code: behind coll::run's type-erased dispatch the small calls are slower
// (docs/perf_cpu.md#collectives). Where the plan needs more than the
// algorithm (a temporary, a staging block) plan runs the call itself and returns false.
//
// The library instantiates these for every element type collectives take (the fixed-width
// integers, char, long long, half, bfloat16, float, double: src/runtime/coll_forms.hpp), so a
// program that only includes runtime.hpp calls those; one that includes collectives.hpp compiles
// them inline, and must for a permute with a chunk consumer.
#pragma once

#ifndef SYMMETRA_RUNTIME_CONTRACT
#error "include symmetra/collectives.hpp, not symmetra/impl/runtime_coll_host.hpp"
#endif

#include <cstddef>
#include <type_traits>

#include "symmetra/coll.hpp"
#include "symmetra/coll/call.hpp"

namespace symmetra {

template <class T>
void Runtime::broadcast(const Team& team, T* dest, const T* source, std::size_t nelems, int root,
                        bool write_root) {
  SYMMETRA_OBSERVE(&Runtime::broadcast<T>, "broadcast", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems, root, write_root);
  auto c = coll::make_call(coll::Kind::kBroadcast, team.handle(), dest, source, nelems);
  c.root = root;
  if (gpu_) {
    if (!write_root)
      fail("broadcast: leaving the root's dest alone (write_root false) needs the CPU backend");
    return collective(c);
  }
  if (plan(c, nullptr))
    coll::broadcast(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems, root, {},
                    write_root);
}

template <class T>
void Runtime::fcollect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect<T>, "fcollect", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  auto c = coll::make_call(coll::Kind::kFcollect, team.handle(), dest, source, nelems);
  if (gpu_) return collective(c);
  if (plan(c, nullptr)) coll::fcollect(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems);
}
template <class T>
void Runtime::fcollect_read(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect_read<T>, "fcollect_read", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  auto c = coll::make_call(coll::Kind::kFcollectRead, team.handle(), dest, source, nelems);
  if (gpu_) return collective(c);
  if (plan(c, nullptr))
    coll::fcollect_read(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems);
}
template <class T>
void Runtime::fcollect_ring(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::fcollect_ring<T>, "fcollect_ring", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  auto c = coll::make_call(coll::Kind::kFcollectRing, team.handle(), dest, source, nelems);
  if (gpu_) return collective(c);
  if (plan(c, nullptr))
    coll::fcollect_ring(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems);
}
template <class T>
void Runtime::collect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::collect<T>, "collect", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  auto c = coll::make_call(coll::Kind::kCollect, team.handle(), dest, source, nelems);
  if (gpu_) return collective(c);
  if (plan(c, nullptr)) coll::collect(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems);
}

template <class T>
void Runtime::alltoall(const Team& team, T* dest, const T* source, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::alltoall<T>, "alltoall", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems);
  auto c = coll::make_call(coll::Kind::kAlltoall, team.handle(), dest, source, nelems);
  if (gpu_) return collective(c);
  if (plan(c, nullptr)) coll::alltoall(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems);
}
template <class T>
void Runtime::alltoalls(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                        std::ptrdiff_t sst, std::size_t nelems) {
  SYMMETRA_OBSERVE(&Runtime::alltoalls<T>, "alltoalls", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, dst, sst, nelems);
  auto c = coll::make_call(coll::Kind::kAlltoalls, team.handle(), dest, source, nelems);
  c.dst_stride = dst;
  c.src_stride = sst;
  if (gpu_) return collective(c);
  if (plan(c, nullptr))
    coll::alltoalls(device::ThreadGroup{}, ctx_, c.team, dest, source, dst, sst, nelems);
}

template <class T>
void Runtime::reduce(const Team& team, T* dest, const T* source, std::size_t nreduce,
                     coll::ReduceOp op) {
  SYMMETRA_OBSERVE(&Runtime::reduce<T>, "reduce", -1, nreduce * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nreduce, op);
  auto c = coll::make_call(coll::Kind::kReduce, team.handle(), dest, source, nreduce);
  c.op = op;
  if (gpu_) return collective(c);
  // On the CPU the plan makes every reduce an all-reduce (the same result, faster).
  if (plan(c, nullptr))
    coll::allreduce(device::ThreadGroup{}, ctx_, c.team, dest, source, nreduce, op, c.algo);
}

template <class T>
void Runtime::reduce_scatter(const Team& team, T* dest, const T* source, std::size_t nreduce,
                             coll::ReduceOp op) {
  SYMMETRA_OBSERVE(&Runtime::reduce_scatter<T>, "reduce_scatter", -1, nreduce * sizeof(T),
                   Form::kHost, team.handle(), team, dest, source, nreduce, op);
  auto c = coll::make_call(coll::Kind::kReduceScatter, team.handle(), dest, source, nreduce);
  c.op = op;
  if (gpu_) return collective(c);
  if (plan(c, nullptr))
    coll::reduce_scatter(device::ThreadGroup{}, ctx_, c.team, dest, source, nreduce, op);
}

template <class T>
void Runtime::allreduce(const Team& team, T* dest, const T* source, std::size_t nelems,
                        coll::ReduceOp op, coll::AllreduceAlgo algo) {
  SYMMETRA_OBSERVE(&Runtime::allreduce<T>, "allreduce", -1, nelems * sizeof(T), Form::kHost,
                   team.handle(), team, dest, source, nelems, op, algo);
  auto c = coll::make_call(coll::Kind::kAllreduce, team.handle(), dest, source, nelems);
  c.op = op;
  c.algo = algo;
  if (gpu_) return collective(c);
  if (plan(c, nullptr))
    coll::allreduce(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems, op, c.algo);
}

template <class T, class OnChunk>
void Runtime::permute(const Team& team, T* dest, const T* source, std::size_t nelems, int to,
                      int from, std::size_t chunk_elems, OnChunk on_chunk) {
  if (ctx_.flags & device::Context::kObserve) [[unlikely]]
    if (observe_outer())
      return observed<&Runtime::permute<T, OnChunk>>(
          ObserveCall{"permute", -1, team.handle(), nelems * sizeof(T), Form::kHost},
          std::make_tuple(team, dest, source, nelems, to, from, chunk_elems, on_chunk));
  auto c = coll::make_call(coll::Kind::kPermute, team.handle(), dest, source, nelems);
  c.to = to;
  c.from = from;
  c.chunk = chunk_elems;
  if (gpu_) {
    if constexpr (!std::is_same_v<OnChunk, coll::NoChunkCallback>)
      fail(
          "permute: a chunk callback runs on the CPU backend only; on the GPU backend consume "
          "chunks in a kernel with the device form (coll::permute)");
    return collective(c);
  }
  if (plan(c, nullptr))
    coll::permute(device::ThreadGroup{}, ctx_, c.team, dest, source, nelems, to, from, chunk_elems,
                  on_chunk);
}

}  // namespace symmetra

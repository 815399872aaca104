// The host and stream forms of the team collectives (declared in runtime.hpp, read there for
// the contract). CPU backend: the device forms run on the calling thread. GPU backend: they run
// in a kernel per call (Runtime::gpu_collective, src/backend/cuda/coll_ops.cu).
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

#include "symmetra/runtime.hpp"

namespace symmetra {

template <class T>
void Runtime::broadcast(const Team& team, T* dest, const T* source, std::size_t nelems, int root,
                        bool write_root) {
  if (gpu_ && !write_root)
    fail("broadcast: leaving the root's dest alone (write_root false) needs the CPU backend");
  if (gpu_) return broadcast_on_stream(team, dest, source, nelems, root, nullptr);
  coll::broadcast(device::ThreadGroup{}, ctx_, checked(team, "broadcast"), dest, source, nelems,
                  root, {}, write_root);
}
template <class T>
void Runtime::broadcast_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  int root, Stream s) {
  auto c = coll_call(coll::Kind::kBroadcast, team, dest, source, nelems, "broadcast");
  c.root = root;
  gpu_collective(c, s, "broadcast_on_stream");
}

template <class T>
void Runtime::fcollect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  if (gpu_) return fcollect_on_stream(team, dest, source, nelems, nullptr);
  coll::fcollect(device::ThreadGroup{}, ctx_, checked(team, "fcollect"), dest, source, nelems);
}
template <class T>
void Runtime::fcollect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  gpu_collective(coll_call(coll::Kind::kFcollect, team, dest, source, nelems, "fcollect"), s,
                 "fcollect_on_stream");
}
template <class T>
void Runtime::fcollect_read(const Team& team, T* dest, const T* source, std::size_t nelems) {
  if (gpu_) return fcollect_read_on_stream(team, dest, source, nelems, nullptr);
  coll::fcollect_read(device::ThreadGroup{}, ctx_, checked(team, "fcollect_read"), dest, source,
                      nelems);
}
template <class T>
void Runtime::fcollect_read_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  gpu_collective(coll_call(coll::Kind::kFcollectRead, team, dest, source, nelems, "fcollect_read"),
                 s, "fcollect_read_on_stream");
}
template <class T>
void Runtime::fcollect_ring(const Team& team, T* dest, const T* source, std::size_t nelems) {
  if (gpu_) return fcollect_ring_on_stream(team, dest, source, nelems, nullptr);
  coll::fcollect_ring(device::ThreadGroup{}, ctx_, checked(team, "fcollect_ring"), dest, source,
                      nelems);
}
template <class T>
void Runtime::fcollect_ring_on_stream(const Team& team, T* dest, const T* source,
                                      std::size_t nelems, Stream s) {
  gpu_collective(coll_call(coll::Kind::kFcollectRing, team, dest, source, nelems, "fcollect_ring"),
                 s, "fcollect_ring_on_stream");
}
template <class T>
void Runtime::collect(const Team& team, T* dest, const T* source, std::size_t nelems) {
  if (gpu_) return collect_on_stream(team, dest, source, nelems, nullptr);
  coll::collect(device::ThreadGroup{}, ctx_, checked(team, "collect"), dest, source, nelems);
}
template <class T>
void Runtime::collect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                Stream s) {
  gpu_collective(coll_call(coll::Kind::kCollect, team, dest, source, nelems, "collect"), s,
                 "collect_on_stream");
}

template <class T>
void Runtime::alltoall(const Team& team, T* dest, const T* source, std::size_t nelems) {
  if (gpu_) return alltoall_on_stream(team, dest, source, nelems, nullptr);
  coll::alltoall(device::ThreadGroup{}, ctx_, checked(team, "alltoall"), dest, source, nelems);
}
template <class T>
void Runtime::alltoall_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                 Stream s) {
  gpu_collective(coll_call(coll::Kind::kAlltoall, team, dest, source, nelems, "alltoall"), s,
                 "alltoall_on_stream");
}
template <class T>
void Runtime::alltoalls(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                        std::ptrdiff_t sst, std::size_t nelems) {
  if (gpu_) return alltoalls_on_stream(team, dest, source, dst, sst, nelems, nullptr);
  coll::alltoalls(device::ThreadGroup{}, ctx_, checked(team, "alltoalls"), dest, source, dst, sst,
                  nelems);
}
template <class T>
void Runtime::alltoalls_on_stream(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                                  std::ptrdiff_t sst, std::size_t nelems, Stream s) {
  auto c = coll_call(coll::Kind::kAlltoalls, team, dest, source, nelems, "alltoalls");
  c.dst_stride = dst;
  c.src_stride = sst;
  gpu_collective(c, s, "alltoalls_on_stream");
}

template <class T>
void Runtime::reduce(const Team& team, T* dest, const T* source, std::size_t nreduce,
                     coll::ReduceOp op) {
  if (gpu_) return reduce_on_stream(team, dest, source, nreduce, op, nullptr);
  // The same result as the all-reduce, whose selector picks among one-shot (what coll::reduce
  // is), recursive doubling and two-shot by size: about twice as fast as one-shot alone at
  // large sizes (docs/perf_cpu.md#collectives). It takes dest == source too.
  allreduce(team, dest, source, nreduce, op);
}
template <class T>
void Runtime::reduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nreduce,
                               coll::ReduceOp op, Stream s) {
  // In place on the GPU: the LL two-shot reads each source once before writing (allreduce_ll.hpp).
  auto c = coll_call(coll::Kind::kReduce, team, dest, source, nreduce, "reduce");
  c.op = op;
  if (overlaps(dest, nreduce, source, nreduce)) {
    c.kind = coll::Kind::kAllreduce;
    c.algo = coll::AllreduceAlgo::kLLTwoShot;
  }
  gpu_collective(c, s, "reduce_on_stream");
}

template <class T>
void Runtime::reduce_scatter(const Team& team, T* dest, const T* source, std::size_t nreduce,
                             coll::ReduceOp op) {
  if (gpu_) return reduce_scatter_on_stream(team, dest, source, nreduce, op, nullptr);
  const int h = checked(team, "reduce_scatter");
  const std::size_t total = nreduce * static_cast<std::size_t>(teams_[h].size);
  if (!overlaps(dest, nreduce, source, total))
    return coll::reduce_scatter(device::ThreadGroup{}, ctx_, h, dest, source, nreduce, op);
  std::vector<T> tmp(nreduce);
  coll::reduce_scatter(device::ThreadGroup{}, ctx_, h, tmp.data(), source, nreduce, op);
  std::copy(tmp.begin(), tmp.end(), dest);
}
template <class T>
void Runtime::reduce_scatter_on_stream(const Team& team, T* dest, const T* source,
                                       std::size_t nreduce, coll::ReduceOp op, Stream s) {
  auto c = coll_call(coll::Kind::kReduceScatter, team, dest, source, nreduce, "reduce_scatter");
  c.op = op;
  if (overlaps(dest, nreduce, source, nreduce * static_cast<std::size_t>(teams_[c.team].size)))
    fail(
        "reduce_scatter_on_stream: dest and source overlap; the stream form needs separate "
        "buffers");
  gpu_collective(c, s, "reduce_scatter_on_stream");
}

template <class T>
void Runtime::allreduce(const Team& team, T* dest, const T* source, std::size_t nelems,
                        coll::ReduceOp op, coll::AllreduceAlgo algo) {
  if (gpu_) return allreduce_on_stream(team, dest, source, nelems, op, nullptr, algo);
  const int h = checked(team, "allreduce");
  const bool separate = !overlaps(dest, nelems, source, nelems);
  algo = allreduce_algo(team, nelems * sizeof(T),
                        separate && is_symmetric(dest) && is_symmetric(source), algo,
                        data_type_of<T>(), op);
  coll::allreduce(device::ThreadGroup{}, ctx_, h, dest, source, nelems, op, algo);
}
template <class T>
void Runtime::allreduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                  coll::ReduceOp op, Stream s, coll::AllreduceAlgo algo) {
  auto c = coll_call(coll::Kind::kAllreduce, team, dest, source, nelems, "allreduce");
  c.op = op;
  ensure_nccl(c.team);  // the team's first call: agree whether NCCL can serve it
  const bool separate = !overlaps(dest, nelems, source, nelems);
  c.algo = allreduce_algo(team, nelems * sizeof(T),
                          separate && is_symmetric(dest) && is_symmetric(source), algo, c.type, op);
  gpu_collective(c, s, "allreduce_on_stream");
}

template <class T, class OnChunk>
void Runtime::permute(const Team& team, T* dest, const T* source, std::size_t nelems, int to,
                      int from, std::size_t chunk_elems, OnChunk on_chunk) {
  if (gpu_) {
    if constexpr (!std::is_same_v<OnChunk, coll::NoChunkCallback>)
      fail(
          "permute: a chunk callback runs on the CPU backend only; on the GPU backend consume "
          "chunks "
          "in a kernel with the device form (coll::permute)");
    return permute_on_stream(team, dest, source, nelems, to, from, chunk_elems, nullptr);
  }
  coll::permute(device::ThreadGroup{}, ctx_, checked(team, "permute"), dest, source, nelems, to,
                from, chunk_elems, on_chunk);
}
template <class T>
void Runtime::permute_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                                int to, int from, std::size_t chunk_elems, Stream s) {
  auto c = coll_call(coll::Kind::kPermute, team, dest, source, nelems, "permute");
  c.to = to;
  c.from = from;
  // Chunks exist for consumers of each chunk (the device form's on_chunk); this form has none,
  // and each chunk costs a fence and a signal: one chunk per channel. A chunk of 0 still goes
  // down, for the kernel's argument check to report.
  c.chunk = chunk_elems == 0 ? 0 : std::max<std::size_t>(nelems, 1);
  gpu_collective(c, s, "permute_on_stream");
}

inline void Runtime::barrier_on_stream(const Team& team, Stream s) {
  gpu_collective(
      coll_call<std::uint8_t>(coll::Kind::kBarrier, team, nullptr, nullptr, 0, "barrier"), s,
      "barrier_on_stream");
}
inline void Runtime::sync_on_stream(const Team& team, Stream s) {
  gpu_collective(coll_call<std::uint8_t>(coll::Kind::kSync, team, nullptr, nullptr, 0, "sync"), s,
                 "sync_on_stream");
}

}  // namespace symmetra

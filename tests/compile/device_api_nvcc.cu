// Compiles every device-API function inside a kernel with thread, warp and block groups, so a
// change that breaks the nvcc build of the shared headers fails CI (which has nvcc, not a GPU).
// Running these kernels is the GPU issue's gpu-labelled tests.
#include <cstdint>

#include "symmetra/device.hpp"

namespace sd = symmetra::device;
using symmetra::Cmp;
using symmetra::SignalOp;

template <class Group>
__device__ void every_group_call(Group g, const sd::Context& ctx, int* data, std::uint64_t* sig,
                                 int pe) {
  sd::putmem(g, ctx, data, data + 64, 64 * sizeof(int), pe);
  sd::getmem(g, ctx, data + 64, data, 64 * sizeof(int), pe);
  sd::put(g, ctx, data, data + 64, 64, pe);
  sd::get(g, ctx, data, data + 64, 64, pe);
  sd::put_nbi(g, ctx, data, data + 64, 64, pe);
  sd::get_nbi(g, ctx, data, data + 64, 64, pe);
  sd::iput(g, ctx, data, data + 64, 2, 1, 16, pe);
  sd::iget(g, ctx, data, data + 64, 1, 2, 16, pe);
  sd::put_signal(g, ctx, data, data + 64, 64, sig, 1, SignalOp::kAdd, pe);
  sd::putmem_signal_nbi(g, ctx, data, data + 64, 8, sig, 2, SignalOp::kSet, pe);
  sd::barrier(g, ctx, sd::kTeamWorld);
  sd::sync(g, ctx, sd::kTeamWorld);
  sd::barrier_all(g, ctx);
  sd::sync_all(g, ctx);
}

template <class T>
__device__ void every_atomic(const sd::Context& ctx, T* w, int pe) {
  T v = sd::atomic_fetch(ctx, w, pe);
  sd::atomic_set(ctx, w, v, pe);
  v += sd::atomic_swap(ctx, w, v, pe);
  v += sd::atomic_compare_swap(ctx, w, v, T(1), pe);
  v += sd::atomic_fetch_inc(ctx, w, pe);
  sd::atomic_inc(ctx, w, pe);
  v += sd::atomic_fetch_add(ctx, w, v, pe);
  sd::atomic_add(ctx, w, v, pe);
  v += sd::atomic_fetch_and(ctx, w, v, pe);
  sd::atomic_and(ctx, w, v, pe);
  v += sd::atomic_fetch_or(ctx, w, v, pe);
  sd::atomic_or(ctx, w, v, pe);
  v += sd::atomic_fetch_xor(ctx, w, v, pe);
  sd::atomic_xor(ctx, w, v, pe);
  sd::p(ctx, w, v, pe);
}

__global__ void device_api_kernel(sd::Context ctx, int* data, std::uint64_t* sig, float* f,
                                  double* d, std::uint32_t* u32, std::uint64_t* u64, int pe) {
  every_group_call(sd::ThreadGroup{}, ctx, data, sig, pe);
  every_group_call(sd::WarpGroup{}, ctx, data, sig, pe);
  every_group_call(sd::BlockGroup{}, ctx, data, sig, pe);
  every_atomic(ctx, u32, pe);
  every_atomic(ctx, u64, pe);
  float x = sd::atomic_fetch(ctx, f, pe);
  sd::atomic_set(ctx, f, x, pe);
  double y = sd::atomic_swap(ctx, d, 1.0, pe);
  sd::p(ctx, d, y + sd::g(ctx, d, pe), pe);
  sd::fence(ctx);
  sd::quiet(ctx);
  int status[4] = {0, 0, 1, 0};
  std::size_t idx[4];
  const std::uint32_t vals[4] = {1, 2, 3, 4};
  sd::wait_until(ctx, u32, Cmp::kGe, 1u);
  sd::wait_until_all(ctx, u32, 4, status, Cmp::kNe, 0u);
  idx[0] = sd::wait_until_any(ctx, u32, 4, nullptr, Cmp::kEq, 3u);
  idx[1] = sd::wait_until_some(ctx, u32, 4, idx, status, Cmp::kLt, 9u);
  sd::wait_until_all_vector(ctx, u32, 4, status, Cmp::kGe, vals);
  idx[2] = sd::wait_until_any_vector(ctx, u32, 4, status, Cmp::kGe, vals);
  idx[3] = sd::wait_until_some_vector(ctx, u32, 4, idx, status, Cmp::kGe, vals);
  bool t = sd::test(ctx, u64, Cmp::kGt, std::uint64_t{2}) &&
           sd::test_all(ctx, u32, 4, status, Cmp::kLe, 5u);
  t = t || sd::test_any(ctx, u32, 4, status, Cmp::kEq, 1u) != sd::kNoIndex;
  t = t || sd::test_some(ctx, u32, 4, idx, status, Cmp::kEq, 1u) != 0;
  t = t || sd::test_all_vector(ctx, u32, 4, status, Cmp::kEq, vals);
  t = t || sd::test_any_vector(ctx, u32, 4, status, Cmp::kEq, vals) != 0;
  t = t || sd::test_some_vector(ctx, u32, 4, idx, status, Cmp::kEq, vals) != 0;
  const std::uint64_t s = sd::signal_wait_until(ctx, sig, Cmp::kGe, 1) + sd::signal_fetch(ctx, sig);
  if (t && s == 7 && idx[0] == 0) data[0] = static_cast<int>(s);
  int* direct = sd::ptr(ctx, data, pe);
  if (direct != nullptr) direct[1] = 1;
}

// The collectives in kernels, every group, the 16-bit float types included.
#include "symmetra/coll.hpp"

namespace sc = symmetra::coll;

template <class Group, class T>
__device__ void every_collective(Group g, const sd::Context& ctx, T* dst, const T* src, int team) {
  sc::broadcast(g, ctx, team, dst, src, 16, 0);
  sc::fcollect(g, ctx, team, dst, src, 16);
  sc::fcollect_read(g, ctx, team, dst, src, 16);
  sc::collect(g, ctx, team, dst, src, 16);
  sc::alltoall(g, ctx, team, dst, src, 4);
  sc::alltoalls(g, ctx, team, dst, src, 2, 1, 4);
  sc::reduce(g, ctx, team, dst, src, 16, sc::ReduceOp::kSum);
  sc::reduce(g, ctx, team, dst, src, 16, sc::ReduceOp::kMax);
  sc::reduce_scatter(g, ctx, team, dst, src, 4, sc::ReduceOp::kMin);
  sc::permute(g, ctx, team, dst, src, 16, 1, 0, 8);
}

template <class T>
__global__ void collectives_kernel(sd::Context ctx, T* dst, const T* src) {
  every_collective(sd::ThreadGroup{}, ctx, dst, src, sd::kTeamWorld);
  every_collective(sd::WarpGroup{}, ctx, dst, src, sd::kTeamWorld);
  every_collective(sd::BlockGroup{}, ctx, dst, src, sd::kTeamWorld);
}

template __global__ void collectives_kernel<int>(sd::Context, int*, const int*);
template __global__ void collectives_kernel<unsigned long long>(sd::Context, unsigned long long*,
                                                                const unsigned long long*);
template __global__ void collectives_kernel<float>(sd::Context, float*, const float*);
template __global__ void collectives_kernel<double>(sd::Context, double*, const double*);
template __global__ void collectives_kernel<symmetra::half>(sd::Context, symmetra::half*,
                                                            const symmetra::half*);
template __global__ void collectives_kernel<symmetra::bfloat16>(sd::Context, symmetra::bfloat16*,
                                                                const symmetra::bfloat16*);

// The CUDA backend's state behind CudaBackend::Impl, shared by its .cu files.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/cuda/co_launch.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_heap.hpp"
#include "backend/cuda/driver.hpp"
#include "symmetra/coll/call.hpp"

namespace symmetra::detail {

// Where host-initiated atomics' kernels leave the old values: mapped pinned memory, which the
// calling thread polls, instead of a device word copied back after a stream synchronize (8.9 us
// against 13.7 per atomic on the H200, bench/probes/serve_store.cu). Each call takes the next
// sequence number and the slot it selects, and the number written after the value says the value
// is this call's. One call is in flight per AmoResults: the host forms run one thread at a time
// on this backend (SHMEM_THREAD_SERIALIZED), and the serving thread has AmoResults of its own.
// Slots beyond one keep that true if a later design overlaps calls, up to kSlots of them.
struct AmoResults {
  struct Slot {
    std::uint64_t value;  // the old value's bits, written first
    std::uint64_t seq;    // then the call's sequence number
  };
  static constexpr int kSlots = 64;
  Slot* slots = nullptr;
  std::atomic<std::uint64_t> next{0};
};

struct CudaBackend::Impl {
  std::unique_ptr<CudaHeap> heap;
  std::int32_t* d_pe_index = nullptr;
  device::TeamDesc* d_teams = nullptr;
  AmoResults results;  // the PE's threads' atomics (access_results: the serving thread's)
  cudaStream_t stream = nullptr;
  int n_pes = 0;
  std::vector<int> pe_devices;  // every PE's device, by PE number
  // PEs that share this GPU as threads (co_launch.hpp): the process-wide batches, and per team
  // slot the co-located members and this PE's count of calls.
  std::shared_ptr<CoLaunch> co_launch;
  std::vector<int> colocated[device::kMaxTeams];
  std::uint64_t launch_seq[device::kMaxTeams] = {};
  // This PE's host control header, registered mapped so that kernels see its abort mark
  // (Context::host_header); null if the driver refused (waits then end at their timeout).
  void* host_header = nullptr;
  void* host_header_device = nullptr;
  // The remote side (remote_ops.cu). The Runtime's host context, for errors from the serving
  // thread; the serving thread's own stream and result word (the PE's threads use `stream`);
  // and a pinned bounce buffer for host-initiated operations to other hosts, made at the first
  // one, under bounce_mu (SHMEM_THREAD_MULTIPLE).
  const device::Context* control = nullptr;
  cudaStream_t access_stream = nullptr;
  AmoResults access_results;
  HeapAccess access{};
  // The served stores' pinned staging (one of `pinned`, made by the first heap_access()): each
  // store's bytes are copied here and enqueued on access_stream; `staged` bytes of it are in
  // use by copies not yet waited for (serving thread only).
  std::byte* serve_staging = nullptr;
  std::size_t staged = 0;
  std::mutex bounce_mu;
  std::byte* bounce = nullptr;  // one of `pinned`
  // What pinned_host_memory and device_words made (the bounce buffer, the proxy ring of this
  // PE's kernels), freed when the backend ends; the proxy thread's stream for staging copies.
  std::vector<void*> pinned;
  std::vector<void*> device_words;
  cudaStream_t proxy_stream = nullptr;
  bool remote_kernels = false;  // preload_remote_*_kernels ran
};

// `bytes` from src to dst (either side host or device memory) by the copy engine on `s`, waited
// for; an error ends the job naming `op` (host_ops.cu).
void copy_waited(const device::Context& ctl, const char* op, void* dst, const void* src,
                 std::size_t bytes, cudaStream_t s);

// `op` on the word `dest` of `pe` in a one-thread kernel on `s`, which leaves the old value's
// bits in `results`; returns them once there (host_ops.cu).
std::uint64_t run_amo(const device::Context& ctl, const device::Context& dctx, cudaStream_t s,
                      AmoResults& results, AmoOp op, DataType type, void* dest, std::uint64_t value,
                      std::uint64_t cond, int pe);

// Kernels each file loads at setup (CudaBackend::create): with lazy module loading (CUDA's
// default) a kernel's first launch may wait for running kernels, and these kernels wait for
// each other across PEs: loading them at a first launch could deadlock. NCCL and NVSHMEM load
// theirs at init for the same reason.
Status preload_host_kernels();    // host_ops.cu
Status preload_stream_kernels();  // stream_ops.cu
Status preload_coll_kernels();    // coll_ops.cu
// With a proxy ring (PEs on other hosts), the kernels that reach other hosts through it.
Status preload_remote_coll_kernels();    // coll_remote.cu
Status preload_remote_stream_kernels();  // stream_remote.cu

// The stream forms' kernels for PEs on other hosts, which post to the proxy ring
// (stream_remote.cu says what each completes); the launch's error. barrier_all's kernel takes
// the device context and is launched with the co-located PEs' (launch_collective).
cudaError_t remote_put_on_stream(const device::Context& dctx, void* dest, const void* src,
                                 std::size_t bytes, int pe, cudaStream_t s);
cudaError_t remote_get_on_stream(const device::Context& dctx, void* dest, const void* src,
                                 std::size_t bytes, int pe, cudaStream_t s);
cudaError_t remote_signal_on_stream(const device::Context& dctx, std::uint64_t* sig,
                                    std::uint64_t value, SignalOp op, int pe, cudaStream_t s);
cudaError_t remote_quiet_on_stream(const device::Context& dctx, cudaStream_t s);
const void* remote_barrier_all_kernel_fn();

// A collective's kernel (coll_kernels.cuh), with kCollThreads threads per block: enough to keep
// a copy's loads in flight, few enough that a block's __syncthreads stays cheap (the
// latency-bound sizes dominate use).
using CollKernel = void (*)(device::Context, coll::Call);
inline constexpr int kCollThreads = 512;
// The copy compiled with the remote branch, for teams with members on other hosts
// (coll_remote.cu).
CollKernel remote_coll_kernel(coll::Kind kind, DataType type);

inline cudaStream_t cu(Stream s) {
  return reinterpret_cast<cudaStream_t>(s);
}

}  // namespace symmetra::detail

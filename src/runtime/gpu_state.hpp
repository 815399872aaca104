// The GPU backend's per-PE state, as the Runtime sees it (no CUDA headers here, so CPU-only
// builds compile this; src/runtime/no_gpu.cpp answers when CUDA is not built).
//
// It owns the device heap (src/transport/cuda/cuda_heap.hpp), the device copies of the PE and
// team tables that kernels read through the Context, and an internal stream for host-initiated
// copies and kernels. Threads: the PE's thread, with the PE's device current.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "../bootstrap/bootstrap.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra::detail {

// kAuto becomes SYMMETRA_BACKEND (cpu | cuda), default cpu; throws naming `pe` on a bad value.
Backend resolve_backend(Backend requested, const std::string& pe);

class GpuState {
 public:
  // Collective. `device` < 0 picks SYMMETRA_DEVICE, else this PE's rank modulo the device count.
  static Result<std::unique_ptr<GpuState>> create(Bootstrap& bs, int device, std::uint64_t stride,
                                                  std::uint64_t initial,
                                                  std::uint64_t reserved_bytes,
                                                  std::uint64_t ws_world, std::uint64_t ws_team);
  ~GpuState();

  const device::Context& device_context() const { return dctx_; }
  const device::Context& host_view() const { return hctx_; }
  std::uint64_t heap_size() const;
  std::uint64_t heap_stride() const;
  int device() const;
  // The most PEs of this job that share one GPU (1 with a GPU per PE): the same on every PE.
  int max_pes_per_device() const;
  Stream stream() const { return stream_; }

  // Takes PE numbers, flags, timeout and tables from the host context; re-reads the heap extent;
  // uploads the tables kernels read.
  Status refresh(const device::Context& control);
  Status grow(std::uint64_t new_size);  // collective
  Status memset(void* p, int value, std::size_t bytes);
  // Enqueues a kernel of a collective call on team handle `team`; `launch` enqueues it and
  // returns its cudaError_t. Where PEs share this GPU as threads, it is launched together with
  // the co-located members' kernels of the same call, and this returns once they all are
  // (src/transport/cuda/co_launch.hpp says why); elsewhere at once. Every member of the team
  // must call it for each of the team's calls, in the same order.
  Status launch_collective(int team, const std::function<int()>& launch, const char* op);
  // A team was made in `slot` (this PE is a member): its calls count from zero.
  void reset_launch_seq(int slot);
  Status copy(void* dst, const void* src, std::size_t bytes);
  // The CUDA machinery (src/transport/cuda/gpu_state.cu).
  struct Impl;
  Impl& impl() { return *impl_; }

  // A 64-bit word of this PE's GPU heap header, by byte offset (team slot counters).
  Result<std::uint64_t> header_word(std::size_t offset);
  Status set_header_word(std::size_t offset, std::uint64_t value);

 private:
  GpuState() = default;
  std::unique_ptr<Impl> impl_;
  device::Context dctx_{};
  device::Context hctx_{};
  std::vector<std::int32_t> pe_index_;  // host copy of the table hctx_ points to
  std::vector<device::TeamDesc> teams_;
  Stream stream_ = nullptr;
  std::uint64_t ws_world_ = 0, ws_team_ = 0;
};

}  // namespace symmetra::detail

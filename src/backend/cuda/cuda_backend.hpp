// The CUDA backend (backend.hpp): the data heap in device memory (cuda_heap.hpp), the device
// copies of the PE and team tables that kernels read through the Context, and an internal
// stream for host-initiated copies and kernels. No CUDA headers here: the factory includes it.
//
// Files: cuda_backend.cu (setup, memory, tables), host_ops.cu (host-initiated RMA, atomics,
// waits), remote_ops.cu (host-initiated operations to PEs of other hosts, and the heap access
// the transport serves peers with), stream_ops.cu (the stream forms), coll_ops.cu (collective
// kernels).
// Threads: the PE's threads, with the PE's device current; heap_access()'s calls from the
// transport's serving thread, which need not have it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/backend.hpp"

namespace symmetra::detail {

class CudaBackend final : public Backend {
 public:
  // Collective. params.device < 0 picks SYMMETRA_DEVICE, else this PE's local rank modulo the
  // device count.
  static Result<std::unique_ptr<CudaBackend>> create(Bootstrap& bs, const BackendParams& params);
  ~CudaBackend() override;

  bool host_memory() const override { return false; }
  const device::Context& device_context() const override { return dctx_; }
  const device::Context& host_view() const override { return hctx_; }
  std::uint64_t heap_size() const override;
  int device() const override;
  int max_pes_per_device() const override;
  Status refresh(const device::Context& control) override;
  Status grow(std::uint64_t new_size) override;
  std::uint64_t map_granularity() const override;
  Result<std::uint64_t> map_user(void* buffer, std::uint64_t bytes) override;
  Status unmap_user(std::uint64_t offset, std::uint64_t bytes) override;
  Status memset(void* p, int value, std::size_t bytes) override;
  Status copy(void* dst, const void* src, std::size_t bytes) override;
  Result<std::uint64_t> header_word(std::size_t offset) override;
  Status set_header_word(std::size_t offset, std::uint64_t value) override;
  void team_created(int slot) override;
  const HeapAccess* heap_access() override;
  void* pinned_host_memory(std::size_t bytes, bool mapped, std::string* why) override;
  std::uint64_t* device_words(std::size_t n, std::string* why) override;
  bool is_device_memory(const void* p) const override;
  void proxy_copy(void* dst, const void* src, std::size_t bytes, bool to_device) override;

  void put(const device::Context& ctl, const char* op, void* dest, const void* src,
           std::size_t bytes, int pe) override;
  void get(const device::Context& ctl, const char* op, void* dest, const void* src,
           std::size_t bytes, int pe) override;
  void strided(const device::Context& ctl, bool put, void* dest, const void* src, std::size_t elem,
               std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t n,
               int pe) override;
  std::uint64_t amo(const device::Context& ctl, AmoOp op, DataType type, void* dest,
                    std::uint64_t value, std::uint64_t cond, int pe) override;
  void quiet(const device::Context& ctl) override;
  void read_local(const device::Context& ctl, const char* op, void* dst, const void* src,
                  std::size_t bytes) override;

  void put_on_stream(const device::Context& ctl, const char* op, void* dest, const void* src,
                     std::size_t bytes, int pe, Stream s) override;
  void get_on_stream(const device::Context& ctl, const char* op, void* dest, const void* src,
                     std::size_t bytes, int pe, Stream s) override;
  void signal_on_stream(const device::Context& ctl, std::uint64_t* sig, std::uint64_t value,
                        SignalOp op, int pe, Stream s) override;
  void signal_wait_on_stream(const device::Context& ctl, std::uint64_t* sig, Cmp cmp,
                             std::uint64_t value, bool bounded, Stream s) override;
  void wait_all_on_stream(const device::Context& ctl, DataType type, const void* ivars,
                          std::size_t n, const int* status, Cmp cmp, std::uint64_t value,
                          const void* values, Stream s) override;
  void quiet_on_stream(const device::Context& ctl, Stream s) override;
  void barrier_all_on_stream(const device::Context& ctl, Stream s) override;
  void launch_graph(const device::Context& ctl, void* graph_exec, Stream s) override;
  void collective(const device::Context& ctl, const coll::Call& call, int channels,
                  Stream s) override;
  Stream stream() const override { return stream_; }
  void sync_stream(const device::Context& ctl, const char* op, Stream s) override;

  // The CUDA machinery (cuda_backend.cu).
  struct Impl;

 private:
  CudaBackend() = default;
  // Enqueues a kernel of a collective call on team handle `team`; `launch` enqueues it and
  // returns its cudaError_t. Where PEs share this GPU as threads, it is launched together with
  // the co-located members' kernels of the same call, and this returns once they all are
  // (co_launch.hpp says why); elsewhere at once. Every member of the team must call it for
  // each of the team's calls, in the same order.
  Status launch_collective(int team, const std::function<int()>& launch, const char* op);
  // To a PE of another host: through a pinned bounce buffer into the runtime's remote branch
  // (ctl.remote), complete on return as the host forms are (remote_ops.cu).
  void remote_put(const device::Context& ctl, const char* op, void* dest, const void* src,
                  std::size_t bytes, int pe);
  void remote_get(const device::Context& ctl, const char* op, void* dest, const void* src,
                  std::size_t bytes, int pe);
  // heap_access()'s calls (arg: the CudaBackend; remote_ops.cu). A store is a copy enqueued
  // from pinned staging and waited for by the next load, atomic or flush; a load is a copy and
  // an atomic a one-thread kernel, each waited for.
  static void serve_store(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes);
  static void serve_load(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes);
  static std::uint64_t serve_amo(void* arg, std::byte* word, AmoOp op, DataType type,
                                 std::uint64_t value, std::uint64_t cond);
  static void serve_flush(void* arg);

  std::unique_ptr<Impl> impl_;
  device::Context dctx_{};
  device::Context hctx_{};
  std::vector<std::int32_t> pe_index_;  // host copy of the table hctx_ points to
  std::vector<device::TeamDesc> teams_;
  Stream stream_ = nullptr;
  std::uint64_t ws_world_ = 0, ws_team_ = 0;
};

}  // namespace symmetra::detail

// The CPU backend: the data heap is the host-memory heap (heap/symmetric_heap.hpp), which
// every local PE maps, so host-initiated work is loads and stores. The Runtime runs those inline
// (backend.hpp says why); these members are the same device bodies, and the stream forms say
// that they need the CUDA backend.
#pragma once

#include <cstring>
#include <string>

#include "backend/backend.hpp"
#include "heap/symmetric_heap.hpp"

namespace symmetra::detail {

class CpuBackend final : public Backend {
 public:
  CpuBackend(SymmetricHeap& heap, const device::Context& control)
      : heap_(heap), control_(control) {}

  bool host_memory() const override { return true; }
  const device::Context& device_context() const override { return control_; }
  const device::Context& host_view() const override { return control_; }
  std::uint64_t heap_size() const override { return heap_.size(); }
  int device() const override { return -1; }
  int max_pes_per_device() const override { return 1; }
  Status refresh(const device::Context&) override { return {}; }
  Status grow(std::uint64_t new_size) override { return heap_.grow(new_size); }
  // The heap is one shared mapping: a user's memory cannot be mapped into it.
  std::uint64_t map_granularity() const override { return 0; }
  Result<std::uint64_t> map_user(void*, std::uint64_t) override {
    return Status::fail("a user's buffer can be mapped into the GPU backend's heap only");
  }
  Status unmap_user(std::uint64_t, std::uint64_t) override { return {}; }
  Status memset(void* p, int value, std::size_t bytes) override;
  Status copy(void* dst, const void* src, std::size_t bytes) override;
  Result<std::uint64_t> header_word(std::size_t offset) override;
  Status set_header_word(std::size_t offset, std::uint64_t value) override;
  void team_created(int) override {}
  const HeapAccess* heap_access() override { return nullptr; }  // the host loads and stores it
  void* pinned_host_memory(std::size_t, bool, std::string* why) override {
    *why = "the CPU backend runs no kernels";
    return nullptr;
  }
  std::uint64_t* device_words(std::size_t, std::string* why) override {
    *why = "the CPU backend has no device memory";
    return nullptr;
  }
  bool is_device_memory(const void*) const override { return false; }
  void proxy_copy(void* dst, const void* src, std::size_t bytes, bool) override {
    std::memcpy(dst, src, bytes);
  }

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

  void put_on_stream(const device::Context& ctl, const char* op, void*, const void*, std::size_t,
                     int, Stream) override;
  void get_on_stream(const device::Context& ctl, const char* op, void*, const void*, std::size_t,
                     int, Stream) override;
  void signal_on_stream(const device::Context& ctl, std::uint64_t*, std::uint64_t, SignalOp, int,
                        Stream) override;
  void signal_wait_on_stream(const device::Context& ctl, std::uint64_t*, Cmp, std::uint64_t, bool,
                             Stream) override;
  void wait_all_on_stream(const device::Context& ctl, DataType, const void*, std::size_t,
                          const int*, Cmp, std::uint64_t, const void*, Stream) override;
  void quiet_on_stream(const device::Context& ctl, Stream) override;
  void barrier_all_on_stream(const device::Context& ctl, Stream) override;
  void launch_graph(const device::Context& ctl, void*, Stream) override;
  void collective(const device::Context& ctl, const coll::Call& call, int, Stream) override;
  Stream stream() const override { return nullptr; }
  void sync_stream(const device::Context&, const char*, Stream) override {}

 private:
  SymmetricHeap& heap_;
  const device::Context& control_;  // the Runtime's: on the CPU it is the data heap's context
};

}  // namespace symmetra::detail

// A backend: where a PE's data heap lives and how host-initiated work on it runs (docs/design.md
// §2). backend/cpu keeps the data heap in the host-memory heap; backend/cuda in device memory,
// with copies by the copy engine, stream memory operations and kernels. The Runtime composes
// one backend with the bootstrap and the host heap, and talks to it only through this interface.
//
// The CPU data path does not come here: the Runtime runs the device bodies on host memory
// inline, with no virtual call (Sandia OpenSHMEM's rule for on-node traffic); CpuBackend's
// data-path members are the same bodies, for code that holds only a Backend. The Runtime calls
// the data-path members of a backend whose memory the host cannot load and store.
//
// Errors: setup members return Status; data-path and stream members end the job with
// "[pe N] op: what" through `ctl` (the PE's host context: its PE number and abort marks), as
// every data-path call does; a stream form on a backend without streams throws
// symmetra::Error, as a setup error would. Threads: as the Runtime that owns the backend
// (runtime.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "heap/heap_access.hpp"
#include "symmetra/coll/call.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/error.hpp"
#include "symmetra/stream.hpp"
#include "symmetra/types.hpp"

namespace symmetra::detail {

class SymmetricHeap;

class Backend {
 public:
  virtual ~Backend() = default;

  // --- Memory ---
  // Whether the host loads and stores the data heap (then the Runtime's data path is inline).
  virtual bool host_memory() const = 0;
  // The context kernels (or CPU threads) take by value, and the same with host-readable tables
  // (the two differ where the tables live in device memory).
  virtual const device::Context& device_context() const = 0;
  virtual const device::Context& host_view() const = 0;
  virtual std::uint64_t heap_size() const = 0;
  virtual int device() const = 0;  // -1 without one
  // The most PEs of the job that share one device: the same on every PE (1 on the CPU).
  virtual int max_pes_per_device() const = 0;
  // Takes PE numbers, flags, timeout and team tables from the host context after a change.
  virtual Status refresh(const device::Context& control) = 0;
  virtual Status grow(std::uint64_t new_size) = 0;  // collective
  // A user's buffer mapped into the heap (nvshmemx_buffer_register_symmetric): the granularity
  // its size and place must be multiples of, 0 where the backend cannot map one (the CPU's).
  virtual std::uint64_t map_granularity() const = 0;
  // Collective: maps each PE's `buffer` at the heap's end, growing the heap over it; returns its
  // offset. unmap_user undoes it; the range stays in the heap, unbacked.
  virtual Result<std::uint64_t> map_user(void* buffer, std::uint64_t bytes) = 0;
  virtual Status unmap_user(std::uint64_t offset, std::uint64_t bytes) = 0;
  virtual Status memset(void* p, int value, std::size_t bytes) = 0;
  virtual Status copy(void* dst, const void* src, std::size_t bytes) = 0;  // either may be heap
  // The data heap's own header, where it is not the host heap's (team slot counters, by byte
  // offset); a team was made in `slot`, so its calls count from zero.
  virtual Result<std::uint64_t> header_word(std::size_t offset) = 0;
  virtual Status set_header_word(std::size_t offset, std::uint64_t value) = 0;
  virtual void team_created(int slot) = 0;
  // How a transport serves peers' operations on the data heap, where the host cannot load and
  // store it (heap_access.hpp); null where it can (the CPU backend). Lives as the backend does.
  virtual const HeapAccess* heap_access() = 0;

  // --- The proxy of this PE's kernels (docs/proxy.md); the CPU backend has none ---
  // `bytes` of zeroed pinned host memory, which kernels load and store at the same address where
  // `mapped` (the ring), else which only the copy engine reaches (the bounce buffers: the one
  // GPU run with a mapped one crashed in an H2D copy out of it), and `n` zeroed words of
  // device memory; the backend owns them until it ends. Null without a GPU (or where the driver
  // refuses), with the reason in `*why`.
  virtual void* pinned_host_memory(std::size_t bytes, bool mapped, std::string* why) = 0;
  virtual std::uint64_t* device_words(std::size_t n, std::string* why) = 0;
  // Whether `p` is device memory: a kernel's address that the transport cannot read or write.
  virtual bool is_device_memory(const void* p) const = 0;
  // `bytes` between device and host memory for the proxy thread (into device memory where
  // `to_device`, else out of it), on a stream of its own: complete on return, and never behind
  // the PE's own work (a kernel of the PE may wait for it).
  virtual void proxy_copy(void* dst, const void* src, std::size_t bytes, bool to_device) = 0;

  // --- Host-initiated data path (arguments checked by the caller's rules; complete on return,
  //     as the host forms promise) ---
  virtual void put(const device::Context& ctl, const char* op, void* dest, const void* src,
                   std::size_t bytes, int pe) = 0;
  virtual void get(const device::Context& ctl, const char* op, void* dest, const void* src,
                   std::size_t bytes, int pe) = 0;
  // n elements of `elem` bytes, strides in elements (positive); put: dest is symmetric.
  virtual void strided(const device::Context& ctl, bool put, void* dest, const void* src,
                       std::size_t elem, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
                       std::size_t n, int pe) = 0;
  // `op` on the 4- or 8-byte word `dest` of `pe`, of `type`; value and cond and the result
  // carry the word's bits in their low bytes.
  virtual std::uint64_t amo(const device::Context& ctl, AmoOp op, DataType type, void* dest,
                            std::uint64_t value, std::uint64_t cond, int pe) = 0;
  virtual void quiet(const device::Context& ctl) = 0;
  // Copies `bytes` of this PE's heap at `src` to host memory: one step of a host-side wait.
  virtual void read_local(const device::Context& ctl, const char* op, void* dst, const void* src,
                          std::size_t bytes) = 0;

  // --- Stream-ordered forms (runtime.hpp says what each guarantees) ---
  virtual void put_on_stream(const device::Context& ctl, const char* op, void* dest,
                             const void* src, std::size_t bytes, int pe, Stream s) = 0;
  virtual void get_on_stream(const device::Context& ctl, const char* op, void* dest,
                             const void* src, std::size_t bytes, int pe, Stream s) = 0;
  virtual void signal_on_stream(const device::Context& ctl, std::uint64_t* sig, std::uint64_t value,
                                SignalOp op, int pe, Stream s) = 0;
  // bounded: poll in a kernel that times out, instead of a stream memory wait that cannot.
  virtual void signal_wait_on_stream(const device::Context& ctl, std::uint64_t* sig, Cmp cmp,
                                     std::uint64_t value, bool bounded, Stream s) = 0;
  // Runtime::wait_until_all_on_stream's kernel.
  virtual void wait_all_on_stream(const device::Context& ctl, DataType type, const void* ivars,
                                  std::size_t n, const int* status, Cmp cmp, std::uint64_t value,
                                  const void* values, Stream s) = 0;
  // Every earlier operation of the stream complete at its target once the stream passes it.
  virtual void quiet_on_stream(const device::Context& ctl, Stream s) = 0;
  virtual void barrier_all_on_stream(const device::Context& ctl, Stream s) = 0;
  virtual void launch_graph(const device::Context& ctl, void* graph_exec, Stream s) = 0;
  // Runs `call` (resolved: algorithm chosen, arguments checked) on `channels` channels. s null:
  // on the backend's own stream, waited for. Every member of the call's team calls it for each
  // of the team's calls, in the same order.
  virtual void collective(const device::Context& ctl, const coll::Call& call, int channels,
                          Stream s) = 0;
  // The backend's own stream (null on the CPU), and waiting for it.
  virtual Stream stream() const = 0;
  virtual void sync_stream(const device::Context& ctl, const char* op, Stream s) = 0;
};

// What a backend is made from: the PE's host heap and host context (the CPU backend's data
// heap is that heap), the device asked for, and the data heap's geometry.
struct BackendParams {
  SymmetricHeap* host_heap = nullptr;
  const device::Context* control = nullptr;  // the Runtime's; outlives the backend
  // The PEs that map each other's data heaps (this host's); null: every PE of the bootstrap.
  Bootstrap* group = nullptr;
  int device = -1;                          // -1: SYMMETRA_DEVICE, else the local rank
  std::uint64_t stride = 0;                 // a PE's data heap may grow to this
  std::uint64_t initial = 0;                // bytes usable at once
  std::uint64_t reserved_bytes = 0;         // header and collective workspace
  std::uint64_t ws_world = 0, ws_team = 0;  // collective workspace per team
};

enum class BackendKind { kCpu, kCuda };

// Collective over the bootstrap's PEs. kCuda in a build without CUDA is an error naming the PE
// and what to do; so is a machine where the CUDA backend cannot start.
Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, Bootstrap& bs,
                                              const BackendParams& params);

}  // namespace symmetra::detail

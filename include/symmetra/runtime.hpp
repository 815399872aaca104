// The host API: one Runtime per PE (docs/design.md §1.4, §1.6).
//
// A PE is a process (started by symrun, mpirun, srun or torchrun; Runtime::init reads the
// launcher's environment) or a thread (symmetra::launch_threads hands each thread its Runtime).
// Data-path methods are the device API (device/*.hpp) called with a one-thread group, so host and
// device calls share one implementation and one memory model (docs/memory_model.md).
//
// Threads: a Runtime belongs to its PE. On the CPU backend its data-path methods (RMA, atomics,
// signals, waits, quiet) may be called from several threads at once, also while one thread runs
// a setup method; setup methods and collectives one thread at a time. On the GPU backend, one
// thread at a time. Setup methods (allocation, teams, finalize) are collective: every PE of the
// world (or of the parent team) calls them in the same order. They throw symmetra::Error naming
// the PE on failure.
//
// This header is the contract: declarations and what they promise. The bodies of the inline
// forms are in impl/runtime_inline.hpp (data path) and impl/runtime_coll.hpp (the collectives'
// stream forms), included at the end. The host forms of the collectives run their algorithms on
// the CPU backend: the library has them for every element type collectives take, and
// symmetra/collectives.hpp compiles them into a program that wants them inline (or a permute
// with a chunk consumer), so a program that only moves data compiles no collective algorithm.
// What the runtime decided (teams' layout, the all-reduce's algorithm, NCCL) is for tools and
// tests, in symmetra/introspect.hpp. The class holds only the context the inline data path
// reads, the GPU backend pointer and a pointer to the rest (src/runtime/state.hpp), so its
// layout stays put as the library grows.
#pragma once

// The layers below the runtime reach it only through their own interfaces (docs/design.md §2);
// the build defines this in them, so that including the runtime there fails here.
#if defined(SYMMETRA_LAYER_BELOW_RUNTIME)
#error "a layer below the runtime includes symmetra/runtime.hpp: go through its interface"
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "symmetra/coll/call.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device.hpp"
#include "symmetra/error.hpp"
#include "symmetra/stream.hpp"
#include "symmetra/team.hpp"
#include "symmetra/types.hpp"

namespace symmetra {

namespace detail {
class Bootstrap;
class SymmetricHeap;
class Allocator;
class Backend;
class Transport;
struct Config;
// The library's parts reach the Runtime's state through this (src/runtime/state.hpp).
struct RuntimeAccess;
class Join;  // the phases that make a Runtime (src/runtime/join.hpp)
}  // namespace detail

// Where the symmetric heap lives. kAuto reads SYMMETRA_BACKEND (cpu | cuda), default cpu.
enum class Backend { kAuto, kCpu, kCuda };

struct RuntimeOptions {
  Backend backend = Backend::kAuto;
  // GPU backend: the device of this PE; -1 picks SYMMETRA_DEVICE, else the PE's local index
  // modulo the number of devices.
  int device = -1;
  // OpenSHMEM's rule that global and static variables are symmetric: the main program's data and
  // bss become remotely accessible like the heap (src/heap/static_data.hpp). CPU backend, PEs
  // as processes; ignored elsewhere. shmem_init sets it; C++ programs may.
  bool symmetric_static_data = false;
  // OpenSHMEM's rule for broadcast, alltoall and alltoalls: before any member calls, the
  // program has made every member's dest ready to be written (a barrier after the last reads
  // of it, or a fresh buffer). Without it (the default) Symmetra sees to that itself: no
  // member's dest is written before that member entered the call, at the cost of one more
  // one-way hop per call (coll/credit.hpp). shmem_init sets it; the same on every PE.
  bool dest_ready_by_program = false;
};

// The meeting point of a job whose processes the program starts and numbers itself, as NCCL's
// ncclUniqueId: PE 0's process calls get_unique_id() and passes the bytes on to every PE (through
// a framework's store, MPI_Bcast, a file), and each PE calls Runtime::init(id, rank, size). The id
// is PE 0's TCP address and a secret that admits only PEs given the id (docs/security.md): pass it
// on as privately as the job's other secrets.
struct UniqueId {
  char bytes[256] = {};
};
// Not collective: listens on TCP at an address of this host (SYMMETRA_BOOTSTRAP_IFACE picks the
// interface) from now on, for the one init that PE 0 makes with it in this process.
UniqueId get_unique_id();

// The first statement of an inline observed form of Runtime (its ObserveScope says why): `F`
// is the form (&Runtime::putmem), then the record (op, peer, bytes, form, team), then the form's
// own arguments. The depth is read here, not through a call, and the cold call takes three
// registers (this, the record, a tuple of copies of the arguments, both built in the cold
// branch): each other shape made the fast path save registers or store its arguments to the
// stack (docs/observability.md).
#define SYMMETRA_OBSERVE(F, op, peer, bytes, form, team, ...) \
  if ((ctx_.flags & ::symmetra::device::Context::kObserve) && \
      ::symmetra::detail::observe_depth == 0) [[unlikely]]    \
  return observed<F>(ObserveCall{op, peer, team, bytes, form}, std::make_tuple(__VA_ARGS__))

namespace detail {
// How many observed forms this thread is inside (src/runtime/observe.cpp); only the outermost
// records. Initial-exec: a load from the thread pointer in every module, never a call.
extern constinit thread_local int observe_depth __attribute__((tls_model("initial-exec")));
}  // namespace detail

class Runtime {
 public:
  // Joins the job described by the launcher's environment (a job of one PE if none).
  static std::unique_ptr<Runtime> init(const RuntimeOptions& options = {});
  // Joins the job that `id` names (get_unique_id) as PE `rank` of `size`: for programs whose PEs
  // no launcher numbers, or that already have a store to pass the id through. Collective over
  // the job; bounded by SYMMETRA_TIMEOUT_S, like every rendezvous.
  static std::unique_ptr<Runtime> init(const UniqueId& id, int rank, int size,
                                       const RuntimeOptions& options = {});
  // Used by launch_threads and tests: joins through an existing bootstrap.
  explicit Runtime(std::unique_ptr<detail::Bootstrap> bootstrap,
                   const RuntimeOptions& options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Collective: completes this PE's operations, waits until every PE reached finalize, then
  // releases the heap. Its synchronization is its own (the bootstrap's), so it never completes
  // a barrier that other PEs are in. Called by the destructor if needed.
  void finalize();
  // Leaves without waiting for the other PEs, for error paths: marks the job as failed in every
  // reachable host-memory heap (so PEs waiting from the host stop, on either backend), then
  // releases what this PE owns.
  void abandon();
  // Why a PE marks the job as stopping (the others' waits say it).
  enum class Stop { kFailed, kLeft, kExit };
  // Only the first step of abandon(): marks this PE as stopped in every reachable host-memory
  // heap, so PEs waiting from the host stop with an error naming it and `why`. For paths that end
  // the process at once (shmem_global_exit, a fatal error in the C API). Any thread.
  void mark_failed(Stop why = Stop::kFailed);
  // For a process that ends without finalize (exit(), a return from main): marks this PE as
  // gone (Stop::kLeft) and leaves the job without any collective step, so the others stop at
  // once naming it instead of waiting for it, and the process ends with its own status. Frees
  // nothing else: the process is ending. Any thread, once.
  void leave();

  int my_pe() const { return ctx_.my_pe; }
  int n_pes() const { return ctx_.n_pes; }
  // The context device code takes by value: CPU threads on the CPU backend, kernels on the GPU
  // backend. Take a fresh copy after allocate (the heap may grow) or team changes.
  const device::Context& device_context() const;
  bool on_gpu() const { return gpu_ != nullptr; }
  // The CUDA device of this PE, -1 on the CPU backend.
  int device() const;

  // --- Symmetric memory (collective over the world; include a barrier, as OpenSHMEM's do) ---
  // Same `bytes` on every PE: with checks on (debug, SYMMETRA_CHECK=1) a difference is a
  // symmetra::Error on every PE naming two PEs' requests; with checks off the allocation's one
  // round is its barrier, and it compares nothing (memory.cpp). Never returns
  // null for bytes > 0; exhaustion throws naming SYMMETRA_SYMMETRIC_SIZE. allocate, calloc and
  // reallocate align to 16 bytes, as malloc does; on the CPU backend a block of 256 bytes or
  // more starts 16 bytes past a cache line, where large malloc'd buffers start (memory.cpp says
  // why). align() gives exactly the alignment asked for.
  void* allocate(std::size_t bytes);
  void* align(std::size_t alignment, std::size_t bytes);
  void* calloc(std::size_t count, std::size_t size);  // zero-filled
  // Moves the block to `bytes`, keeping min(old, new) bytes of content. null p: allocate.
  void* reallocate(void* p, std::size_t bytes);
  void free(void* p);
  template <class T>
  T* allocate_array(std::size_t n);
  // A user's GPU memory as symmetric memory (NVSHMEM's buffer_register_symmetric), GPU backend.
  // Collective; same `bytes` on every PE, a multiple of the CUDA allocation granularity.
  // `buffer` is the start of memory made with cuMemCreate and mapped with cuMemMap (its handle
  // types including CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR where PEs are processes). Returns
  // the symmetric address where each PE's buffer is now mapped too: the same memory through two
  // addresses. Errors throw on every PE alike. unregister_symmetric (collective) unmaps it; its
  // addresses are not handed out again.
  void* register_symmetric(void* buffer, std::size_t bytes);
  void unregister_symmetric(void* symmetric, std::size_t bytes);

  // --- Heap queries ---
  std::size_t heap_size() const;  // bytes mapped per PE (grows)
  std::size_t heap_used() const;  // bytes in live allocations
  bool is_symmetric(const void* p) const;
  // Whether this PE can reach `pe` with the data path: by load and store, or through the
  // transport (OpenSHMEM's shmem_pe_accessible).
  bool pe_accessible(int pe) const;
  // Whether `pe` is reachable by load and store (ptr() gives its memory), not only through the
  // transport.
  bool pe_local(int pe) const { return pe >= 0 && pe < n_pes() && ctx_.pe_index[pe] >= 0; }
  // PE `pe`'s copy of symmetric `p` for direct loads and stores, or null if not reachable.
  template <class T>
  T* ptr(T* p, int pe) const;

  // --- Teams ---
  Team team_world() { return Team(this, device::kTeamWorld); }
  Team team_shared() { return Team(this, device::kTeamShared); }
  // Collective over `parent`: members start, start + stride, ... (size of them) of the parent.
  // PEs outside the new team get an invalid Team.
  Team split_strided(const Team& parent, int start, int stride, int size);
  // Collective over `parent`: a 2-D grid with `xrange` columns; x-teams are rows, y-teams columns.
  void split_2d(const Team& parent, int xrange, Team* xteam, Team* yteam);
  // Collective over the PEs that pass the same `id` (nonzero, not ~0; e.g. random, handed out of
  // band), without a parent team: the team of `size` PEs, each at its `index` in [0, size).
  // Their world PEs in index order must be strided (stride >= 1): an error names them otherwise.
  // nvshmemx_team_init's model (docs/nvshmem.md#teams-from-a-unique-id).
  Team team_from_id(std::uint64_t id, int size, int index);
  // Collective over the team's members.
  void destroy(Team& team);

  // --- RMA (device/rma.hpp). On the GPU backend: copies through the copy engine, complete on
  //     return. ---
  void putmem(void* dest, const void* src, std::size_t bytes, int pe);
  void getmem(void* dest, const void* src, std::size_t bytes, int pe);
  void putmem_nbi(void* dest, const void* src, std::size_t bytes, int pe);
  void getmem_nbi(void* dest, const void* src, std::size_t bytes, int pe);
  template <class T>
  void put(T* dest, const T* src, std::size_t n, int pe);
  template <class T>
  void get(T* dest, const T* src, std::size_t n, int pe);
  template <class T>
  void put_nbi(T* dest, const T* src, std::size_t n, int pe);
  template <class T>
  void get_nbi(T* dest, const T* src, std::size_t n, int pe);
  template <class T>
  void p(T* dest, T value, int pe);
  template <class T>
  T g(const T* src, int pe);
  template <class T>
  void iput(T* dest, const T* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
            std::size_t n, int pe);
  template <class T>
  void iget(T* dest, const T* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
            std::size_t n, int pe);

  // --- Atomics (device/amo.hpp). On the GPU backend each is a one-thread kernel. ---
  template <class T>
  T atomic_fetch(const T* dest, int pe);
  template <class T>
  void atomic_set(T* dest, T v, int pe);
  template <class T>
  T atomic_swap(T* dest, T v, int pe);
  template <class T>
  T atomic_compare_swap(T* dest, T cond, T v, int pe);
  template <class T>
  T atomic_fetch_inc(T* dest, int pe);
  template <class T>
  void atomic_inc(T* dest, int pe);
  template <class T>
  T atomic_fetch_add(T* dest, T v, int pe);
  template <class T>
  void atomic_add(T* dest, T v, int pe);
  template <class T>
  T atomic_fetch_and(T* dest, T v, int pe);
  template <class T>
  void atomic_and(T* dest, T v, int pe);
  template <class T>
  T atomic_fetch_or(T* dest, T v, int pe);
  template <class T>
  void atomic_or(T* dest, T v, int pe);
  template <class T>
  T atomic_fetch_xor(T* dest, T v, int pe);
  template <class T>
  void atomic_xor(T* dest, T v, int pe);

  // --- Signals (device/signal.hpp) ---
  void putmem_signal(void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                     std::uint64_t value, SignalOp op, int pe);
  void putmem_signal_nbi(void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                         std::uint64_t value, SignalOp op, int pe);
  template <class T>
  void put_signal(T* dest, const T* src, std::size_t n, std::uint64_t* sig, std::uint64_t value,
                  SignalOp op, int pe);
  template <class T>
  void put_signal_nbi(T* dest, const T* src, std::size_t n, std::uint64_t* sig, std::uint64_t value,
                      SignalOp op, int pe);
  std::uint64_t signal_fetch(const std::uint64_t* sig);
  std::uint64_t signal_wait_until(const std::uint64_t* sig, Cmp cmp, std::uint64_t value);

  // --- Point-to-point synchronization (device/wait.hpp). The GPU backend polls device memory
  //     from the host with copies, bounded like every wait. ---
  template <class T>
  void wait_until(const T* ivar, Cmp cmp, T value);
  template <class T>
  void wait_until_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value);
  template <class T>
  std::size_t wait_until_any(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value);
  template <class T>
  std::size_t wait_until_some(const T* ivars, std::size_t n, std::size_t* indices,
                              const int* status, Cmp cmp, T value);
  template <class T>
  void wait_until_all_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                             const T* values);
  template <class T>
  std::size_t wait_until_any_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                    const T* values);
  template <class T>
  std::size_t wait_until_some_vector(const T* ivars, std::size_t n, std::size_t* indices,
                                     const int* status, Cmp cmp, const T* values);
  template <class T>
  bool test(const T* ivar, Cmp cmp, T value);
  template <class T>
  bool test_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value);
  template <class T>
  std::size_t test_any(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value);
  template <class T>
  std::size_t test_some(const T* ivars, std::size_t n, std::size_t* indices, const int* status,
                        Cmp cmp, T value);
  template <class T>
  bool test_all_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp, const T* values);
  template <class T>
  std::size_t test_any_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                              const T* values);
  template <class T>
  std::size_t test_some_vector(const T* ivars, std::size_t n, std::size_t* indices,
                               const int* status, Cmp cmp, const T* values);

  // --- Stream-ordered forms (GPU backend; docs/design.md §1.6). Enqueued on `stream`, no SMs
  //     where the hardware allows it, capturable in CUDA graphs. Ordering: as the host forms, in
  //     stream order; complete when the stream reaches them. ---
  // Copies by the copy engine.
  void putmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe, Stream stream);
  void getmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe, Stream stream);
  // kSet: a stream memory write (cuStreamWriteValue64); kAdd: a one-thread kernel.
  void signal_op_on_stream(std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe,
                           Stream stream);
  // Data then signal, in stream order.
  void putmem_signal_on_stream(void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                               std::uint64_t value, SignalOp op, int pe, Stream stream);
  // Holds the stream until `*sig <cmp> value` on this PE: a one-thread polling kernel, bounded
  // by SYMMETRA_TIMEOUT_S like every wait (SYMMETRA_STREAM_WAIT=value: cuStreamWaitValue64 for
  // kEq, kGe, kGt, which uses no SM and has no bound).
  void signal_wait_until_on_stream(std::uint64_t* sig, Cmp cmp, std::uint64_t value, Stream stream);
  // Holds the stream until every included element of ivars[0, n) (an integer type of 16, 32 or
  // 64 bits, in this PE's heap) satisfies `cmp`: against `value` (the element's bits, in the low
  // bytes), or against values[i] where `values` is not null. status (null: every element; else
  // 0 includes one) and values are read by the GPU: device or mapped memory. A one-thread
  // kernel, bounded by SYMMETRA_TIMEOUT_S (NVSHMEM's typed and array waits on a stream).
  void wait_until_all_on_stream(DataType type, const void* ivars, std::size_t n, const int* status,
                                Cmp cmp, std::uint64_t value, const void* values, Stream stream);
  // Completes this stream's earlier stream-ordered operations (stream order already does).
  void quiet_on_stream(Stream stream);
  // quiet_on_stream, then a barrier over all PEs run by a one-thread kernel on `stream`.
  void barrier_all_on_stream(Stream stream);
  // Launches a CUDA graph (a cudaGraphExec_t) that holds stream-form collectives on `stream`.
  // Collective over all PEs: every PE launches its graph of the same calls. Where PEs share a
  // GPU as threads it launches the co-located PEs' graphs together, as every collective's
  // kernels are (docs/gpu_backend.md, "PEs that share a GPU"); such a graph must end with its
  // last collective: work after it inside the graph can hold a hardware queue that a peer's
  // kernel sits behind. Elsewhere it is cudaGraphLaunch.
  void launch_graph(void* graph_exec, Stream stream);

  // --- Ordering and team synchronization (device/sync.hpp) ---
  // Host synchronization runs on the host-memory control words, on either backend.
  void fence();
  void quiet();
  // Local completion of this PE's earlier nbi operations (device/sync.hpp flush): their buffers
  // may be reused or read, with no promise of visibility at the targets. On the GPU backend, a
  // quiet.
  void flush();
  void barrier_all();
  void sync_all();
  void barrier(const Team& team);
  void sync(const Team& team);

  // --- Team collectives (coll/*.hpp). Element types: those data_type_of takes (integers up to
  //     64 bits, half, bfloat16, float, double); the library has the host forms for each
  //     (other integer types such as wchar_t: include symmetra/collectives.hpp, which defines
  //     them in the including code). The stream forms are in impl/runtime_coll.hpp.
  //     Collective over `team`;
  //     same arguments on every member (collect: nelems may differ). Buffers are symmetric,
  //     except where a form says otherwise. On the GPU backend each call runs the device form in
  //     a kernel of one block per PE: the plain forms on the PE's internal stream, returning when
  //     it is done; the _on_stream forms enqueue on `stream` and return at once (capturable).
  //     Ordering: as the device forms; dest complete on return (plain) or when the stream gets
  //     there (_on_stream). ---
  // write_root false leaves the root's dest alone (OpenSHMEM 1.4's active-set broadcast); CPU
  // backend only.
  template <class T>
  void broadcast(const Team& team, T* dest, const T* source, std::size_t nelems, int root,
                 bool write_root = true);
  // All-gather: push (each member puts its block to every member), pull (fcollect_read: each
  // member reads every block), ring (fcollect_ring: n-1 steps to the next member).
  template <class T>
  void fcollect(const Team& team, T* dest, const T* source, std::size_t nelems);
  template <class T>
  void fcollect_read(const Team& team, T* dest, const T* source, std::size_t nelems);
  template <class T>
  void fcollect_ring(const Team& team, T* dest, const T* source, std::size_t nelems);
  template <class T>
  void collect(const Team& team, T* dest, const T* source, std::size_t nelems);
  template <class T>
  void alltoall(const Team& team, T* dest, const T* source, std::size_t nelems);
  template <class T>
  void alltoalls(const Team& team, T* dest, const T* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
                 std::size_t nelems);
  // dest may be source (in place): the host form reduces into a temporary first.
  template <class T>
  void reduce(const Team& team, T* dest, const T* source, std::size_t nreduce, coll::ReduceOp op);
  template <class T>
  void reduce_scatter(const Team& team, T* dest, const T* source, std::size_t nreduce,
                      coll::ReduceOp op);
  // All-reduce through the selector (src/coll/selector.hpp: SYMMETRA_ALGO, the tuned table,
  // the defaults), or `algo` when given. dest may be source, and either may be private memory:
  // the selector then keeps to algorithms that allow it.
  template <class T>
  void allreduce(const Team& team, T* dest, const T* source, std::size_t nelems, coll::ReduceOp op,
                 coll::AllreduceAlgo algo = coll::AllreduceAlgo::kAuto);
  // Sends nelems of source to team rank `to` and receives into dest from `from` (-1: none), in
  // chunks of chunk_elems; on_chunk(c, ptr, count) runs as each received chunk lands (CPU
  // backend; on the GPU backend use the device form to consume chunks inside a kernel: there
  // the host and stream forms have no chunk consumer and send one chunk per channel). With an
  // on_chunk, include symmetra/collectives.hpp: the callback is the caller's code.
  template <class T, class OnChunk = coll::NoChunkCallback>
  void permute(const Team& team, T* dest, const T* source, std::size_t nelems, int to, int from,
               std::size_t chunk_elems, OnChunk on_chunk = {});

  // Any collective as a value (coll/call.hpp, built with coll::make_call): what every form above
  // does, for bindings and code that holds calls as data. Same contract as the typed forms, with
  // stream null for the host form and a stream for the _on_stream form. The all-reduce's
  // algorithm kAuto goes through the selector; on the GPU backend a permute sends one chunk per
  // channel (no consumer sees chunks there).
  void collective(const coll::Call& call, Stream stream = nullptr);

  // Stream forms (GPU backend).
  template <class T>
  void broadcast_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems, int root,
                           Stream s);
  template <class T>
  void fcollect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems, Stream s);
  template <class T>
  void fcollect_read_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                               Stream s);
  template <class T>
  void fcollect_ring_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                               Stream s);
  template <class T>
  void collect_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems, Stream s);
  template <class T>
  void alltoall_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems, Stream s);
  template <class T>
  void alltoalls_on_stream(const Team& team, T* dest, const T* source, std::ptrdiff_t dst,
                           std::ptrdiff_t sst, std::size_t nelems, Stream s);
  // Team synchronization in stream order: barrier completes this stream's earlier operations
  // (stream order does) and every member's puts, then syncs; sync only syncs.
  void barrier_on_stream(const Team& team, Stream s);
  void sync_on_stream(const Team& team, Stream s);
  template <class T>
  void reduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nreduce,
                        coll::ReduceOp op, Stream s);
  template <class T>
  void reduce_scatter_on_stream(const Team& team, T* dest, const T* source, std::size_t nreduce,
                                coll::ReduceOp op, Stream s);
  template <class T>
  void allreduce_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems,
                           coll::ReduceOp op, Stream s,
                           coll::AllreduceAlgo algo = coll::AllreduceAlgo::kAuto);
  template <class T>
  void permute_on_stream(const Team& team, T* dest, const T* source, std::size_t nelems, int to,
                         int from, std::size_t chunk_elems, Stream s);

 private:
  friend struct detail::RuntimeAccess;
  friend class detail::Join;
  // How a form was called, for the trace.
  enum class Form : std::uint8_t { kHost, kNbi, kStream };
  // Observability (docs/observability.md). Where SYMMETRA_TRACE or SYMMETRA_NVTX is on, a form
  // records the operation when it ends: one trace line, one NVTX range; only the outermost form
  // of a thread records, so a form built on another (fence on quiet, reduce on allreduce) is
  // one record. The out-of-line forms hold an ObserveScope. The inline ones start with
  // SYMMETRA_OBSERVE, which runs the form again through observed<&Runtime::form>, out of line and
  // cold, inside a scope: off, the fast path pays one test of a context flag bit that it reads
  // anyway, and keeps nothing alive across the operation (a scope's destructor would hold
  // registers and stack slots on the fast path: docs/observability.md). The small data-path
  // forms are always_inline for the same reason: the cold branch counts toward GCC's inlining
  // limit.
  class ObserveScope {
   public:
    ObserveScope(Runtime& rt, const char* op, int peer, std::size_t bytes, Form form = Form::kHost,
                 int team = -1)
        : rt_(rt.ctx_.flags & device::Context::kObserve ? &rt : nullptr),
          op_(op),
          peer_(peer),
          team_(team),
          bytes_(bytes),
          form_(form),
          start_ns_(rt_ != nullptr ? rt.observe_begin(op) : 0) {}
    ~ObserveScope() {
      if (rt_ != nullptr) rt_->observe_end(op_, peer_, team_, bytes_, form_, start_ns_);
    }
    ObserveScope(const ObserveScope&) = delete;
    ObserveScope& operator=(const ObserveScope&) = delete;

   private:
    Runtime* rt_;
    const char* op_;
    int peer_;
    int team_;
    std::size_t bytes_;
    Form form_;
    std::uint64_t start_ns_;
  };
  // What an observed form's record says: SYMMETRA_OBSERVE's call, by reference.
  struct ObserveCall {
    const char* op;
    int peer;
    int team;
    std::size_t bytes;
    Form form;
  };
  template <auto F, class... A>
  [[gnu::noinline, gnu::cold]] auto observed(const ObserveCall& c, std::tuple<A...> args) {
    const ObserveScope scope(*this, c.op, c.peer, c.bytes, c.form, c.team);
    return std::apply([this](auto&&... a) { return (this->*F)(a...); }, args);
  }
  // Whether this thread is inside no observed form.
  bool observe_outer() const;
  // src/runtime/observe.cpp. begin returns the start time, 0 inside another observed form.
  std::uint64_t observe_begin(const char* op);
  void observe_end(const char* op, int peer, int team, std::size_t bytes, Form form,
                   std::uint64_t start_ns);
  // Opens the trace and sets kObserve, as the configuration asks (runtime construction), and
  // writes out what is buffered (finalize, abandon).
  void start_observing();
  void flush_observed();
  const char* observed_path(int peer, int team) const;

  // Every collective call's entry (src/runtime/collective.cpp): checks the call (team, buffers,
  // the members' agreement for host forms) and resolves it through the planner
  // (src/runtime/planner.hpp). True: the caller runs `c` as it now is; false: plan ran it (a
  // staging block, a temporary). stream null: a host form.
  bool plan(coll::Call& c, Stream stream);
  // A resolved call on the CPU backend, on this thread.
  void host_collective(const coll::Call& call);
  // The host all-reduce of private buffers over the world on the CPU backend, through a
  // symmetric staging block; false (nothing done) where the heap has no room for the block
  // (private_allreduce.cpp).
  bool staged_allreduce(const coll::Call& call);
  // A collective call, resolved and checked, to the backend (src/runtime/backend_ops.cpp):
  // channels, the NCCL route, the kernels. stream null: the internal stream, waited for.
  void gpu_collective(const coll::Call& call, Stream stream, const char* op);
  // Host-initiated operations on a device heap, through the backend (src/runtime/backend_ops.cpp;
  // src/backend/cuda/host_ops.cu does them; they end the job with a message on a CUDA error,
  // like every data-path call).
  void gpu_put(void* dest, const void* src, std::size_t bytes, int pe, const char* op);
  void gpu_get(void* dest, const void* src, std::size_t bytes, int pe, const char* op);
  void gpu_strided(void* dest, const void* src, std::size_t elem, std::ptrdiff_t dst_stride,
                   std::ptrdiff_t src_stride, std::size_t n, int pe, bool put);
  void gpu_quiet();
  // Runs one atomic where the memory is (a one-thread kernel on the GPU); value, cond and the
  // old value travel as the word's bits.
  std::uint64_t gpu_amo(AmoOp op, DataType type, void* dest, std::uint64_t value,
                        std::uint64_t cond, int pe);
  // An atomic from the host: one check that also translates (checked_peer), one branch on
  // where the PE is, then the device form's local body on the translated word. Like putmem,
  // the remote branch stays out of the way (device/impl/remote.hpp keeps it out of line): with
  // it inlined here, shmem_long_atomic_fetch_add took 1.5x as long (docs/transports.md).
  template <AmoOp A, bool Fetch, class T>
  T host_amo(const char* op, T* dest, T v, T cond, int pe);
  // The host forms' general ways, when kHostDirect is clear (observed, GPU, remote PEs): out of
  // line (getmem_general in src/runtime/backend_ops.cpp), so that the direct path's function
  // stays as small as before the seam.
  template <AmoOp A, bool Fetch, class T>
  T host_amo_general(const char* op, T* dest, T v, T cond, int pe);
  void getmem_general(void* dest, const void* src, std::size_t bytes, int pe);
  template <class T>
  T amo(AmoOp op, T* dest, T value, T cond, int pe);
  // Polls n words of this PE's GPU memory from the host until `done(copy)` holds.
  void gpu_poll_step(const char* op, const void* ivars, std::size_t bytes, void* copy,
                     std::uint64_t start_ns, std::uint64_t step);
  template <class T, class Done>
  void poll_gpu(const char* op, const T* ivars, std::size_t n, Done&& done);
  // This PE's words for a test: themselves on the CPU, a host copy on the GPU backend.
  template <class T>
  struct Words {
    std::vector<T> copy;
    const T* words;
    const T* data() const { return words; }
  };
  template <class T>
  Words<T> local_words(const T* ivars, std::size_t n);
  static std::uint64_t now_ns();

  // The host API's own checks, on in every build (docs/design_notes.md, 13, "Checks"): the PE is
  // in range and [sym, sym + bytes) lies in the heap or the static data; a failure ends the job
  // with "[pe N] op: what was wrong", as the data path's checks do. (The device forms check only
  // under SYMMETRA_CHECK=1 and in debug builds.)
  //
  // checked_peer makes the check and the translation to `pe`'s copy in one step, and the host
  // forms enter the device bodies after it (device::detail::put_to ...), without the device
  // forms' checks_on branch. It keeps the shape of the translation it replaces (peer(): one
  // static-data compare, then heap arithmetic): a heap access takes the same two branches as
  // before, a static-data access one, and the heap test combines its compares without
  // short-circuit (docs/design_notes.md 13 has the measurements that chose this shape).
  template <class T>
  T* checked_peer(const char* op, T* sym, std::size_t bytes, int pe) const;
  void check(const char* op, const void* sym, std::size_t bytes, int pe) const;
  template <class T>
  void check_strided(const char* op, const T* sym, std::ptrdiff_t stride, std::size_t n,
                     int pe) const;
  // The rest of checked_peer, out of line (runtime.cpp): an empty range anywhere is fine (and
  // moves nothing); anything else ends the job with the message of the check that failed.
  void* checked_peer_rest(const char* op, void* sym, std::size_t bytes, int pe) const;
  [[noreturn]] void fail(const std::string& what) const;
  int checked(const Team& team, const char* op) const;
  // With checks on (debug builds, SYMMETRA_CHECK=1): the members of a host-form collective
  // compare their arguments (count, kind, type, operator, root) before any data moves, and a
  // difference is an Error on every member naming two members' values (src/runtime/agree.cpp).
  void agree(const coll::Call& call, const char* op);
  void agree_if_checking(const coll::Call& call, const char* op) {
    if (ctx_.flags & device::Context::kCheckArgs) [[unlikely]]
      agree(call, op);
  }
  // Every collective's buffers lie in the symmetric heap or the static data, in every build
  // (an error naming the call, the buffer and its address; the all-reduce takes any memory):
  // a private dest ended in a segfault with checks off (src/runtime/collective.cpp).
  // Hidden: the library's own (Runtime::plan), so the call is direct and can be inlined.
  [[gnu::visibility("hidden")]] void check_coll_buffers(const coll::Call& call,
                                                        const char* op) const;
  // How an all-reduce's dest and source over `bytes` lie: apart and both symmetric (every
  // algorithm runs), the same symmetric buffer (the ring and the LL ones), or else (LL only).
  coll::Buffers allreduce_buffers(const void* dest, const void* source, std::size_t bytes) const;
  // A block `phase` bytes past a multiple of `alignment` (memory.cpp).
  void* allocate_aligned(std::size_t alignment, std::size_t bytes, const char* op,
                         std::size_t phase);
  void* allocate_malloc_like(std::size_t bytes, const char* op);
  // After the backend's heap grew from `before` bytes: the transport, the allocator and the
  // contexts learn the new size (collective, as the growth was).
  void heap_grew(std::uint64_t before, const char* op);
  // A new team's handle through the team table (src/runtime/team_table.hpp), -1 off it.
  int create_team(int parent, int start, int stride, int size, const char* op);
  void refresh_context();
  // The data heap's context with host-readable tables (equals ctx_ on the CPU backend).
  const device::Context& data_view() const;
  std::byte* data_base() const;
  std::size_t data_size() const;

  // Everything else a Runtime owns (src/runtime/state.hpp): behind a pointer, so that the
  // layout of this class, which bindings and shims compile against, stays these three members.
  struct State;
  std::unique_ptr<State> s_;
  // Where the data heap lives where that is device memory, else null: the CPU data path is
  // inline and branches on gpu_ alone (it points into s_->backend).
  detail::Backend* gpu_ = nullptr;
  // What the inline data path reads: this PE's heap, the peers' mapping, the teams.
  device::Context ctx_{};
};

}  // namespace symmetra

// The bodies of the inline forms; read the declarations above for the contract.
#define SYMMETRA_RUNTIME_CONTRACT 1
#include "symmetra/impl/runtime_coll.hpp"
#include "symmetra/impl/runtime_inline.hpp"

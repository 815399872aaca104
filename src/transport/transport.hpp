// A transport: how this PE reaches the PEs it cannot load and store (docs/design.md §2,
// docs/transports.md). transport/loopback reaches the PEs of forced hosts on this machine
// through the shared mapping (the test transport: the remote path, all the way to this
// interface, in CI); transport/ucx reaches them, or PEs of other machines, through UCX.
//
// A remote byte is (PE, offset): its offset in that PE's heap slot, which is the same for a
// symmetric object on every PE (the heap header at 0, the static-data window near the top).
// A transport reaches only what its target registered.
//
// Errors: make_transport and register_memory return Status; the data path ends the job through
// `ctl` ("[pe N] op: what", the PE's host context), as the backends' does. Threads: the data
// path from any thread of the PE; make_transport and register_memory are collective over the
// job and run in the same order on every PE.
// Ordering: put completes locally on return (src may be reused) and at the target by quiet;
// get and atomic complete on return, get_nbi by quiet; fence orders this PE's earlier puts and
// atomics to each PE before its later ones to that PE; put_signal delivers the data before the
// signal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "heap/heap_access.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/error.hpp"
#include "symmetra/types.hpp"

namespace symmetra::detail {

class SymmetricHeap;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // Whether the network library could move device memory itself (UCX built with CUDA): for the
  // join's log line (docs/proxy.md, "GPU memory over UCX").
  virtual bool device_memory_capable() const { return false; }
  // Whether it does: register_memory maps a GPU heap's ranges with the network library, and
  // put, get, get_nbi and put_signal take a local buffer in a device range this PE registered
  // as it is, and reach a peer's device ranges without its CPU copying them. Local buffers
  // elsewhere must be host memory. False: the backend stages device memory through pinned host
  // memory, and the target's CPU serves its device heap (HeapAccess).
  virtual bool moves_device_memory() const { return false; }

  // --- Setup (collective) ---
  // Registers [offset, offset + bytes) of this PE's heap slot, which this process maps at
  // `local`, and exchanges its key with every PE: after it, every PE may reach those bytes.
  // `access`: null for host memory; else memory the host cannot load and store (a GPU heap,
  // registered at device::kDeviceHeapOffset and up), which the transport reaches only through
  // those calls (UCX: served mode, which TransportParams::served must have asked for); a
  // transport that cannot says so.
  virtual Status register_memory(std::byte* local, std::uint64_t offset, std::uint64_t bytes,
                                 const HeapAccess* access) = 0;

  // --- Data path ---
  // Each naturally aligned 8-byte word of the destination arrives whole (LL packets rely on
  // it), and a put of 1, 2, 4 or 8 bytes to an address aligned to its size arrives whole.
  virtual void put(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
                   std::size_t bytes) = 0;
  virtual void get(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
                   std::size_t bytes) = 0;
  // A get that completes by the next quiet (dest must not be read before it): a transport
  // with a network in between keeps several in flight. By default, get.
  virtual void get_nbi(const device::Context& ctl, int pe, void* dest, std::uint64_t offset,
                       std::size_t bytes) {
    get(ctl, pe, dest, offset, bytes);
  }
  // `op` on PE pe's word at `offset`, of `type`; value, cond and the old value carry the word's
  // bits in their low bytes.
  virtual std::uint64_t atomic(const device::Context& ctl, int pe, std::uint64_t offset, AmoOp op,
                               DataType type, std::uint64_t value, std::uint64_t cond) = 0;
  virtual void put_signal(const device::Context& ctl, int pe, std::uint64_t offset, const void* src,
                          std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                          SignalOp op) = 0;
  // A signal of the library's own synchronization (a team sync's round, a channel's sync, a
  // collective's credit): put_signal's signal with no data, ordered after this PE's earlier puts
  // to `pe` as put_signal's is. Its target waits for it within the same operation, so it is
  // delivered before that operation ends everywhere, and quiet need not complete it (UCX: no
  // flush request for it). By default, a put_signal of no data.
  virtual void sync_signal(const device::Context& ctl, int pe, std::uint64_t sig_offset,
                           std::uint64_t value, SignalOp op) {
    put_signal(ctl, pe, sig_offset, nullptr, 0, sig_offset, value, op);
  }
  virtual void fence(const device::Context& ctl) = 0;
  virtual void quiet(const device::Context& ctl) = 0;
  // Serves this PE's side of operations that need the target's help (UCX over TCP runs RMA and
  // atomics as active messages); a transport whose initiator delivers alone does nothing.
  virtual void progress() = 0;
  // Whether every delivery into this PE passes through this transport's code on this PE
  // (loopback: the initiator's; UCX over TCP: the progress thread's), which then rings a waiter
  // that sleeps on the words. False where the network may write unseen (RDMA, shared memory).
  virtual bool deliveries_ring() const = 0;
};

enum class DeviceMemory { kStage, kAuto, kDirect };

// What a transport connects with: the job's bootstrap, this PE's host heap (the loopback
// delivers through its mapping), and which PEs it must reach.
struct TransportParams {
  Bootstrap* bootstrap = nullptr;
  const SymmetricHeap* heap = nullptr;
  std::vector<bool> remote;  // world PE -> reached through the transport
  // The remote PEs sit on forced hosts of this machine (SYMMETRA_HOSTS, SYMMETRA_HOST_ID): a
  // network transport keeps to the network between them (UCX: TCP unless UCX_TLS is set).
  bool forced_hosts = false;
  // After serving a delivery, a progress thread keeps polling this long before it sleeps, so
  // that a peer's next operation finds it awake instead of paying a wake-up (10-20 us on a VM,
  // twice a round trip). 0: sleep at once (PEs outnumber CPUs: polling would take a PE's).
  std::uint64_t poll_ns = 0;
  // Gets and atomics as messages the target serves (Config::ucx_served, or memory registered
  // with a HeapAccess to come), not RMA: a transport that has only that way ignores it.
  bool served = false;
  // Whether a network library that can move device memory does so for memory registered with
  // a HeapAccess (GPU heaps; Transport::moves_device_memory): never, where it judges it faster
  // (UCX: not over TCP alone), or always.
  DeviceMemory device_memory = DeviceMemory::kStage;
};

enum class TransportKind { kLoopback, kUcx };

// Whether this build has `kind` (UCX needs its headers at build time).
bool transport_built(TransportKind kind);

// Connects to every PE of params.remote. Collective over the job.
Result<std::unique_ptr<Transport>> make_transport(TransportKind kind,
                                                  const TransportParams& params);

}  // namespace symmetra::detail

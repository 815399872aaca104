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
// its context ("[pe N] op: what", the PE's host context), as the backends' does. Threads: the
// data path from any thread of the PE; make_transport and register_memory are collective over
// the job and run in the same order on every PE. Ordering: device::RemotePath's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "heap/heap_access.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/error.hpp"
#include "symmetra/types.hpp"

namespace symmetra::detail {

class SymmetricHeap;

// A transport is the remote path (device::RemotePath) that reaches the network, plus its setup.
class Transport : public device::RemotePath {
 public:
  virtual const char* name() const = 0;
  // Whether the network library could move device memory itself (UCX built with CUDA): for the
  // join's log line (docs/proxy.md, "GPU memory over UCX").
  virtual bool device_memory_capable() const { return false; }
  // Where moves_device_memory (RemotePath's) holds, register_memory maps a GPU heap's ranges
  // with the network library, and local buffers outside them must be host memory; where not,
  // the target's CPU serves its device heap (HeapAccess).

  // Collective.
  // Registers [offset, offset + bytes) of this PE's heap slot, which this process maps at
  // `local`, and exchanges its key with every PE: after it, every PE may reach those bytes.
  // `access`: null for host memory; else memory the host cannot load and store (a GPU heap,
  // registered at device::kDeviceHeapOffset and up), which the transport reaches only through
  // those calls (UCX: served mode, which TransportParams::served must have asked for); a
  // transport that cannot says so.
  virtual Status register_memory(std::byte* local, std::uint64_t offset, std::uint64_t bytes,
                                 const HeapAccess* access) = 0;
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
  // a HeapAccess (GPU heaps; RemotePath::moves_device_memory): never, where it judges it faster
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

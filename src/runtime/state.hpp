// What a Runtime owns besides its context (include/symmetra/runtime.hpp keeps only the context,
// the GPU backend pointer and a pointer to this): the parts it composes, the tables the context
// points into, and its setup state. Members are destroyed in reverse order: the backend, which
// holds the device heap that the others point into, goes last.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bootstrap/bootstrap.hpp"
#include "core/config.hpp"
#include "core/trace.hpp"
#include "heap/allocator.hpp"
#include "heap/symmetric_heap.hpp"
#include "proxy/proxy.hpp"
#include "proxy/proxy_ops.hpp"
#include "runtime/gpu_proxy.hpp"
#include "runtime/planner.hpp"
#include "runtime/team_table.hpp"
#include "symmetra/runtime.hpp"
#include "transport/transport.hpp"

namespace symmetra {

struct Runtime::State {
  // Where the data heap lives (src/backend/backend.hpp); Runtime::gpu_ points at it where that
  // is device memory.
  std::unique_ptr<detail::Backend> backend;
  std::unique_ptr<detail::Config> config;
  // What each collective call becomes (planner.hpp): made with the backend, whose facts it reads.
  std::unique_ptr<detail::CollPlanner> planner;
  std::unique_ptr<detail::Bootstrap> bootstrap;
  // The PEs that share this PE's heap mapping (its host; with the loopback transport its
  // machine), split off `bootstrap` where that is not the whole job; null where it is.
  std::unique_ptr<detail::Bootstrap> host_group;
  std::unique_ptr<detail::SymmetricHeap> heap;
  std::unique_ptr<detail::Allocator> allocator;
  std::map<std::uint64_t, std::uint64_t> user_maps;  // registered buffers: heap offset -> bytes
  // How PEs on other hosts are reached (src/transport/transport.hpp); null where every PE is
  // reachable by load and store. It is the device API's remote path (ctx_.remote), unless:
  std::unique_ptr<detail::Transport> transport;
  // SYMMETRA_PROXY=1: the proxy thread that takes the remote branch's operations into the
  // transport, its ring (src/proxy/), and the remote path that posts there (ctx_.remote);
  // stopped before the transport goes.
  std::unique_ptr<detail::HostProxyMemory> proxy_memory;
  std::unique_ptr<detail::Proxy> proxy;
  std::unique_ptr<detail::ProxyPath> proxy_path;
  // A GPU PE with PEs on other hosts: the proxy of its kernels (ctx_.proxy is its ring);
  // stopped before the transport goes.
  std::unique_ptr<detail::GpuProxy> gpu_proxy;
  std::uint64_t static_window = 0;  // symmetric static data's bytes at the top of each heap slot
  std::uint64_t heap_limit = 0;  // what a PE's data heap may grow to (SYMMETRA_MAX_SYMMETRIC_SIZE)
  // The world all-reduce's staging block for private buffers (private_allreduce.cpp): two
  // halves of `stage_half` bytes, made on first use; stage_parity: the half the next call of the
  // two-shot takes. stage_refused: the heap had no room.
  std::byte* stage = nullptr;
  std::size_t stage_half = 0;
  bool stage_parity = false;
  bool stage_refused = false;
  std::vector<std::int32_t> pe_index;   // ctx_.pe_index points here
  std::vector<int> host_of;             // world PE -> topology host index
  std::vector<int> machine_of;          // world PE -> machine (forced hosts of one share it)
  std::vector<std::string> host_names;  // topology host index -> its name
  std::vector<const char*> pe_host;     // world PE -> its host's name (RemotePath::pe_host)
  detail::TeamTable teams;              // ctx_.teams points into it
  bool finalized = false;
  // Observability (src/runtime/observe.cpp): the trace file, NVTX on, the trace's time zero.
  std::unique_ptr<detail::TraceFile> trace;
  bool nvtx = false;
  std::uint64_t trace_origin_ns = 0;
};

namespace detail {
// How the library's parts outside the class (introspection, the team accessors, the bindings'
// helpers) reach a Runtime's state: the class's friend, so that what they read stays out of
// the public API.
struct RuntimeAccess {
  static Runtime::State& state(Runtime& rt) { return *rt.s_; }
  static const Runtime::State& state(const Runtime& rt) { return *rt.s_; }
  static const device::Context& context(const Runtime& rt) { return rt.ctx_; }
  // The team's handle, or the Runtime's error naming the PE and `op` if it is not this PE's.
  static int checked(const Runtime& rt, const Team& team, const char* op) {
    return rt.checked(team, op);
  }
};
}  // namespace detail

}  // namespace symmetra

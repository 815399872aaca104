// Runtime setup: joining the job, the heap, the context (include/symmetra/runtime.hpp).
#include "symmetra/runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <string>

#include "backend/backend.hpp"
#include "bootstrap/bootstrap.hpp"
#include "coll/nccl.hpp"
#include "coll/selector.hpp"
#include "core/clock.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "heap/allocator.hpp"
#include "heap/static_data.hpp"
#include "heap/symmetric_heap.hpp"
#include "runtime/join.hpp"
#include "runtime/state.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "transport/transport.hpp"

namespace symmetra {
std::unique_ptr<Runtime> Runtime::init(const RuntimeOptions& options) {
  return std::make_unique<Runtime>(detail::bootstrap_from_env().value_or_throw(), options);
}

UniqueId get_unique_id() {
  const std::string text = detail::new_unique_id().value_or_throw();
  UniqueId id;
  if (text.size() >= sizeof(id.bytes))
    throw Error("get_unique_id: the meeting point '" + text.substr(0, 80) + "' is longer than " +
                std::to_string(sizeof(id.bytes) - 1) + " bytes");
  std::memcpy(id.bytes, text.data(), text.size());
  return id;
}

std::unique_ptr<Runtime> Runtime::init(const UniqueId& id, int rank, int size,
                                       const RuntimeOptions& options) {
  const std::string text(id.bytes, strnlen(id.bytes, sizeof(id.bytes)));
  return std::make_unique<Runtime>(
      detail::bootstrap_from_unique_id(text, rank, size).value_or_throw(), options);
}

Runtime::Runtime(std::unique_ptr<detail::Bootstrap> bootstrap, const RuntimeOptions& options)
    : s_(std::make_unique<State>()) {
  detail::join(*this, std::move(bootstrap), options);
}

Runtime::~Runtime() {
  // A PE unwinding from an error must not wait for the others: skip the collective part.
  if (std::uncaught_exceptions() == 0) {
    try {
      finalize();
    } catch (const std::exception&) {
    }
  }
  if (s_->bootstrap) s_->bootstrap->unwatch();  // its callback writes the heap, which goes first
}

void Runtime::finalize() {
  const ObserveScope observe(*this, "finalize", -1, 0);
  if (s_->finalized) return;
  s_->finalized = true;
  // Not barrier_all: a PE that finalizes while the others wait in a barrier must not complete
  // it for them (it would let them run on without it). quiet() completes this PE's operations;
  // the bootstrap barrier, which no user collective matches, keeps every heap mapped until every
  // PE is done with the others'.
  quiet();
  flush_observed();
  s_->bootstrap->unwatch();
  s_->bootstrap->barrier().or_throw();
  s_->planner->release_all();  // before the GPU state goes
  gpu_ = nullptr;
  ctx_.remote = nullptr;
  s_->gpu_proxy.reset();  // stops its ring: its proxy calls the transport
  s_->proxy_path.reset();
  s_->proxy.reset();      // stops its thread: it calls the transport
  s_->transport.reset();  // it delivers into the heaps, the backend's through its HeapAccess
  s_->backend.reset();    // before the host heap, which the CPU backend's data heap is
  s_->heap.reset();
  s_->host_group.reset();
  s_->bootstrap->finalize();
}

void Runtime::mark_failed(Stop why) {
  using device::detail::AbortWhy;
  const AbortWhy w = why == Stop::kLeft   ? AbortWhy::kLeft
                     : why == Stop::kExit ? AbortWhy::kExit
                                          : AbortWhy::kFailed;
  // ctx_: the host-memory control heap, on either backend.
  device::detail::host_mark_abort(ctx_, my_pe(), static_cast<std::uint32_t>(w));
  flush_observed();  // the process may end next
}

void Runtime::leave() {
  if (s_->finalized) return;
  s_->finalized = true;
  s_->bootstrap->leave();  // first: the rendezvous learns who left before anyone stops for it
  mark_failed(Stop::kLeft);
}

void Runtime::abandon() {
  if (s_->finalized) return;
  s_->finalized = true;
  s_->bootstrap->unwatch();
  mark_failed();
  s_->planner->release_all();
  gpu_ = nullptr;
  s_->gpu_proxy.reset();  // before the backend, which owns its ring's memory
  s_->backend.reset();
  ctx_.remote = nullptr;
  s_->proxy_path.reset();
  s_->proxy.reset();  // stops its thread: it calls the transport
  s_->transport.reset();
  s_->heap.reset();
  s_->host_group.reset();
  s_->bootstrap->finalize();
}

void Runtime::refresh_context() {
  // Other threads of the PE may be reading ctx_ on the data path (SHMEM_THREAD_MULTIPLE): only
  // heap_bytes changes after init, and it is written atomically (checked_peer and the
  // device checks read it so, through Context::heap_extent).
  if (ctx_.heap_base != s_->heap->base()) ctx_.heap_base = s_->heap->base();
  if (ctx_.pe_index != s_->pe_index.data()) ctx_.pe_index = s_->pe_index.data();
  if (ctx_.teams != s_->teams.data()) ctx_.teams = s_->teams.data();
  __atomic_store_n(&ctx_.heap_bytes, std::uint64_t{s_->heap->size()}, __ATOMIC_RELAXED);
  s_->backend->refresh(ctx_).or_throw();
}

const device::Context& Runtime::device_context() const {
  return s_->backend->device_context();
}

const device::Context& Runtime::data_view() const {
  return s_->backend->host_view();
}
std::byte* Runtime::data_base() const {
  return data_view().heap_base;
}
std::size_t Runtime::data_size() const {
  return s_->backend->heap_size();
}
int Runtime::device() const {
  return s_->backend->device();
}

std::uint64_t Runtime::now_ns() {
  return detail::steady_ns();
}

void* Runtime::checked_peer_rest(const char* op, void* sym, std::size_t bytes, int pe) const {
  if (bytes == 0 && static_cast<unsigned>(pe) < static_cast<unsigned>(ctx_.n_pes))
    return ctx_.peer(sym, pe);
  device::detail::check_pe(ctx_, op, pe);
  device::detail::check_symmetric(ctx_, op, sym, bytes);
  device::detail::host_fatal(
      ctx_, op, "internal error: an access failed its check but neither check says why");
}

void Runtime::fail(const std::string& what) const {
  throw_on_pe(my_pe(), what);
}

std::size_t Runtime::heap_size() const {
  return data_size();
}
std::size_t Runtime::heap_used() const {
  return s_->allocator->used_bytes();
}

bool Runtime::is_symmetric(const void* p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto lo = reinterpret_cast<std::uintptr_t>(data_base());
  return (a >= lo && a < lo + data_size()) || ctx_.in_static(p);
}

}  // namespace symmetra

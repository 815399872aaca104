// The host and stream forms that go to the backend (src/backend/backend.hpp): where the data
// heap is device memory, the host-initiated data path; on every backend, the stream forms and
// the stream collectives. The Runtime checks and resolves; the backend moves the bytes.
#include <unistd.h>

#include <string>

#include "backend/backend.hpp"
#include "core/config.hpp"
#include "runtime/planner.hpp"
#include "runtime/state.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

void Runtime::gpu_put(void* dest, const void* src, std::size_t bytes, int pe, const char* op) {
  s_->backend->put(ctx_, op, dest, src, bytes, pe);
}

// getmem when kHostDirect is clear: observed, on the GPU, or to a PE of another host.
void Runtime::getmem_general(void* dest, const void* src, std::size_t bytes, int pe) {
  SYMMETRA_OBSERVE(&Runtime::getmem, "get", pe, bytes, Form::kHost, -1, dest, src, bytes, pe);
  if (gpu_) return gpu_get(dest, src, bytes, pe, "get");
  const void* r = checked_peer("get", src, bytes, pe);
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_get(device::ThreadGroup{}, ctx_, "get", dest, src, bytes, pe);
  device::detail::get_from(device::ThreadGroup{}, dest, r, bytes);
}

void Runtime::gpu_get(void* dest, const void* src, std::size_t bytes, int pe, const char* op) {
  s_->backend->get(ctx_, op, dest, src, bytes, pe);
}

void Runtime::gpu_strided(void* dest, const void* src, std::size_t elem, std::ptrdiff_t dst_stride,
                          std::ptrdiff_t src_stride, std::size_t n, int pe, bool put) {
  s_->backend->strided(ctx_, put, dest, src, elem, dst_stride, src_stride, n, pe);
}

void Runtime::gpu_quiet() {
  s_->backend->quiet(ctx_);
}

std::uint64_t Runtime::gpu_amo(AmoOp op, DataType type, void* dest, std::uint64_t value,
                               std::uint64_t cond, int pe) {
  return s_->backend->amo(ctx_, op, type, dest, value, cond, pe);
}

void Runtime::gpu_poll_step(const char* op, const void* ivars, std::size_t bytes, void* copy,
                            std::uint64_t start_ns, std::uint64_t step) {
  if (step > 0) {
    if (now_ns() - start_ns > ctx_.timeout_ns)
      device::detail::host_fatalf(ctx_, op,
                                  "timed out after %llu s waiting on GPU memory at %p "
                                  "(SYMMETRA_TIMEOUT_S sets the bound)",
                                  static_cast<unsigned long long>(ctx_.timeout_ns / 1000000000ull),
                                  ivars);
    if (step > 64) usleep(step > 1024 ? 100 : 10);
  }
  s_->backend->read_local(ctx_, op, copy, ivars, bytes);
}

void Runtime::putmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe,
                               Stream stream) {
  const ObserveScope observe(*this, "put", pe, bytes, Form::kStream);
  s_->backend->put_on_stream(ctx_, "putmem_on_stream", dest, src, bytes, pe, stream);
}

void Runtime::getmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe,
                               Stream stream) {
  const ObserveScope observe(*this, "get", pe, bytes, Form::kStream);
  s_->backend->get_on_stream(ctx_, "getmem_on_stream", dest, src, bytes, pe, stream);
}

void Runtime::signal_op_on_stream(std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe,
                                  Stream stream) {
  const ObserveScope observe(*this, "signal_op", pe, sizeof(*sig), Form::kStream);
  s_->backend->signal_on_stream(ctx_, sig, value, op, pe, stream);
}

void Runtime::putmem_signal_on_stream(void* dest, const void* src, std::size_t bytes,
                                      std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe,
                                      Stream stream) {
  const ObserveScope observe(*this, "put_signal", pe, bytes, Form::kStream);
  s_->backend->put_on_stream(ctx_, "putmem_signal_on_stream", dest, src, bytes, pe, stream);
  s_->backend->signal_on_stream(ctx_, sig, value, op, pe, stream);
}

void Runtime::signal_wait_until_on_stream(std::uint64_t* sig, Cmp cmp, std::uint64_t value,
                                          Stream stream) {
  const ObserveScope observe(*this, "signal_wait_until", my_pe(), sizeof(*sig), Form::kStream);
  // A stream memory wait has no bound: the bounded form polls in a kernel instead
  // (SYMMETRA_STREAM_WAIT, docs/gpu_backend.md).
  const bool bounded = s_->config->stream_wait == detail::Config::StreamWait::kKernel;
  s_->backend->signal_wait_on_stream(ctx_, sig, cmp, value, bounded, stream);
}

void Runtime::wait_until_all_on_stream(DataType type, const void* ivars, std::size_t n,
                                       const int* status, Cmp cmp, std::uint64_t value,
                                       const void* values, Stream stream) {
  const ObserveScope observe(*this, "wait_until_all", my_pe(),
                             n * static_cast<std::size_t>(data_type_size(type)), Form::kStream);
  s_->backend->wait_all_on_stream(ctx_, type, ivars, n, status, cmp, value, values, stream);
}

void Runtime::quiet_on_stream(Stream stream) {
  const ObserveScope observe(*this, "quiet", -1, 0, Form::kStream);
  s_->backend->quiet_on_stream(ctx_, stream);
}

void Runtime::barrier_all_on_stream(Stream stream) {
  const ObserveScope observe(*this, "barrier_all", -1, 0, Form::kStream, device::kTeamWorld);
  s_->backend->barrier_all_on_stream(ctx_, stream);
}

void Runtime::launch_graph(void* graph_exec, Stream stream) {
  const ObserveScope observe(*this, "launch_graph", -1, 0, Form::kStream, device::kTeamWorld);
  if (gpu_ && graph_exec == nullptr) fail("launch_graph: the graph is null");
  s_->backend->launch_graph(ctx_, graph_exec, stream);
}

void Runtime::gpu_collective(const coll::Call& c, Stream stream, const char* op) {
  if (!gpu_) return s_->backend->collective(ctx_, c, 1, stream);  // the CPU backend says it cannot
  if (c.kind == coll::Kind::kAllreduce && c.algo == coll::AllreduceAlgo::kNccl) {
    const Stream s = stream ? stream : s_->backend->stream();
    s_->planner->nccl_allreduce(c, s, op);
    if (!stream) s_->backend->sync_stream(ctx_, op, s);
    return;
  }
  s_->backend->collective(ctx_, c, s_->planner->channels(c), stream);
}

}  // namespace symmetra

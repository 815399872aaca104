// Observability of the host and stream forms (runtime.hpp's ObserveScope; docs/observability.md):
// the trace lines of SYMMETRA_TRACE and the NVTX ranges of SYMMETRA_NVTX. Only reached when the
// context's kObserve bit is set; the forms test that bit inline.
#include <string>
#include <utility>

#include "core/log.hpp"
#include "core/trace.hpp"
#include "runtime/state.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

namespace detail {
// Observed forms this thread is inside: only the outermost records (fence is quiet inside).
constinit thread_local int observe_depth __attribute__((tls_model("initial-exec"))) = 0;
}  // namespace detail

namespace {

const char* form_name(int form) {
  static const char* const names[] = {"host", "nbi", "stream"};
  return names[form];
}

}  // namespace

void Runtime::start_observing() {
  const detail::Config& c = *s_->config;
  if (!c.trace_path.empty()) {
    auto trace = detail::TraceFile::open(c.trace_path, my_pe());
    if (!trace.ok()) throw_on_pe(my_pe(), trace.status().message());
    s_->trace = std::move(trace.value());
  }
  s_->nvtx = c.nvtx && detail::nvtx_available();
  if (c.nvtx && !s_->nvtx)
    SYMMETRA_LOG(kWarn, my_pe(), "SYMMETRA_NVTX=1: this build has no NVTX (nvtx3 comes with CUDA)");
  s_->trace_origin_ns = now_ns();
  if (s_->trace || s_->nvtx) ctx_.flags |= device::Context::kObserve;
}

void Runtime::flush_observed() {
  if (s_ && s_->trace) s_->trace->flush();
}

bool Runtime::observe_outer() const {
  return detail::observe_depth == 0;
}

std::uint64_t Runtime::observe_begin(const char* op) {
  if (detail::observe_depth++ > 0) return 0;  // inside another observed form: it records
  if (s_->nvtx) detail::nvtx_push(op);
  return now_ns();
}

// Which path an operation took: to a peer, where the peer is; a collective, where its members
// are; quiet and fence, every path this PE has.
const char* Runtime::observed_path(int peer, int team) const {
  if (peer >= 0 && peer < n_pes()) return ctx_.reachable(peer) ? "local" : "remote";
  if (ctx_.remote == nullptr) return "local";  // every PE is reachable
  if (team < 0 || team >= device::kMaxTeams) return "both";
  const device::TeamDesc& t = s_->teams[team];
  int remote = 0;
  for (int r = 0; r < t.size; ++r) remote += !ctx_.reachable(t.start + r * t.stride);
  return remote == 0 ? "local" : remote == t.size - 1 ? "remote" : "both";
}

void Runtime::observe_end(const char* op, int peer, int team, std::size_t bytes, Form form,
                          std::uint64_t start_ns) {
  --detail::observe_depth;
  if (start_ns == 0) return;
  const std::uint64_t end = now_ns();
  if (s_->nvtx) detail::nvtx_pop();
  if (s_->trace)
    s_->trace->record(op, peer, team, bytes, form_name(static_cast<int>(form)),
                      observed_path(peer, team), start_ns - s_->trace_origin_ns, end - start_ns);
}

}  // namespace symmetra

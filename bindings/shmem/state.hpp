// What every part of the OpenSHMEM binding shares: the process's Runtime, handle translation
// (teams, contexts), the error guard at the C boundary, and the canonical C++ types that the
// Runtime's templates are instantiated for.
#pragma once

#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>

#include "bindings/canon.hpp"
#include "symmetra/error.hpp"
#include "symmetra/runtime.hpp"

// A context: the team its PE numbers are relative to (a Runtime team handle) and its options.
// Every put, get and AMO is complete when it returns (CPU backend) or is ordered by the
// Runtime's own quiet (GPU backend), so contexts need no queues of their own: a context's
// quiet is the Runtime's quiet, which orders this thread's operations on every context.
struct symmetra_ctx_s {
  int team;
  long options;
};

// Everything below is internal to libsymmetra_shmem: hidden, so that one file's call to
// another's helper is a direct call, not one through the PLT (the C API's own names keep the
// visibility shmem.h gave them).
#pragma GCC visibility push(hidden)

namespace symmetra::shmem {

namespace detail {
// The Runtime of this process (setup.cpp): made by shmem_init, empty before it and after
// shmem_finalize. Read inline by every call, so a put pays a load here, not a call.
extern std::unique_ptr<Runtime> g_rt;
[[noreturn, gnu::cold]] void not_initialized(const char* op);
[[noreturn, gnu::cold]] void invalid_ctx(const char* op);
}  // namespace detail

// The Runtime of this process; stops the job with a message if shmem_init has not run.
inline Runtime& rt(const char* op) {
  Runtime* r = detail::g_rt.get();
  if (r == nullptr) [[unlikely]]
    detail::not_initialized(op);
  return *r;
}
// Whether shmem_init has run and shmem_finalize has not.
inline bool initialized() {
  return detail::g_rt != nullptr;
}

// Prints "[pe N] op: message" and ends the job: the OpenSHMEM routines have no error returns
// on the data path.
[[noreturn]] void die(const char* op, const std::string& message);
// Prints the same and ends this process with status 1: another PE stopped the job (JobStopped),
// this one did nothing wrong, and has nothing to mark.
[[noreturn]] void stopped(const char* op, const std::string& message);

// Team handles: a shmem_team_t is the Runtime handle plus one (0 is SHMEM_TEAM_INVALID).
inline shmem_team_t to_c(const Team& t) {
  return t.valid() ? reinterpret_cast<shmem_team_t>(static_cast<std::intptr_t>(t.handle() + 1))
                   : SHMEM_TEAM_INVALID;
}
inline int handle_of(shmem_team_t t) {
  return static_cast<int>(reinterpret_cast<std::intptr_t>(t)) - 1;
}
Team team(shmem_team_t t, const char* op);

// The world PE a context's PE number names: inline for the world's contexts, out of line
// (setup.cpp) for a team's.
int team_world_pe(shmem_ctx_t ctx, int pe, const char* op);
inline int world_pe(shmem_ctx_t ctx, int pe, const char* op) {
  if (ctx == SHMEM_CTX_DEFAULT || ctx->team == device::kTeamWorld) [[likely]]
    return pe;
  return team_world_pe(ctx, pe, op);
}
inline void check_ctx(shmem_ctx_t ctx, const char* op) {
  if (ctx == SHMEM_CTX_INVALID) [[unlikely]]
    detail::invalid_ctx(op);
}

using bindings::Canon;
using bindings::canon;
using bindings::canon_t;

using bindings::Bytes16;
using bindings::word_t;

Cmp cmp_of(int cmp, const char* op);
SignalOp signal_op_of(int sig_op, const char* op);

}  // namespace symmetra::shmem

#pragma GCC visibility pop

// Runs the body (the arguments after op; commas allowed) and turns a symmetra::Error into the
// job-ending message (the data path), so no exception crosses into C.
#define SYMMETRA_SHMEM_GUARD(op, ...)         \
  try {                                       \
    __VA_ARGS__;                              \
  } catch (const ::symmetra::JobStopped& e) { \
    ::symmetra::shmem::stopped(op, e.what()); \
  } catch (const std::exception& e) {         \
    ::symmetra::shmem::die(op, e.what());     \
  }

// What the parts of the NVSHMEM binding share: the process's Runtime, the guard at the C
// boundary, and the translation of NVSHMEM's teams, comparisons and signal operations.
#pragma once

#include "symmetra/core/float16.hpp"

// The 16-bit floating types of nvshmem.h's collectives, in the library: its own, which have
// CUDA's layout (a program's half* is the library's symmetra::half*).
#define SYMMETRAI_HALF_T ::symmetra::half
#define SYMMETRAI_BFLOAT16_T ::symmetra::bfloat16

#include <nvshmemx.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings/canon.hpp"
#include "symmetra/error.hpp"
#include "symmetra/global_exit.hpp"
#include "symmetra/runtime.hpp"

// Internal to libsymmetra_nvshmem: hidden, so that one file's call to another's helper is a
// direct call (the C API's names keep their default visibility).
#pragma GCC visibility push(hidden)

namespace symmetra::nvshmem {

// The Runtime of this process: made by the first nvshmem_init, empty before and after.
extern std::unique_ptr<Runtime> g_rt;

// Prints "[pe N] op: message" and ends the job: NVSHMEM's calls have no error returns.
[[noreturn]] void die(const char* op, const std::string& message);

// The Runtime; ends the job naming `op` where nvshmem_init has not run.
Runtime& rt(const char* op);

// f() under the C boundary's guard: an exception from the Runtime ends the job with its message.
template <class F>
auto guarded(const char* op, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    die(op, e.what());
  }
}

// Gives every registered CUDA module the PE's device state where it changed since the last time
// (after init, allocations that grew the heap, team splits; the GPU backend only).
void push_state(const char* op);
// Fills the state of every module the program handed over (nvshmemx_cumodule_init,
// culibrary_init; module.cpp).
int fill_loaded(const device::Context& c, const char* op);

// Sets the Symmetra variables that NVSHMEM's set (docs/nvshmem.md#environment); returns what
// nvshmem_init says once about the others (no counterpart, not known).
std::vector<std::string> map_environment();

// iput (is_put) or iget of nelems elements of `elem` bytes (1 to 16) with strides in elements,
// under the guard.
void strided_bytes(const char* op, bool is_put, std::size_t elem, void* dest, const void* src,
                   std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe);

Cmp cmp_of(int cmp, const char* op);
SignalOp signal_op_of(int sig_op, const char* op);

// The Runtime handle of an NVSHMEM team id, -1 where it names no live team.
int live_handle(Runtime& r, nvshmem_team_t team);
// The Team of an NVSHMEM team id, or an invalid one (with the reason on stderr) where the id
// names none.
Team team_of(nvshmem_team_t id, const char* op);
nvshmem_team_t id_of(const Team& t);

}  // namespace symmetra::nvshmem

#pragma GCC visibility pop

// A both-sided call's host form under NVSHMEM's name too (nvshmem.h says why), for the X of the
// lists of SYMMETRA_NVSHMEM_BOTH_SIDED's form: `#define X SYMMETRA_NVSHMEM_BOTH_NAMES`.
#define SYMMETRA_NVSHMEM_BOTH_NAMES(name, ret, params, args) \
  ret nvshmem_##name params {                                \
    return symmetrai_host_##name args;                       \
  }

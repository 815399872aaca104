// OpenSHMEM setup, query, memory management, teams and contexts (shmem.h).
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include <shmemx.h>

#include <chrono>

#include "bindings/shmem/state.hpp"
#include "symmetra/global_exit.hpp"
#include "symmetra/introspect.hpp"

struct symmetra_ctx_s symmetra_ctx_default = {symmetra::device::kTeamWorld, 0};

namespace symmetra::shmem {
namespace {

// The Runtime of a PE that left without finalize (the exit handler). Volatile: nothing reads
// it, and an optimized build dropped the store, so LeakSanitizer reported the Runtime lost.
Runtime* volatile g_left = nullptr;
// Nested shmem_init calls are counted; one after shmem_finalize starts the library again (a
// new job of the same PEs, OpenSHMEM 1.6).
int g_init_count = 0;
std::mutex g_mutex;
// The configuration each team was split with, by Runtime team handle (shmem_team_get_config):
// num_contexts where the split's mask selected it, else the default 0. Splits are collective and
// rare, so one lock guards it for SHMEM_THREAD_MULTIPLE.
std::mutex g_config_mutex;
std::array<shmem_team_config_t, device::kMaxTeams> g_team_config{};

void keep_config(const Team& t, const shmem_team_config_t* config, long mask) {
  if (!t.valid()) return;
  shmem_team_config_t kept{};
  if (config != nullptr && (mask & SHMEM_TEAM_NUM_CONTEXTS))
    kept.num_contexts = config->num_contexts;
  std::lock_guard<std::mutex> lock(g_config_mutex);
  g_team_config[static_cast<std::size_t>(t.handle())] = kept;
}

}  // namespace

namespace detail {

std::unique_ptr<Runtime> g_rt;

void not_initialized(const char* op) {
  std::fprintf(stderr, "%s: called before shmem_init (or after shmem_finalize)\n", op);
  std::fflush(stderr);
  std::abort();
}

void invalid_ctx(const char* op) {
  die(op, "the context is SHMEM_CTX_INVALID");
}

}  // namespace detail

namespace {
// "[pe N] op: message" on stderr, flushed.
void report(const char* op, const std::string& message) {
  // Runtime messages already start with "[pe N] op:"; the C routine's name goes after the PE.
  if (message.rfind("[pe ", 0) == 0) {
    const auto close = message.find("] ");
    if (close != std::string::npos && message.compare(close + 2, std::strlen(op), op) != 0) {
      std::fprintf(stderr, "%s%s: %s\n", message.substr(0, close + 2).c_str(), op,
                   message.c_str() + close + 2);
    } else {
      std::fprintf(stderr, "%s\n", message.c_str());
    }
  } else {
    std::fprintf(stderr, "[pe %d] %s: %s\n", detail::g_rt ? detail::g_rt->my_pe() : -1, op,
                 message.c_str());
  }
  std::fflush(stderr);
}
}  // namespace

void die(const char* op, const std::string& message) {
  report(op, message);
  if (detail::g_rt) detail::g_rt->mark_failed();
  std::abort();
}

void stopped(const char* op, const std::string& message) {
  report(op, message);
  std::fflush(stdout);
  _exit(1);
}

Team team(shmem_team_t t, const char* op) {
  const int h = handle_of(t);
  Runtime& r = rt(op);
  if (h < 0 || h >= device::kMaxTeams || symmetra::introspect::team_desc(r, h).size == 0)
    die(op, "team handle " + std::to_string(h + 1) + " is not a valid team");
  return Team(&r, h);
}

int team_world_pe(shmem_ctx_t ctx, int pe, const char* op) {
  const int w = Team(&rt(op), ctx->team).world_pe(pe);
  if (w < 0) die(op, "PE " + std::to_string(pe) + " is not a member of the context's team");
  return w;
}

Cmp cmp_of(int cmp, const char* op) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    die(op, "unknown comparison " + std::to_string(cmp));
  return static_cast<Cmp>(cmp);  // SHMEM_CMP_* follow Cmp's order
}

SignalOp signal_op_of(int sig_op, const char* op) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    die(op, "unknown signal operation " + std::to_string(sig_op));
  return sig_op == SHMEM_SIGNAL_SET ? SignalOp::kSet : SignalOp::kAdd;
}

}  // namespace symmetra::shmem

using namespace symmetra;
using shmem::rt;

// A program that ends without shmem_finalize (exit(), a return from main) leaves at once: no
// collective step, which would block it (or match a barrier the others wait in), and the others
// stop naming it. Runs before the static destructors (registered after them).
static void leave_at_exit() {
  if (!shmem::detail::g_rt) return;
  shmem::detail::g_rt->leave();
  // The process is ending: no teardown that could block it. The Runtime stays reachable
  // from g_left, so that leak checkers (LeakSanitizer) see it kept, not lost.
  shmem::g_left = shmem::detail::g_rt.release();
}

extern "C" {

void shmem_init(void) {
  std::lock_guard<std::mutex> lock(shmem::g_mutex);
  if (shmem::g_init_count++ > 0) return;
  try {
    RuntimeOptions options;
    options.symmetric_static_data = true;  // OpenSHMEM: global and static variables are symmetric
    // OpenSHMEM: the program readies broadcast's and alltoall's dest (docs/openshmem.md);
    // SYMMETRA_SHMEM_COLL_CREDITS=1 keeps Symmetra's own guarantee for programs that do not.
    const char* credits = std::getenv("SYMMETRA_SHMEM_COLL_CREDITS");
    options.dest_ready_by_program = credits == nullptr || std::strcmp(credits, "1") != 0;
    shmem::detail::g_rt = Runtime::init(options);
    // Once, however many times the library starts again.
    static const bool registered = std::atexit(leave_at_exit) == 0;
    (void)registered;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shmem_init: %s\n", e.what());
    std::fflush(stderr);
    std::exit(1);
  }
}

// The CPU backend serves SHMEM_THREAD_MULTIPLE: data-path calls of several threads at once, and
// a collective (allocation, team, barrier) on one thread beside them (openshmem_thread, under
// ThreadSanitizer). The GPU backend's host forms share a view of the device heap that growth
// rewrites: one thread at a time there.
static int thread_level() {
  return shmem::initialized() && rt("shmem_query_thread").on_gpu() ? SHMEM_THREAD_SERIALIZED
                                                                   : SHMEM_THREAD_MULTIPLE;
}

int shmem_init_thread(int requested, int* provided) {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) return 1;
  shmem_init();
  if (provided) *provided = thread_level();
  return 0;
}

void shmem_query_thread(int* provided) {
  if (provided) *provided = thread_level();
}

void shmem_finalize(void) {
  std::lock_guard<std::mutex> lock(shmem::g_mutex);
  if (!shmem::detail::g_rt || --shmem::g_init_count > 0) return;
  SYMMETRA_SHMEM_GUARD("shmem_finalize", shmem::detail::g_rt->finalize());
  shmem::detail::g_rt.reset();
}

void shmem_global_exit(int status) {
  global_exit(shmem::detail::g_rt.get(), status);
}

int shmem_my_pe(void) {
  return rt("shmem_my_pe").my_pe();
}
int shmem_n_pes(void) {
  return rt("shmem_n_pes").n_pes();
}
int shmem_pe_accessible(int pe) {
  return rt("shmem_pe_accessible").pe_accessible(pe) ? 1 : 0;
}
int shmem_addr_accessible(const void* addr, int pe) {
  Runtime& r = rt("shmem_addr_accessible");
  return r.pe_accessible(pe) && r.is_symmetric(addr) ? 1 : 0;
}
void* shmem_ptr(const void* dest, int pe) {
  Runtime& r = rt("shmem_ptr");
  if (!r.pe_accessible(pe) || !r.is_symmetric(dest) || r.on_gpu())
    return nullptr;  // GPU memory: no host load/store
  return r.ptr(const_cast<void*>(dest), pe);
}
// Nonzero between shmem_init and shmem_finalize (OpenSHMEM 1.6); callable before either.
void shmem_query_initialized(int* initialized) {
  if (initialized) *initialized = shmem::initialized() ? 1 : 0;
}
void shmem_info_get_version(int* major, int* minor) {
  if (major) *major = SHMEM_MAJOR_VERSION;
  if (minor) *minor = SHMEM_MINOR_VERSION;
}
void shmem_info_get_name(char* name) {
  if (name) std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN);
}

double shmemx_wtime(void) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void* shmemx_runtime(void) {
  return shmem::detail::g_rt.get();
}

// The standard requires it; tools that want it define their own (pshmem.h).
void shmem_pcontrol(const int, ...) {}

void start_pes(int) {
  shmem_init();
}
int _my_pe(void) {
  return shmem_my_pe();
}
int _num_pes(void) {
  return shmem_n_pes();
}

// --- Memory management: collective, same arguments on every PE (checked by the Runtime). A
//     request the heap cannot hold returns NULL on every PE, with the reason on stderr, as the
//     standard has it; other errors (sizes that differ between PEs) end the job. ---
#define SYMMETRA_SHMEM_ALLOC(op, ...)                       \
  try {                                                     \
    return __VA_ARGS__;                                     \
  } catch (const OutOfMemory& e) {                          \
    std::fprintf(stderr, "%s; returning NULL\n", e.what()); \
  } catch (const JobStopped& e) {                           \
    shmem::stopped(op, e.what());                           \
  } catch (const std::exception& e) {                       \
    shmem::die(op, e.what());                               \
  }                                                         \
  return nullptr
void* shmem_malloc(size_t size) {
  SYMMETRA_SHMEM_ALLOC("shmem_malloc", rt("shmem_malloc").allocate(size));
}
void* shmem_malloc_with_hints(size_t size, long) {
  return shmem_malloc(size);
}
void* shmem_calloc(size_t count, size_t size) {
  SYMMETRA_SHMEM_ALLOC("shmem_calloc", rt("shmem_calloc").calloc(count, size));
}
void* shmem_realloc(void* ptr, size_t size) {
  SYMMETRA_SHMEM_ALLOC("shmem_realloc", rt("shmem_realloc").reallocate(ptr, size));
}
void* shmem_align(size_t alignment, size_t size) {
  SYMMETRA_SHMEM_ALLOC("shmem_align", rt("shmem_align").align(alignment, size));
}
void shmem_free(void* ptr) {
  SYMMETRA_SHMEM_GUARD("shmem_free", rt("shmem_free").free(ptr));
}
void* shmalloc(size_t size) {
  return shmem_malloc(size);
}
void shfree(void* ptr) {
  shmem_free(ptr);
}
void* shrealloc(void* ptr, size_t size) {
  return shmem_realloc(ptr, size);
}
void* shmemalign(size_t alignment, size_t size) {
  return shmem_align(alignment, size);
}

// --- Teams ---
int shmem_team_my_pe(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return -1;
  return shmem::team(t, "shmem_team_my_pe").my_pe();
}
int shmem_team_n_pes(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return -1;
  return shmem::team(t, "shmem_team_n_pes").n_pes();
}
int shmem_team_get_config(shmem_team_t t, long config_mask, shmem_team_config_t* config) {
  if (t == SHMEM_TEAM_INVALID || config == nullptr) return 1;
  const int h = shmem::team(t, "shmem_team_get_config").handle();
  std::lock_guard<std::mutex> lock(shmem::g_config_mutex);
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
    config->num_contexts = shmem::g_team_config[static_cast<std::size_t>(h)].num_contexts;
  return 0;
}
int shmem_team_translate_pe(shmem_team_t src, int src_pe, shmem_team_t dest) {
  if (src == SHMEM_TEAM_INVALID || dest == SHMEM_TEAM_INVALID) return -1;
  return shmem::team(src, "shmem_team_translate_pe")
      .translate_pe(src_pe, shmem::team(dest, "shmem_team_translate_pe"));
}
int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask,
                             shmem_team_t* new_team) {
  if (new_team) *new_team = SHMEM_TEAM_INVALID;
  if (parent == SHMEM_TEAM_INVALID) return 1;
  try {
    Team p = shmem::team(parent, "shmem_team_split_strided");
    Team t = rt("shmem_team_split_strided").split_strided(p, start, stride, size);
    shmem::keep_config(t, config, config_mask);
    if (new_team) *new_team = shmem::to_c(t);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xconfig,
                        long xmask, shmem_team_t* xaxis, const shmem_team_config_t* yconfig,
                        long ymask, shmem_team_t* yaxis) {
  if (xaxis) *xaxis = SHMEM_TEAM_INVALID;
  if (yaxis) *yaxis = SHMEM_TEAM_INVALID;
  if (parent == SHMEM_TEAM_INVALID) return 1;
  try {
    Team x, y;
    rt("shmem_team_split_2d").split_2d(shmem::team(parent, "shmem_team_split_2d"), xrange, &x, &y);
    shmem::keep_config(x, xconfig, xmask);
    shmem::keep_config(y, yconfig, ymask);
    if (xaxis) *xaxis = shmem::to_c(x);
    if (yaxis) *yaxis = shmem::to_c(y);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
// shmem_ptr with the PE numbered in `t` (OpenSHMEM 1.6): NULL where shmem_ptr gives NULL, and
// for a PE outside the team.
void* shmem_team_ptr(shmem_team_t t, const void* dest, int pe) {
  if (t == SHMEM_TEAM_INVALID) return nullptr;
  const Team team = shmem::team(t, "shmem_team_ptr");
  if (pe < 0 || pe >= team.n_pes()) return nullptr;
  return shmem_ptr(dest, team.world_pe(pe));
}
void shmem_team_destroy(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID || t == SHMEM_TEAM_WORLD || t == SHMEM_TEAM_SHARED) return;
  Team team = shmem::team(t, "shmem_team_destroy");
  SYMMETRA_SHMEM_GUARD("shmem_team_destroy", rt("shmem_team_destroy").destroy(team));
}

// --- Contexts ---
int shmem_ctx_create(long options, shmem_ctx_t* ctx) {
  return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}
int shmem_team_create_ctx(shmem_team_t t, long options, shmem_ctx_t* ctx) {
  if (ctx == nullptr) return 1;
  *ctx = SHMEM_CTX_INVALID;
  if (t == SHMEM_TEAM_INVALID) return 1;
  const int h = shmem::team(t, "shmem_team_create_ctx").handle();
  *ctx = new symmetra_ctx_s{h, options};
  return 0;
}
void shmem_ctx_destroy(shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT) return;
  rt("shmem_ctx_destroy").quiet();  // its operations complete first
  delete ctx;
}
// Sessions (OpenSHMEM 1.6) are hints that a run of operations follows. Every operation here
// completes or is ordered without batching (symmetra_ctx_s), so there is nothing to prepare;
// the calls still need shmem_init, and ignore SHMEM_CTX_INVALID as quiet does.
void shmem_ctx_session_start(shmem_ctx_t ctx, long, const shmem_ctx_session_config_t*, long) {
  if (ctx != SHMEM_CTX_INVALID) (void)rt("shmem_ctx_session_start");
}
void shmem_ctx_session_stop(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) (void)rt("shmem_ctx_session_stop");
}
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* t) {
  if (t == nullptr) return 1;
  if (ctx == SHMEM_CTX_INVALID) {
    *t = SHMEM_TEAM_INVALID;
    return 1;
  }
  *t = shmem::to_c(Team(&rt("shmem_ctx_get_team"), ctx->team));
  return 0;
}

}  // extern "C"

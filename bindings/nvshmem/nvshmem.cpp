// libsymmetra_nvshmem: nvshmem.h's and nvshmemx.h's host calls on a Runtime of this process,
// and the registry of CUDA modules whose device state nvshmem_init fills (nvshmem_device.cuh).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "bindings/nvshmem/state.hpp"
#include "symmetra/introspect.hpp"

namespace symmetra::nvshmem {

std::unique_ptr<Runtime> g_rt;

void die(const char* op, const std::string& message) {
  const int pe = g_rt ? g_rt->my_pe() : -1;
  if (pe >= 0)
    std::fprintf(stderr, "[pe %d] %s: %s\n", pe, op, message.c_str());
  else
    std::fprintf(stderr, "%s: %s\n", op, message.c_str());
  std::fflush(stderr);
  if (g_rt) g_rt->mark_failed();
  std::abort();
}

Runtime& rt(const char* op) {
  if (!g_rt) [[unlikely]]
    die(op, "called before nvshmem_init (or after nvshmem_finalize)");
  return *g_rt;
}

Cmp cmp_of(int cmp, const char* op) {
  const int c = SYMMETRAI_CMP(cmp);
  if (c < 0) die(op, "unknown comparison " + std::to_string(cmp) + " (NVSHMEM_CMP_*)");
  return static_cast<Cmp>(c);
}

SignalOp signal_op_of(int sig_op, const char* op) {
  if (sig_op != NVSHMEM_SIGNAL_SET && sig_op != NVSHMEM_SIGNAL_ADD)
    die(op, "unknown signal operation " + std::to_string(sig_op) +
                " (NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD)");
  return sig_op == NVSHMEM_SIGNAL_SET ? SignalOp::kSet : SignalOp::kAdd;
}

int live_handle(Runtime& r, nvshmem_team_t team) {
  const int h = SYMMETRAI_TEAM_HANDLE(team);
  return h < 0 || h >= device::kMaxTeams || symmetra::introspect::team_desc(r, h).size == 0 ? -1
                                                                                            : h;
}

Team team_of(nvshmem_team_t id, const char* op) {
  Runtime& r = rt(op);
  const int h = live_handle(r, id);
  if (h < 0) {
    std::fprintf(stderr, "[pe %d] %s: team %d is not a valid team\n", r.my_pe(), op, id);
    return Team();
  }
  return Team(&r, h);
}

nvshmem_team_t id_of(const Team& t) {
  return t.valid() ? SYMMETRAI_TEAM_ID(t.handle()) : NVSHMEM_TEAM_INVALID;
}

// The unique ids of the teams nvshmemx_team_init made, for nvshmem_team_get_config. Threads:
// any (NVSHMEM_THREAD_MULTIPLE programs may make teams from several threads of a PE).
namespace {
std::mutex team_ids_lock;
std::map<nvshmem_team_t, nvshmemx_team_uniqueid_t> team_ids;
}  // namespace

void remember_team_id(nvshmem_team_t team, nvshmemx_team_uniqueid_t id) {
  const std::lock_guard<std::mutex> hold(team_ids_lock);
  team_ids[team] = id;
}
void forget_team_id(nvshmem_team_t team) {
  const std::lock_guard<std::mutex> hold(team_ids_lock);
  team_ids.erase(team);
}
nvshmemx_team_uniqueid_t team_id(nvshmem_team_t team) {
  const std::lock_guard<std::mutex> hold(team_ids_lock);
  const auto it = team_ids.find(team);
  return it == team_ids.end() ? ~0ull : it->second;
}

// 63 random bits, never 0 (a free board record) nor ~0 (no id, the config initializer's).
nvshmemx_team_uniqueid_t new_team_id() {
  std::random_device rd;
  const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return (r >> 1) | 1;
}

}  // namespace symmetra::nvshmem

using namespace symmetra;
using bindings::canon;
using bindings::canon_t;
using nvshmem::guarded;
using nvshmem::id_of;
using nvshmem::live_handle;
using nvshmem::rt;
using nvshmem::team_of;

extern "C" {

// Allocation: NULL, with the reason on stderr, where the heap cannot hold the block.
#define SYMMETRA_NVSHMEM_ALLOC(op, ...)                     \
  void* p = nullptr;                                        \
  try {                                                     \
    p = __VA_ARGS__;                                        \
  } catch (const OutOfMemory& e) {                          \
    std::fprintf(stderr, "%s; returning NULL\n", e.what()); \
    return nullptr;                                         \
  } catch (const std::exception& e) {                       \
    nvshmem::die(op, e.what());                             \
  }                                                         \
  nvshmem::push_state(op);                                  \
  return p

void* nvshmem_malloc(size_t size) {
  SYMMETRA_NVSHMEM_ALLOC("nvshmem_malloc", rt("nvshmem_malloc").allocate(size));
}
void* nvshmem_calloc(size_t count, size_t size) {
  SYMMETRA_NVSHMEM_ALLOC("nvshmem_calloc", rt("nvshmem_calloc").calloc(count, size));
}
void* nvshmem_align(size_t alignment, size_t size) {
  SYMMETRA_NVSHMEM_ALLOC("nvshmem_align", rt("nvshmem_align").align(alignment, size));
}
void* nvshmem_realloc(void* ptr, size_t size) {
  SYMMETRA_NVSHMEM_ALLOC("nvshmem_realloc", rt("nvshmem_realloc").reallocate(ptr, size));
}
void nvshmem_free(void* ptr) {
  guarded("nvshmem_free", [&] { rt("nvshmem_free").free(ptr); });
}

int symmetrai_host_my_pe(void) {
  return rt("nvshmem_my_pe").my_pe();
}
int symmetrai_host_n_pes(void) {
  return rt("nvshmem_n_pes").n_pes();
}
int symmetrai_host_team_my_pe(nvshmem_team_t team) {
  Runtime& r = rt("nvshmem_team_my_pe");
  const int h = live_handle(r, team);
  return h < 0 ? -1 : symmetra::introspect::team_desc(r, h).my_rank;
}
int symmetrai_host_team_n_pes(nvshmem_team_t team) {
  Runtime& r = rt("nvshmem_team_n_pes");
  const int h = live_handle(r, team);
  return h < 0 ? -1 : symmetra::introspect::team_desc(r, h).size;
}
void* symmetrai_host_ptr(const void* dest, int pe) {
  Runtime& r = rt("nvshmem_ptr");
  // GPU memory has no host load and store; NVSHMEM's host nvshmem_ptr returns NULL there too
  // for peers it maps only into the device.
  if (!r.pe_accessible(pe) || !r.is_symmetric(dest) || r.on_gpu()) return nullptr;
  return r.ptr(const_cast<void*>(dest), pe);
}
void symmetrai_host_quiet(void) {
  guarded("nvshmem_quiet", [&] { rt("nvshmem_quiet").quiet(); });
}
void symmetrai_host_fence(void) {
  guarded("nvshmem_fence", [&] { rt("nvshmem_fence").fence(); });
}
void symmetrai_host_barrier_all(void) {
  guarded("nvshmem_barrier_all", [&] { rt("nvshmem_barrier_all").barrier_all(); });
}
void symmetrai_host_sync_all(void) {
  guarded("nvshmem_sync_all", [&] { rt("nvshmem_sync_all").sync_all(); });
}
void symmetrai_host_putmem(void* dest, const void* src, size_t bytes, int pe) {
  guarded("nvshmem_putmem", [&] { rt("nvshmem_putmem").putmem(dest, src, bytes, pe); });
}
void symmetrai_host_getmem(void* dest, const void* src, size_t bytes, int pe) {
  guarded("nvshmem_getmem", [&] { rt("nvshmem_getmem").getmem(dest, src, bytes, pe); });
}

// Typed: one element or n, moved as their bytes.
#define SYMMETRA_NVSHMEM_HOST_TYPED(NAME, T)                                       \
  void symmetrai_host_##NAME##_p(T* dest, T value, int pe) {                       \
    symmetrai_host_putmem(dest, &value, sizeof(T), pe);                            \
  }                                                                                \
  T symmetrai_host_##NAME##_g(const T* src, int pe) {                              \
    T value;                                                                       \
    symmetrai_host_getmem(&value, src, sizeof(T), pe);                             \
    return value;                                                                  \
  }                                                                                \
  void symmetrai_host_##NAME##_put(T* dest, const T* src, size_t nelems, int pe) { \
    symmetrai_host_putmem(dest, src, nelems * sizeof(T), pe);                      \
  }                                                                                \
  void symmetrai_host_##NAME##_get(T* dest, const T* src, size_t nelems, int pe) { \
    symmetrai_host_getmem(dest, src, nelems * sizeof(T), pe);                      \
  }
SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRA_NVSHMEM_HOST_TYPED)

// Signals: put-with-signal, the signal word's atomic update, fetch and wait.
void symmetrai_host_putmem_signal(void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                                  uint64_t signal, int sig_op, int pe) {
  constexpr const char* op = "nvshmem_putmem_signal";
  const SignalOp how = nvshmem::signal_op_of(sig_op, op);
  guarded(op, [&] { rt(op).putmem_signal(dest, src, bytes, sig_addr, signal, how, pe); });
}
void symmetrai_host_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  constexpr const char* op = "nvshmemx_signal_op";
  const SignalOp how = nvshmem::signal_op_of(sig_op, op);
  guarded(op, [&] {
    if (how == SignalOp::kSet) return rt(op).atomic_set(sig_addr, signal, pe);
    rt(op).atomic_add(sig_addr, signal, pe);
  });
}
uint64_t symmetrai_host_signal_fetch(const uint64_t* sig_addr) {
  return guarded("nvshmem_signal_fetch",
                 [&] { return rt("nvshmem_signal_fetch").signal_fetch(sig_addr); });
}
uint64_t symmetrai_host_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  constexpr const char* op = "nvshmem_signal_wait_until";
  const Cmp c = nvshmem::cmp_of(cmp, op);
  return guarded(op, [&] { return rt(op).signal_wait_until(sig_addr, c, cmp_value); });
}
void nvshmemx_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  symmetrai_host_signal_op(sig_addr, signal, sig_op, pe);
}

// Atomics and point-to-point synchronization, on the Runtime's fixed-width types.
#define SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, what, ret, params, call)                 \
  ret symmetrai_host_##NAME##_atomic_##what params {                                 \
    constexpr const char* op = "nvshmem_" #NAME "_atomic_" #what;                    \
    return static_cast<ret>(guarded(op, [&] { return rt(op).atomic_##what call; })); \
  }
#define SYMMETRA_NVSHMEM_HOST_AMO(NAME, T)                                                 \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, fetch_inc, T, (T * dest, int pe), (canon(dest), pe)) \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, inc, void, (T * dest, int pe), (canon(dest), pe))    \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, fetch_add, T, (T * dest, T value, int pe),           \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))            \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, add, void, (T * dest, T value, int pe),              \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))            \
  SYMMETRA_NVSHMEM_HOST_AMO1(                                                              \
      NAME, T, compare_swap, T, (T * dest, T cond, T value, int pe),                       \
      (canon(dest), static_cast<canon_t<T>>(cond), static_cast<canon_t<T>>(value), pe))
#define SYMMETRA_NVSHMEM_HOST_AMO_EXTENDED(NAME, T)                                       \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, fetch, T, (const T* src, int pe), (canon(src), pe)) \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, set, void, (T * dest, T value, int pe),             \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))           \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, swap, T, (T * dest, T value, int pe),               \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))
#define SYMMETRA_NVSHMEM_HOST_AMO_BITWISE1(NAME, T, what)                           \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, fetch_##what, T, (T * dest, T value, int pe), \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))     \
  SYMMETRA_NVSHMEM_HOST_AMO1(NAME, T, what, void, (T * dest, T value, int pe),      \
                             (canon(dest), static_cast<canon_t<T>>(value), pe))
#define SYMMETRA_NVSHMEM_HOST_AMO_BITWISE(NAME, T) \
  SYMMETRA_NVSHMEM_HOST_AMO_BITWISE1(NAME, T, and) \
  SYMMETRA_NVSHMEM_HOST_AMO_BITWISE1(NAME, T, or)  \
  SYMMETRA_NVSHMEM_HOST_AMO_BITWISE1(NAME, T, xor)
#define SYMMETRA_NVSHMEM_HOST_WAIT(NAME, T)                                \
  void symmetrai_host_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) { \
    constexpr const char* op = "nvshmem_" #NAME "_wait_until";             \
    const Cmp c = nvshmem::cmp_of(cmp, op);                                \
    guarded(op, [&] {                                                      \
      rt(op).wait_until(canon(static_cast<const T*>(ivar)), c,             \
                        static_cast<canon_t<T>>(cmp_value));               \
    });                                                                    \
  }                                                                        \
  int symmetrai_host_##NAME##_test(T* ivar, int cmp, T cmp_value) {        \
    constexpr const char* op = "nvshmem_" #NAME "_test";                   \
    const Cmp c = nvshmem::cmp_of(cmp, op);                                \
    return guarded(op, [&] {                                               \
      return rt(op).test(canon(static_cast<const T*>(ivar)), c,            \
                         static_cast<canon_t<T>>(cmp_value))               \
                 ? 1                                                       \
                 : 0;                                                      \
    });                                                                    \
  }
SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRA_NVSHMEM_HOST_AMO)
SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRA_NVSHMEM_HOST_AMO_EXTENDED)
SYMMETRA_NVSHMEM_HOST_AMO_EXTENDED(float, float)
SYMMETRA_NVSHMEM_HOST_AMO_EXTENDED(double, double)
SYMMETRA_NVSHMEM_AMO_BITWISE_TYPES(SYMMETRA_NVSHMEM_HOST_AMO_BITWISE)
SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRA_NVSHMEM_HOST_WAIT)

// Multicast addresses: none, as NVSHMEM's where NVLink multicast is off (Symmetra never uses it).
void* symmetrai_host_mc_ptr(nvshmem_team_t, const void*) {
  return nullptr;
}
void symmetrai_host_global_exit(int status) {
  global_exit(nvshmem::g_rt.get(), status);
}
void symmetrai_host_vendor_get_version_info(int* major, int* minor, int* patch) {
  if (major) *major = NVSHMEM_MAJOR_VERSION;
  if (minor) *minor = NVSHMEM_MINOR_VERSION;
  if (patch) *patch = NVSHMEM_PATCH_VERSION;
}
void* nvshmemx_mc_ptr(nvshmem_team_t team, const void* ptr) {
  return symmetrai_host_mc_ptr(team, ptr);
}
void nvshmemx_vendor_get_version_info(int* major, int* minor, int* patch) {
  symmetrai_host_vendor_get_version_info(major, minor, patch);
}

// Registration of local buffers: nothing to do (nvshmemx.h says why).
int nvshmemx_buffer_register(void*, size_t) {
  return 0;
}
int nvshmemx_buffer_unregister(void*) {
  return 0;
}
void nvshmemx_buffer_unregister_all(void) {}

// NVSHMEM reports a failed registration by NULL, so the reason goes to stderr and the job goes
// on; the Runtime fails every PE alike.
void* nvshmemx_buffer_register_symmetric(void* buf_ptr, size_t size, int flags) {
  const char* op = "nvshmemx_buffer_register_symmetric";
  Runtime& r = rt(op);
  void* p = nullptr;
  try {
    if (flags != 0)
      throw Error("[pe " + std::to_string(r.my_pe()) + "] " + op + ": flags " +
                  std::to_string(flags) + " is not 0, the only value NVSHMEM defines");
    p = r.register_symmetric(buf_ptr, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s; returning NULL\n", op, e.what());
    return nullptr;
  }
  nvshmem::push_state(op);
  return p;
}
int nvshmemx_buffer_unregister_symmetric(void* mmap_ptr, size_t size) {
  const char* op = "nvshmemx_buffer_unregister_symmetric";
  Runtime& r = rt(op);
  try {
    r.unregister_symmetric(mmap_ptr, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", op, e.what());
    return 1;
  }
  return 0;
}

#define X SYMMETRA_NVSHMEM_BOTH_NAMES
SYMMETRA_NVSHMEM_BOTH_SIDED
SYMMETRA_NVSHMEM_MISC_BOTH_SIDED
#undef X

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int PE_start, int PE_stride, int PE_size,
                               const nvshmem_team_config_t*, long, nvshmem_team_t* new_team) {
  constexpr const char* op = "nvshmem_team_split_strided";
  if (new_team == nullptr) nvshmem::die(op, "new_team is NULL");
  *new_team = NVSHMEM_TEAM_INVALID;
  const Team parent = team_of(parent_team, op);
  if (!parent.valid()) return 1;
  return guarded(op, [&] {
    *new_team = id_of(rt(op).split_strided(parent, PE_start, PE_stride, PE_size));
    nvshmem::push_state(op);  // kernels see the new team
    return 0;
  });
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t*,
                          long, nvshmem_team_t* xaxis_team, const nvshmem_team_config_t*, long,
                          nvshmem_team_t* yaxis_team) {
  constexpr const char* op = "nvshmem_team_split_2d";
  if (xaxis_team == nullptr || yaxis_team == nullptr) nvshmem::die(op, "a team pointer is NULL");
  *xaxis_team = *yaxis_team = NVSHMEM_TEAM_INVALID;
  const Team parent = team_of(parent_team, op);
  if (!parent.valid()) return 1;
  return guarded(op, [&] {
    Team x, y;
    rt(op).split_2d(parent, xrange, &x, &y);
    *xaxis_team = id_of(x);
    *yaxis_team = id_of(y);
    nvshmem::push_state(op);
    return 0;
  });
}

int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  constexpr const char* op = "nvshmem_team_translate_pe";
  const Team src = team_of(src_team, op), dest = team_of(dest_team, op);
  if (!src.valid() || !dest.valid()) return -1;
  return guarded(op, [&] { return src.translate_pe(src_pe, dest); });
}

int nvshmem_team_get_config(nvshmem_team_t team, long config_mask, nvshmem_team_config_t* config) {
  constexpr const char* op = "nvshmem_team_get_config";
  if (config == nullptr || !team_of(team, op).valid()) return 1;
  if (config_mask & NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS) config->num_contexts = 0;
  if (config_mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID) config->uniqueid = nvshmem::team_id(team);
  return 0;
}

void nvshmem_team_destroy(nvshmem_team_t team) {
  constexpr const char* op = "nvshmem_team_destroy";
  if (team == NVSHMEM_TEAM_INVALID) return;
  if (team >= NVSHMEM_TEAM_WORLD && team <= NVSHMEMX_TEAM_SAME_MYPE_NODE)
    nvshmem::die(op, "the predefined team " + std::to_string(team) + " cannot be destroyed");
  Team t = team_of(team, op);
  if (!t.valid()) return;
  guarded(op, [&] { rt(op).destroy(t); });
  nvshmem::forget_team_id(team);
  nvshmem::push_state(op);
}

int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid) {
  if (uniqueid == nullptr) {
    std::fprintf(stderr, "nvshmemx_team_get_uniqueid: uniqueid is NULL\n");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  *uniqueid = nvshmem::new_team_id();
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long config_mask,
                       int npes, int pe_idx_in_team) {
  constexpr const char* op = "nvshmemx_team_init";
  Runtime& r = rt(op);
  const auto invalid = [&](const std::string& why) {
    std::fprintf(stderr, "[pe %d] %s: %s\n", r.my_pe(), op, why.c_str());
    return static_cast<int>(NVSHMEMX_ERROR_INVALID_VALUE);
  };
  if (team == nullptr) return invalid("team is NULL");
  *team = NVSHMEM_TEAM_INVALID;
  if (config == nullptr || !(config_mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID))
    return invalid(
        "the team's unique id comes in config->uniqueid, with "
        "NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID in config_mask");
  try {
    const Team t = r.team_from_id(config->uniqueid, npes, pe_idx_in_team);
    *team = id_of(t);
    nvshmem::remember_team_id(*team, config->uniqueid);
    nvshmem::push_state(op);  // kernels see the new team
  } catch (const std::exception& e) {
    std::string why = e.what();  // "[pe N] ...": invalid() names the PE
    if (why.rfind("[pe ", 0) == 0 && why.find("] ") != std::string::npos)
      why.erase(0, why.find("] ") + 2);
    return invalid(why);
  }
  return NVSHMEMX_SUCCESS;
}

}  // extern "C"

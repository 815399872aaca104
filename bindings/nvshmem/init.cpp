// Joining and leaving the job: nvshmem_init, nvshmemx_init_attr (unique id, MPI communicator),
// finalize and the queries about it; and the registry of CUDA modules whose device state
// nvshmem_init fills (nvshmem_device.cuh).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "bindings/nvshmem/state.hpp"
#include "symmetra/introspect.hpp"

#if SYMMETRA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace symmetra::nvshmem {
namespace {

int g_init_count = 0;

// The registered modules' updaters and the state last given to them. A module registers before
// main (its static object) or when it is loaded; both may race with nothing but each other,
// under the lock.
std::mutex g_modules_mutex;
std::vector<symmetrai_module_update_t>& modules() {
  static std::vector<symmetrai_module_update_t> m;
  return m;
}
device::Context g_pushed;
bool g_pushed_any = false;

// The GPU backend where this library has it and a GPU is visible, unless SYMMETRA_BACKEND says.
Backend pick_backend() {
  if (std::getenv("SYMMETRA_BACKEND") != nullptr) return Backend::kAuto;
#if SYMMETRA_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) return Backend::kCuda;
  cudaGetLastError();  // not sticky, but leave no error for the program to find
#endif
  return Backend::kCpu;
}

// NVSHMEMX_TEAM_SAME_MYPE_NODE (nvshmem.h): the columns of a 2-D split of the world by the PEs
// per host, where every host holds the same number in one run (world.local, which every PE
// computes alike); else rows of the whole world, so that each PE is alone in its column. The
// split comes first, so its teams get handles 2 and 3, which nvshmem.h's ids name.
void make_predefined_teams(Runtime& r) {
  const device::TeamDesc world = symmetra::introspect::team_desc(r, device::kTeamWorld);
  Team rows, columns;
  r.split_2d(r.team_world(), world.local > 0 ? world.local : r.n_pes(), &rows, &columns);
  if (rows.handle() != 2 || columns.handle() != 3)
    throw Error("nvshmem_init: the predefined teams got handles " + std::to_string(rows.handle()) +
                " and " + std::to_string(columns.handle()) + ", not 2 and 3");
}

// Joins through `join`, once per process (later calls count); NVSHMEMX_ERROR_INTERNAL with the
// reason on stderr where joining fails.
int init(const char* op,
         const std::function<std::unique_ptr<Runtime>(const RuntimeOptions&)>& join) {
  if (g_init_count > 0) return ++g_init_count, NVSHMEMX_SUCCESS;
  try {
    const std::vector<std::string> notes = map_environment();
    RuntimeOptions options;
    options.backend = pick_backend();
    g_rt = join(options);
    make_predefined_teams(*g_rt);
    if (g_rt->my_pe() == 0)  // once for the job
      for (const std::string& note : notes) std::fprintf(stderr, "%s: %s\n", op, note.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", op, e.what());
    std::fflush(stderr);
    return NVSHMEMX_ERROR_INTERNAL;
  }
  ++g_init_count;
  push_state(op);
  return NVSHMEMX_SUCCESS;
}

int invalid(const char* op, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", op, why.c_str());
  return NVSHMEMX_ERROR_INVALID_VALUE;
}

// The MPI the program is linked with, found at run time so that this library needs none: Open
// MPI (handles are pointers, MPI_BYTE the address of ompi_mpi_byte) or MPICH and its kin
// (handles are ints). Joins the communicator's processes through a unique id from its rank 0.
std::unique_ptr<Runtime> join_mpi(const void* comm_address, const RuntimeOptions& options) {
  const char* op = "nvshmemx_init_attr";
  void* rank_fn = dlsym(RTLD_DEFAULT, "MPI_Comm_rank");
  void* size_fn = dlsym(RTLD_DEFAULT, "MPI_Comm_size");
  void* bcast_fn = dlsym(RTLD_DEFAULT, "MPI_Bcast");
  if (rank_fn == nullptr || size_fn == nullptr || bcast_fn == nullptr)
    throw Error(std::string(op) +
                ": NVSHMEMX_INIT_WITH_MPI_COMM needs the program linked with MPI (MPI_Comm_rank, "
                "MPI_Comm_size and MPI_Bcast are not in the process)");
  int rank = -1, size = 0, rc = 0;
  UniqueId id;
  if (void* ompi_byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte")) {
    void* comm = *static_cast<void* const*>(comm_address);
    rc |= reinterpret_cast<int (*)(void*, int*)>(rank_fn)(comm, &rank);
    rc |= reinterpret_cast<int (*)(void*, int*)>(size_fn)(comm, &size);
    if (rc == 0 && rank == 0) id = get_unique_id();
    if (rc == 0)
      rc = reinterpret_cast<int (*)(void*, int, void*, int, void*)>(bcast_fn)(
          id.bytes, sizeof(id.bytes), ompi_byte, 0, comm);
  } else {
    constexpr int kMpichByte = 0x4c00010d;  // MPI_BYTE in MPICH's mpi.h
    const int comm = *static_cast<const int*>(comm_address);
    rc |= reinterpret_cast<int (*)(int, int*)>(rank_fn)(comm, &rank);
    rc |= reinterpret_cast<int (*)(int, int*)>(size_fn)(comm, &size);
    if (rc == 0 && rank == 0) id = get_unique_id();
    if (rc == 0)
      rc = reinterpret_cast<int (*)(void*, int, int, int, int)>(bcast_fn)(
          id.bytes, sizeof(id.bytes), kMpichByte, 0, comm);
  }
  if (rc != 0)
    throw Error(std::string(op) + ": an MPI call on the communicator failed (MPI error " +
                std::to_string(rc) + ")");
  return Runtime::init(id, rank, size, options);
}

}  // namespace

void push_state(const char* op) {
  Runtime& r = rt(op);
  if (!r.on_gpu()) return;
  const device::Context& c = r.device_context();
  std::lock_guard<std::mutex> lock(g_modules_mutex);
  if (g_pushed_any && std::memcmp(&g_pushed, &c, sizeof(c)) == 0) return;
  for (symmetrai_module_update_t update : modules())
    if (const int rc = update(&c, sizeof(c)); rc != 0)
      die(op, "filling a CUDA module's device state failed (cudaError " + std::to_string(rc) + ")");
  fill_loaded(c, op);
  g_pushed = c;
  g_pushed_any = true;
}

}  // namespace symmetra::nvshmem

using namespace symmetra;
namespace nv = symmetra::nvshmem;

extern "C" {

void symmetrai_register_module(symmetrai_module_update_t update) {
  std::lock_guard<std::mutex> lock(nv::g_modules_mutex);
  nv::modules().push_back(update);
  if (!nv::g_pushed_any) return;
  // Loaded after init: this module gets the state now.
  if (const int rc = update(&nv::g_pushed, sizeof(nv::g_pushed)); rc != 0)
    nv::die("nvshmem (module load)",
            "filling a CUDA module's device state failed (cudaError " + std::to_string(rc) + ")");
}

void nvshmem_init(void) {
  if (nv::init("nvshmem_init", [](const RuntimeOptions& o) { return Runtime::init(o); }) != 0)
    std::exit(1);
}

int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t* attr) {
  constexpr const char* op = "nvshmemx_init_attr";
  if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
    if (attr == nullptr || attr->args.uid_args.id == nullptr)
      return nv::invalid(op,
                         "NVSHMEMX_INIT_WITH_UNIQUEID without an id: call "
                         "nvshmemx_set_attr_uniqueid_args first");
    const nvshmemx_uniqueid_args_t& a = attr->args.uid_args;
    if (a.nranks < 1 || a.myrank < 0 || a.myrank >= a.nranks)
      return nv::invalid(op, "rank " + std::to_string(a.myrank) + " is not a PE of a job of " +
                                 std::to_string(a.nranks) + " (0 <= myrank < nranks)");
    UniqueId id;
    std::memcpy(id.bytes, a.id->internal, sizeof(a.id->internal));
    return nv::init(
        op, [&](const RuntimeOptions& o) { return Runtime::init(id, a.myrank, a.nranks, o); });
  }
  if (flags & NVSHMEMX_INIT_WITH_MPI_COMM) {
    if (attr == nullptr || attr->mpi_comm == nullptr)
      return nv::invalid(op,
                         "NVSHMEMX_INIT_WITH_MPI_COMM without attr->mpi_comm (the address of "
                         "an MPI_Comm)");
    return nv::init(op, [&](const RuntimeOptions& o) { return nv::join_mpi(attr->mpi_comm, o); });
  }
  if (flags & (NVSHMEMX_INIT_THREAD_PES | NVSHMEMX_INIT_WITH_SHMEM))
    return nv::invalid(op, "flags " + std::to_string(flags) +
                               ": NVSHMEMX_INIT_THREAD_PES and NVSHMEMX_INIT_WITH_SHMEM are not "
                               "supported (PEs as threads: Symmetra's C++ API)");
  return nv::init(op, [](const RuntimeOptions& o) { return Runtime::init(o); });
}

int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t* uniqueid) {
  constexpr const char* op = "nvshmemx_get_uniqueid";
  if (uniqueid == nullptr) return nv::invalid(op, "uniqueid is NULL");
  try {
    const UniqueId id = get_unique_id();
    const std::size_t len = strnlen(id.bytes, sizeof(id.bytes));
    if (len >= sizeof(uniqueid->internal))
      return nv::invalid(op, "the meeting point '" + std::string(id.bytes, len) +
                                 "' is longer than " +
                                 std::to_string(sizeof(uniqueid->internal) - 1) +
                                 " bytes (SYMMETRA_BOOTSTRAP_IFACE picks a shorter address)");
    std::memset(uniqueid->internal, 0, sizeof(uniqueid->internal));
    std::memcpy(uniqueid->internal, id.bytes, len);
    uniqueid->version = (1 << 16) + static_cast<int>(sizeof(nvshmemx_uniqueid_t));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", op, e.what());
    return NVSHMEMX_ERROR_INTERNAL;
  }
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                    const nvshmemx_uniqueid_t* uniqueid,
                                    nvshmemx_init_attr_t* attr) {
  if (uniqueid == nullptr || attr == nullptr)
    return nv::invalid("nvshmemx_set_attr_uniqueid_args", "uniqueid or attr is NULL");
  attr->args.uid_args.id = const_cast<nvshmemx_uniqueid_t*>(uniqueid);
  attr->args.uid_args.myrank = myrank;
  attr->args.uid_args.nranks = nranks;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_set_attr_mpi_comm_args(void* mpi_comm, nvshmemx_init_attr_t* attr) {
  if (mpi_comm == nullptr || attr == nullptr)
    return nv::invalid("nvshmemx_set_attr_mpi_comm_args", "mpi_comm or attr is NULL");
  attr->mpi_comm = mpi_comm;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t* attr) {
  return nvshmemx_init_attr(flags, attr);
}
void nvshmemx_hostlib_finalize(void) {
  nvshmem_finalize();
}

void nvshmem_finalize(void) {
  if (nv::g_init_count == 0 || --nv::g_init_count > 0) return;
  nv::guarded("nvshmem_finalize", [&] { nv::rt("nvshmem_finalize").finalize(); });
  nv::g_rt.reset();
}

int nvshmemx_init_status(void) {
  return nv::g_rt ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

void nvshmem_info_get_version(int* major, int* minor) {
  if (major) *major = NVSHMEM_MAJOR_VERSION;
  if (minor) *minor = NVSHMEM_MINOR_VERSION;
}

void nvshmem_info_get_name(char* name) {
  if (name) std::snprintf(name, NVSHMEM_MAX_NAME_LEN, "%s", NVSHMEM_VENDOR_STRING);
}

int nvshmem_init_thread(int requested, int* provided) {
  if (requested < NVSHMEM_THREAD_SINGLE || requested > NVSHMEM_THREAD_MULTIPLE) return 1;
  nvshmem_init();
  nvshmem_query_thread(provided);
  return 0;
}

// The CPU backend serves calls from several threads at once; the GPU backend's host forms share
// a view of the device heap that growth rewrites, one thread at a time (as shmem_query_thread).
void nvshmem_query_thread(int* provided) {
  if (provided == nullptr) return;
  *provided = nv::g_rt && nv::g_rt->on_gpu() ? NVSHMEM_THREAD_SERIALIZED : NVSHMEM_THREAD_MULTIPLE;
}

}  // extern "C"

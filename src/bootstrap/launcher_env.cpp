#include "bootstrap/launcher_env.hpp"

#include <unistd.h>

#include <cstdlib>

namespace symmetra::detail {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

Result<int> env_int(const char* name) {
  const char* v = env(name);
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || x < 0 || x > (1 << 24))
    return Status::fail(std::string("environment variable ") + name + "='" + v +
                        "' is not a valid number");
  return static_cast<int>(x);
}

// A name every PE of one job on one host computes alike, for an abstract Unix socket.
std::string local_job_name(const char* id_var) {
  const char* id = id_var != nullptr ? env(id_var) : nullptr;
  // The launcher's daemon is every local PE's parent, so its pid names the job on this host.
  return std::string("unix:symmetra-") + (id != nullptr ? id : std::to_string(getppid()));
}

Status fill(LaunchInfo* info, const char* rank_var, const char* size_var) {
  auto rank = env_int(rank_var);
  SYMMETRA_TRY(rank);
  auto size = env_int(size_var);
  SYMMETRA_TRY(size);
  if (size.value() < 1 || rank.value() >= size.value())
    return Status::fail(std::string(rank_var) + "=" + std::to_string(rank.value()) +
                        " does not fit " + size_var + "=" + std::to_string(size.value()));
  info->rank = rank.value();
  info->size = size.value();
  return {};
}

// How many of the job's PEs run on this host, where the launcher says it (-1: it does not), and
// from which variable.
Result<int> local_size(const LaunchInfo& info, std::string* from) {
  if (info.launcher == "slurm") {  // nodes of the step; tasks per node need not be even
    for (const char* v : {"SLURM_STEP_NUM_NODES", "SLURM_NNODES"}) {
      if (env(v) == nullptr) continue;
      auto nodes = env_int(v);
      SYMMETRA_TRY(nodes);
      *from = std::string(v) + "=" + env(v);
      return nodes.value() > 1 ? 0 : info.size;  // 0: fewer than all
    }
    return -1;
  }
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "LOCAL_WORLD_SIZE"}) {
    if (env(v) == nullptr) continue;
    auto n = env_int(v);
    SYMMETRA_TRY(n);
    *from = std::string(v) + "=" + env(v);
    return n.value();
  }
  return -1;
}

// PEs of several hosts meet over TCP (SYMMETRA_BOOTSTRAP=tcp:..., torchrun's MASTER_ADDR, or an
// address that PE 0 shares through the launcher's PMIx server); a Unix socket is one host's.
// A job that spans hosts with only a Unix address and no PMIx server fails at once, with the
// launcher's own word for it, instead of waiting the whole timeout for a socket that no PE of
// this host will ever open.
Status check_reachable(LaunchInfo* info) {
  if (info->address.rfind("tcp:", 0) == 0 || info->address == "pmix") return {};
  std::string from;
  auto local = local_size(*info, &from);
  SYMMETRA_TRY(local);
  if (local.value() < 0 || local.value() >= info->size) return {};
  if (env("PMIX_RANK") != nullptr) {  // mpirun, srun --mpi=pmix: PE 0 shares a TCP address
    info->address = "pmix";
    return {};
  }
  return Status::fail("[pe " + std::to_string(info->rank) + "] this job of " +
                      std::to_string(info->size) + " PEs spans more than one host (" + from +
                      "), and its PEs meet on a Unix socket, which only one host reaches, with no "
                      "PMIx server to share another place: set "
                      "SYMMETRA_BOOTSTRAP=tcp:<address of PE 0's host>:<free port> and "
                      "SYMMETRA_SECRET=<one random value> on every PE (docs/configuration.md)");
}

}  // namespace

// The launcher's local rank, the first of its variables that is set (launcher_env.hpp).
static Status read_local_rank(LaunchInfo* info) {
  for (const char* v : {"SYMMETRA_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                        "SLURM_LOCALID", "LOCAL_RANK"}) {
    if (env(v) == nullptr) continue;
    auto r = env_int(v);
    SYMMETRA_TRY(r);
    if (r.value() < 0 || r.value() >= info->size)
      return Status::fail(std::string(v) + "=" + env(v) + " is not a local rank of a job of " +
                          std::to_string(info->size) + " PEs");
    info->local_rank = r.value();
    return {};
  }
  return {};
}

Result<LaunchInfo> launch_info_from_env() {
  LaunchInfo info;
  if (env("SYMMETRA_RANK") != nullptr) {
    info.launcher = "symrun";
    SYMMETRA_TRY(fill(&info, "SYMMETRA_RANK", "SYMMETRA_SIZE"));
    if (env("SYMMETRA_BOOTSTRAP") == nullptr)
      return Status::fail(
          "SYMMETRA_RANK is set but SYMMETRA_BOOTSTRAP is not: start PEs with symrun");
    info.address = env("SYMMETRA_BOOTSTRAP");
    SYMMETRA_TRY(read_local_rank(&info));
    // symrun hosts the rendezvous itself, over TCP too (symrun --rendezvous tcp, the PEs meeting
    // as on separate machines), and says so; a TCP address without that word (an older symrun,
    // or a launcher setting symrun's variables) is PE 0's to host, as under the other launchers.
    info.host_server = info.rank == 0 && info.address.rfind("tcp:", 0) == 0 &&
                       env("SYMMETRA_RENDEZVOUS_HOSTED") == nullptr;
    return info;
  }
  if (env("OMPI_COMM_WORLD_RANK") != nullptr) {
    info.launcher = "mpi";
    SYMMETRA_TRY(fill(&info, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"));
    info.address = local_job_name("OMPI_MCA_ess_base_jobid");
  } else if (env("PMI_RANK") != nullptr) {
    info.launcher = "mpi";
    SYMMETRA_TRY(fill(&info, "PMI_RANK", "PMI_SIZE"));
    info.address = local_job_name(nullptr);
  } else if (env("SLURM_PROCID") != nullptr && env("SLURM_NTASKS") != nullptr) {
    info.launcher = "slurm";
    SYMMETRA_TRY(fill(&info, "SLURM_PROCID", "SLURM_NTASKS"));
    const std::string step = std::string(env("SLURM_JOB_ID") ? env("SLURM_JOB_ID") : "0") + "." +
                             (env("SLURM_STEP_ID") ? env("SLURM_STEP_ID") : "0");
    info.address = "unix:symmetra-slurm-" + step;
  } else if (env("RANK") != nullptr && env("WORLD_SIZE") != nullptr) {
    info.launcher = "torchrun";
    SYMMETRA_TRY(fill(&info, "RANK", "WORLD_SIZE"));
    const char* addr = env("MASTER_ADDR");
    if (addr == nullptr || env("MASTER_PORT") == nullptr)
      return Status::fail("torchrun environment without MASTER_ADDR/MASTER_PORT");
    auto port = env_int("MASTER_PORT");
    SYMMETRA_TRY(port);
    // torchrun's own store listens on MASTER_PORT; Symmetra's rendezvous takes the next port.
    // Every PE on this host (LOCAL_WORLD_SIZE == WORLD_SIZE): a Unix socket named after that
    // port, where the kernel vouches for each peer's uid; else TCP, which needs the job's secret.
    const char* local = env("LOCAL_WORLD_SIZE");
    if (local != nullptr && std::string(local) == env("WORLD_SIZE")) {
      info.address = "unix:symmetra-torchrun-" + std::to_string(getuid()) + "-" +
                     std::to_string(port.value() + 1);
    } else {
      info.address = "tcp:" + std::string(addr) + ":" + std::to_string(port.value() + 1);
    }
  } else {
    return info;  // a job of one PE
  }
  if (env("SYMMETRA_BOOTSTRAP") != nullptr) info.address = env("SYMMETRA_BOOTSTRAP");
  info.host_server = info.rank == 0;
  SYMMETRA_TRY(read_local_rank(&info));
  SYMMETRA_TRY(check_reachable(&info));
  return info;
}

}  // namespace symmetra::detail

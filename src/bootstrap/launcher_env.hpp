// Reads who started this process and how its PEs meet (docs/design.md §1.7).
//
// Recognized, in this order: symrun (SYMMETRA_RANK, SYMMETRA_SIZE, SYMMETRA_BOOTSTRAP); Open MPI
// or MPICH/Hydra (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE); Slurm (SLURM_PROCID,
// SLURM_NTASKS); torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT). None: a job of one PE.
// SYMMETRA_BOOTSTRAP=unix:<name>|tcp:<host>:<port>|pmix overrides the meeting point everywhere.
#pragma once

#include <string>

#include "symmetra/error.hpp"

namespace symmetra::detail {

struct LaunchInfo {
  int rank = 0;
  int size = 1;
  std::string launcher = "none";  // symrun, mpi, slurm, torchrun, none
  // Rendezvous address (unix:..., tcp:...), "pmix" where PE 0 shares a TCP one through the
  // launcher's PMIx server (pmix_rendezvous.hpp); empty for a job of one PE.
  std::string address;
  bool host_server = false;  // this process (PE 0) hosts the rendezvous server
  // PE 0 hosts the job's rendezvous (every launcher but symrun over a Unix socket).
  bool pe0_hosts() const { return launcher != "symrun" || address.rfind("tcp:", 0) == 0; }
  // This process's number among the PEs of its host, where the launcher says it (symrun:
  // SYMMETRA_LOCAL_RANK; Open MPI: OMPI_COMM_WORLD_LOCAL_RANK; MPICH: MPI_LOCALRANKID; Slurm:
  // SLURM_LOCALID; torchrun: LOCAL_RANK), else -1. The GPU backend picks the GPU from it.
  int local_rank = -1;
};

Result<LaunchInfo> launch_info_from_env();

}  // namespace symmetra::detail

// Where a job across hosts meets when its launcher is a PMIx server (Open MPI's mpirun,
// srun --mpi=pmix) and SYMMETRA_BOOTSTRAP names no place: PE 0 listens on TCP at an address of
// its host (socket.hpp's host_address) and makes up the job's secret, and both reach every PE
// through PMIx (the plugin libsymmetra_bootstrap_pmix.so, loaded only here). PMIx is the
// launcher's own channel between its processes, so the secret never crosses the network in the
// clear, and the rendezvous admits only PEs that prove it (join.hpp).
// Threads: once per process, from the thread that joins the job.
#pragma once

#include <string>

#include "symmetra/error.hpp"

namespace symmetra::detail {

struct PmixRendezvous {
  std::string address;  // tcp:host:port
  std::string secret;
  int listen_fd = -1;  // PE 0: the socket already listening there, for the rendezvous server
};

// Collective over the job's processes (a PMIx fence), bounded by timeout_ms.
Result<PmixRendezvous> pmix_rendezvous(int rank, int size, int timeout_ms);

}  // namespace symmetra::detail

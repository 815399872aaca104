// symmetra::global_exit (global_exit.hpp): the end of the whole job from one PE, shared by the C
// APIs (shmem_global_exit, nvshmem_global_exit).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "symmetra/global_exit.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

// This PE tells symrun (a queued signal carrying the status, which makes symrun end the others
// and return it), marks the job as ended in every heap so that PEs in a wait stop, and exits.
// Only a parent that is symrun gets the signal (symrun exports its pid): under mpirun or srun the
// parent is a daemon that SIGUSR1 would end, and those launchers end the job themselves when a
// PE exits non-zero.
void global_exit(Runtime* rt, int status) {
  std::fflush(nullptr);
  const char* launcher = std::getenv("SYMMETRA_LAUNCHER_PID");
  if (launcher != nullptr && std::strtol(launcher, nullptr, 10) == static_cast<long>(getppid())) {
    sigval v{};
    v.sival_int = status;
    sigqueue(getppid(), SIGUSR1, v);
  }
  if (rt != nullptr) rt->mark_failed(Runtime::Stop::kExit);
  _exit(status);
}

}  // namespace symmetra

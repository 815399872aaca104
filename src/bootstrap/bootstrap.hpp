// How the PEs of a job find each other before the heap exists (docs/design.md §1.3, §1.7).
//
// Setup-time only: exchange of small blobs, a barrier, and fd passing between processes of one
// host. Implementations: SocketBootstrap (PEs as processes, star around a rendezvous server) and
// ThreadBootstrap (PEs as threads of one process). Threads: one PE calls its own instance.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symmetra/error.hpp"

namespace symmetra::detail {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // True when all PEs share this process's address space (PEs as threads).
  virtual bool threads() const = 0;
  // Every PE contributes `bytes` (the same count everywhere); `out` receives size() * bytes in
  // rank order. Collective.
  virtual Status allgather(const void* in, void* out, std::size_t bytes) = 0;
  // Every PE contributes one fd; `out` receives size() fds in rank order, owned by the caller.
  // Processes of one host only. Collective.
  virtual Status allgather_fds(int fd, std::vector<int>* out) = 0;
  // PE `root` contributes `fd` (the others pass -1); every PE, root included, receives a copy
  // of it, owned by the caller. One fd per PE, so joining a job of n PEs costs O(n) fds, not
  // O(n^2). Processes of one host only. Collective.
  virtual Result<int> broadcast_fd(int root, int fd) = 0;
  // Leaves the job cleanly; after it, a disconnect is not a failure.
  virtual void finalize() {}
  // Leaves without a goodbye, for a process ending without finalize (exit(), a return from
  // main): the rendezvous takes it as lost and stops the job, naming this PE.
  virtual void leave() {}
  // Calls on_lost(pe, left) once, from a thread of its own, if the job stops while this PE runs:
  // the rendezvous says PE `pe` is lost (`left`: it said it was ending without finalize), or the
  // rendezvous itself is gone (pe: the PE that hosted it, -1 for symrun). unwatch() stops it;
  // call it before finalize and leave. Processes only (PEs as threads stop each other through
  // the heap marks).
  virtual void watch(std::function<void(int pe, bool left)> /*on_lost*/) {}
  virtual void unwatch() {}
  // Runs `release` once every PE of the job is done with shared process state (PEs as threads:
  // when the last thread left); returns false if this bootstrap has no such moment (processes).
  virtual bool defer_release(std::function<void()> /*release*/) { return false; }
  // The PEs of this job whose `color` equals this PE's, as a job of their own: ranks in the
  // order of this job's, and fd exchange among them (the PEs of one host, which share a heap
  // mapping). Processes meet on a Unix socket of the group's own, hosted by its first PE, so
  // its members must share a network namespace or a file system (abstract names or paths, as
  // this job's address is). Collective over this job; destroy the group before this job.
  virtual Result<std::unique_ptr<Bootstrap>> split(int color) = 0;

  Status barrier() { return allgather(nullptr, nullptr, 0); }
  // This PE's number in the whole job, for messages: rank(), but in a group made by split()
  // the rank in the job it was split from.
  int pe() const { return pe_ >= 0 ? pe_ : rank(); }

 protected:
  int pe_ = -1;  // set by split() on the groups it makes
};

// Starts the bootstrap for a process-mode PE from the launcher's environment (symrun, mpirun,
// Slurm, torchrun); see launcher_env.hpp.
Result<std::unique_ptr<Bootstrap>> bootstrap_from_env();

// A job's meeting point as text, for programs that start their PEs themselves and can pass bytes
// between them (a framework's store, MPI_Bcast), as NCCL's unique id: "tcp:<host>:<port>
// <secret>". This process listens there from now on, and its bootstrap_from_unique_id as PE 0
// hosts the rendezvous on that socket; the secret admits only PEs that were given the id. Not
// collective. Threads: any.
Result<std::string> new_unique_id();
// Joins the job that `id` names as PE `rank` of `size`; PE 0 must be the process that made the
// id. Collective over the job's PEs, bounded by SYMMETRA_TIMEOUT_S.
Result<std::unique_ptr<Bootstrap>> bootstrap_from_unique_id(const std::string& id, int rank,
                                                            int size);

}  // namespace symmetra::detail

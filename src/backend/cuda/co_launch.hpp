// Launching a collective's kernels together, for PEs that share a GPU as threads of one process.
//
// Why: a stream-ordered collective is a kernel per PE that waits for the other PEs' kernels. CUDA
// feeds the streams of a context to the GPU through a few hardware queues (8 by default,
// CUDA_DEVICE_MAX_CONNECTIONS, at most 32), and several streams can share one. When PE A's
// collective kernel waits in a queue and A's next work (say a kernel reading the result) sits
// behind it, that next work holds the queue: whatever sits behind it waits too. If PE B's kernel
// of the same collective is behind it, the two wait for each other forever. Measured on the H200
// (docs/gpu_backend.md): with CUDA_DEVICE_MAX_CONNECTIONS=1 every run of the stream-form test
// deadlocked at its first call; with 8 or 32 queues, one run in 2-6.
//
// The cure: none of a PE's later work is enqueued before every co-located PE's kernel of the same
// call is. Each PE joins the call's batch; once all have joined (so all their earlier work is
// enqueued), each launches its own kernel into its own stream; once all have launched, all
// return. Any queue then holds the call's kernels ahead of anything that waits for them. Only
// the co-located members of the call's team join; members on other GPUs run their own batch.
// The waits spin (PE threads are few and a collective call is microseconds apart), bounded.
// Measured on the H200, 4 PEs, stream-form all-reduce back to back: about 20 us per call this
// way; 35 us when the last joiner launched every member's kernel itself (launches into several
// streams from one thread are slower than one launch per thread), 40 us with a condition
// variable instead of spinning (docs/gpu_backend.md).
//
// Threads: any PE thread, each for its own PE.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace symmetra::detail {

class CoLaunch {
 public:
  using Launch = std::function<int()>;  // enqueues the kernel; returns its cudaError_t

  // Identifies one call on one GPU: the team's slot and first PE (disjoint teams may share a
  // slot), and this PE's count of calls on the slot since the team was made.
  struct Key {
    int device, slot, first;
    std::uint64_t seq;
    bool operator<(const Key& o) const {
      return std::tie(device, slot, first, seq) < std::tie(o.device, o.slot, o.first, o.seq);
    }
  };

  // Joins `pe`'s launch to the batch `key`, which `members` (PE numbers, `pe` among them) make;
  // runs `launch` once all joined and returns its cudaError_t once all launched. If some member
  // did not come within timeout_ns, returns -1 with the missing PEs in `missing`.
  int join(const Key& key, const std::vector<int>& members, int pe, const Launch& launch,
           std::uint64_t timeout_ns, std::string* missing);

 private:
  struct Batch {
    std::vector<int> pes;  // who joined, under mu_
    std::atomic<int> joined{0}, launched{0};
  };
  std::mutex mu_;
  std::map<Key, std::shared_ptr<Batch>> open_;  // batches still waiting for members
};

}  // namespace symmetra::detail

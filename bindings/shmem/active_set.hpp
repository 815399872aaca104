// The deprecated active-set collectives' common part (OpenSHMEM 1.4 and before): the set
// {PE_start + k * 2^logPE_stride, k < PE_size}, a synchronization through the caller's pSync
// array, and pSync restored to SHMEM_SYNC_VALUE before the call returns (so the same array
// serves the next call).
//
// Only the set's members call, so no Runtime team can be made for it (team creation is
// collective over the parent). The synchronization is a central counter on the set's first PE:
// pSync[0] there counts arrivals, pSync[1] on each member is its release flag. O(set size); a set
// of every PE uses the world team's dissemination sync instead.
#pragma once

#include <string>

#include "bindings/shmem/state.hpp"

#pragma GCC visibility push(hidden)  // internal to libsymmetra_shmem, as state.hpp's names

namespace symmetra::shmem {

class ActiveSet {
 public:
  ActiveSet(Runtime& r, int start, int log_stride, int size, long* psync, const char* op)
      : r_(r),
        start_(start),
        stride_(1 << log_stride),
        size_(size),
        psync_(reinterpret_cast<std::int64_t*>(psync)),
        op_(op) {
    if (size < 1 || log_stride < 0 || log_stride > 30 || start < 0 ||
        start + (size - 1) * stride_ >= r.n_pes())
      die(op, "the active set (PE_start " + std::to_string(start) + ", logPE_stride " +
                  std::to_string(log_stride) + ", PE_size " + std::to_string(size) +
                  ") does not fit in " + std::to_string(r.n_pes()) + " PEs");
    const int rel = r.my_pe() - start;
    if (rel < 0 || rel % stride_ != 0 || rel / stride_ >= size)
      die(op, "this PE is not in the active set it called with");
    me_ = rel / stride_;
    if (!r.is_symmetric(psync))
      die(op, "pSync is not symmetric (allocate it with shmem_malloc or make it static)");
  }

  int size() const { return size_; }
  // The set is every PE: the world team's algorithms serve it, and pSync is not touched.
  bool world() const { return start_ == 0 && stride_ == 1 && size_ == r_.n_pes(); }
  int rank() const { return me_; }
  int pe(int k) const { return start_ + k * stride_; }

  // Every member has arrived; pSync words it uses are back to SHMEM_SYNC_VALUE on return.
  void sync() {
    if (size_ == 1) return;
    if (world()) return r_.sync_all();
    const int root = pe(0);
    if (me_ == 0) {
      r_.wait_until(&psync_[0], Cmp::kEq, static_cast<std::int64_t>(size_ - 1));
      // Restored before anyone is released, so the next call's arrivals count afresh.
      r_.atomic_set(&psync_[0], std::int64_t{0}, r_.my_pe());
      r_.quiet();
      for (int k = 1; k < size_; ++k) r_.atomic_set(&psync_[1], std::int64_t{1}, pe(k));
    } else {
      r_.atomic_add(&psync_[0], std::int64_t{1}, root);
      r_.wait_until(&psync_[1], Cmp::kNe, std::int64_t{0});
      r_.atomic_set(&psync_[1], std::int64_t{0}, r_.my_pe());
    }
  }

  // pSync[2] of every member: the one word a collective may publish (collect's counts).
  std::int64_t* word() { return &psync_[2]; }

 private:
  Runtime& r_;
  int start_, stride_, size_;
  std::int64_t* psync_;
  const char* op_;
  int me_ = 0;
};

}  // namespace symmetra::shmem

#pragma GCC visibility pop

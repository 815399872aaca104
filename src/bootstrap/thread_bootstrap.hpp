// Bootstrap for PEs that are threads of one process (symmetra::launch_threads).
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace symmetra::detail {

// State shared by the threads of one job. Two buffers alternate between consecutive collectives:
// a thread cannot start collective k+2 before every thread finished copying out collective k.
class ThreadJob {
 public:
  ThreadJob(int n, int timeout_ms) : n_(n), timeout_ms_(timeout_ms) {}
  int size() const { return n_; }
  Status allgather(int rank, const void* in, void* out, std::size_t bytes);
  // Makes every pending and later collective fail with `why` (a PE thread failed), in the
  // groups split from this job too.
  void fail(const std::string& why);
  // The job of split number `seq` (counted per PE, so alike on all) for `color`, of `size`
  // threads: made by the first of its members to ask. It lives as long as this job, so that
  // what its members defer (a group's heap mapping) is released with the whole job's.
  std::shared_ptr<ThreadJob> group(std::uint64_t seq, int color, int size);
  void defer_release(std::function<void()> release) {
    std::lock_guard<std::mutex> lock(m_);
    releases_.push_back(std::move(release));
  }
  ~ThreadJob() {
    for (auto& r : releases_) r();
  }

 private:
  int n_;
  int timeout_ms_;
  std::mutex m_;
  std::condition_variable cv_;
  std::uint64_t generation_ = 0;
  int arrived_ = 0;
  std::vector<char> buf_[2];
  std::string failed_;
  std::vector<std::function<void()>> releases_;
  std::map<std::pair<std::uint64_t, int>, std::shared_ptr<ThreadJob>> groups_;
};

class ThreadBootstrap final : public Bootstrap {
 public:
  ThreadBootstrap(std::shared_ptr<ThreadJob> job, int rank) : job_(std::move(job)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return job_->size(); }
  bool threads() const override { return true; }
  Status allgather(const void* in, void* out, std::size_t bytes) override {
    return job_->allgather(rank_, in, out, bytes);
  }
  bool defer_release(std::function<void()> release) override {
    job_->defer_release(std::move(release));
    return true;
  }
  Status allgather_fds(int, std::vector<int>*) override {
    return Status::fail("fd exchange is not needed between threads");
  }
  Result<int> broadcast_fd(int, int) override {
    return Status::fail("fd exchange is not needed between threads");
  }
  Result<std::unique_ptr<Bootstrap>> split(int color) override;

 private:
  std::shared_ptr<ThreadJob> job_;
  int rank_;
  std::uint64_t splits_ = 0;
};

}  // namespace symmetra::detail

#include "bootstrap/thread_bootstrap.hpp"

#include <chrono>
#include <cstring>

namespace symmetra::detail {

Status ThreadJob::allgather(int rank, const void* in, void* out, std::size_t bytes) {
  std::unique_lock<std::mutex> lock(m_);
  if (!failed_.empty()) return Status::fail(failed_);
  const std::uint64_t gen = generation_;
  std::vector<char>& buf = buf_[gen & 1];
  if (arrived_ == 0) buf.assign(bytes * static_cast<std::size_t>(n_), 0);
  if (buf.size() != bytes * static_cast<std::size_t>(n_))
    return Status::fail("PEs called different bootstrap collectives");
  if (bytes != 0) std::memcpy(buf.data() + bytes * static_cast<std::size_t>(rank), in, bytes);
  if (++arrived_ == n_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    const bool done = cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms_),
                                   [&] { return generation_ != gen || !failed_.empty(); });
    if (!failed_.empty()) return Status::fail(failed_);
    if (!done)
      return Status::fail(
          "timed out after " + std::to_string(timeout_ms_ / 1000) +
          " s waiting for the other PE threads (SYMMETRA_TIMEOUT_S sets the bound)");
  }
  if (bytes != 0) std::memcpy(out, buf.data(), buf.size());
  return {};
}

void ThreadJob::fail(const std::string& why) {
  std::vector<std::shared_ptr<ThreadJob>> groups;
  {
    std::lock_guard<std::mutex> lock(m_);
    if (failed_.empty()) failed_ = why;
    cv_.notify_all();
    for (auto& [key, g] : groups_) groups.push_back(g);
  }
  for (auto& g : groups) g->fail(why);  // outside m_: a group never locks its parent
}

std::shared_ptr<ThreadJob> ThreadJob::group(std::uint64_t seq, int color, int size) {
  std::lock_guard<std::mutex> lock(m_);
  auto& g = groups_[{seq, color}];
  if (!g) {
    g = std::make_shared<ThreadJob>(size, timeout_ms_);
    if (!failed_.empty()) g->failed_ = failed_;
  }
  return g;
}

Result<std::unique_ptr<Bootstrap>> ThreadBootstrap::split(int color) {
  std::vector<int> colors(static_cast<std::size_t>(size()));
  SYMMETRA_TRY(allgather(&color, colors.data(), sizeof(color)));
  int rank = 0, size = 0;
  for (int p = 0; p < static_cast<int>(colors.size()); ++p) {
    if (colors[static_cast<std::size_t>(p)] != color) continue;
    if (p < rank_) ++rank;
    ++size;
  }
  auto group = std::make_unique<ThreadBootstrap>(job_->group(splits_++, color, size), rank);
  group->pe_ = pe();
  return std::unique_ptr<Bootstrap>(std::move(group));
}

}  // namespace symmetra::detail

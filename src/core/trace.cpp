#include "core/trace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace symmetra::detail {
namespace {
constexpr std::size_t kFlushBytes = 64 << 10;
}  // namespace

Result<std::unique_ptr<TraceFile>> TraceFile::open(const std::string& path, int pe) {
  std::string name = path;
  for (std::size_t at; (at = name.find("%p")) != std::string::npos;)
    name.replace(at, 2, std::to_string(pe));
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::fail("SYMMETRA_TRACE: cannot open '" + name + "': " + std::strerror(errno));
  return std::unique_ptr<TraceFile>(new TraceFile(fd, pe));
}

TraceFile::~TraceFile() {
  flush();
  ::close(fd_);
}

void TraceFile::record(const char* op, int peer, int team, std::uint64_t bytes, const char* form,
                       const char* path, std::uint64_t start_ns, std::uint64_t ns) {
  char line[320];
  const int n = std::snprintf(
      line, sizeof(line),
      "{\"pe\":%d,\"op\":\"%s\",\"peer\":%d,\"team\":%d,\"bytes\":%llu,\"form\":\"%s\","
      "\"path\":\"%s\",\"start_us\":%.3f,\"us\":%.3f}\n",
      pe_, op, peer, team, static_cast<unsigned long long>(bytes), form, path, start_ns * 1e-3,
      ns * 1e-3);
  if (n <= 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  buffer_.append(line, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof(line) - 1));
  if (buffer_.size() >= kFlushBytes) write_locked();
}

void TraceFile::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  write_locked();
}

void TraceFile::write_locked() {
  // O_APPEND: each write lands at the end whole, after the other PEs' writes.
  const char* p = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;  // a full disk loses trace lines, never the job
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  buffer_.clear();
}

}  // namespace symmetra::detail

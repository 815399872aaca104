#include "core/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace symmetra::detail {
namespace {

LogLevel parse_level(const char* v, bool* unknown) {
  *unknown = false;
  if (v == nullptr || *v == '\0') return LogLevel::kWarn;
  const std::string s = v;
  if (s == "off" || s == "none" || s == "0") return LogLevel::kOff;
  if (s == "warn" || s == "warning") return LogLevel::kWarn;
  if (s == "info") return LogLevel::kInfo;
  if (s == "debug") return LogLevel::kDebug;
  *unknown = true;
  return LogLevel::kWarn;
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kWarn:
      return "warning";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
    default:
      return "";
  }
}

}  // namespace

LogLevel log_level() {
  static const LogLevel level = [] {
    bool unknown = false;
    const char* v = std::getenv("SYMMETRA_LOG");
    const LogLevel l = parse_level(v, &unknown);
    if (unknown)
      log_write(LogLevel::kWarn, -1,
                "SYMMETRA_LOG='%s' is not off, warn, info or debug: using warn", v);
    return l;
  }();
  return level;
}

void log_write(LogLevel level, int pe, const char* format, ...) {
  char line[1024];
  int n = pe >= 0
              ? std::snprintf(line, sizeof(line), "[pe %d] symmetra %s: ", pe, level_name(level))
              : std::snprintf(line, sizeof(line), "symmetra %s: ", level_name(level));
  va_list args;
  va_start(args, format);
  const int m = std::vsnprintf(line + n, sizeof(line) - n - 1, format, args);
  va_end(args);
  n = m < 0 ? n : std::min<int>(n + m, sizeof(line) - 2);
  line[n++] = '\n';
  // One write per line: stdio's buffer would split lines between threads and processes.
  (void)!::write(STDERR_FILENO, line, n);
}

}  // namespace symmetra::detail

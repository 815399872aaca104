// Logging: SYMMETRA_LOG=off|warn|info|debug (default warn), lines on stderr that name the PE:
//   [pe 3] symmetra info: joined a job of 8 PEs on 2 hosts ...
// What each level says is in docs/observability.md. Setup paths only: nothing on the data path
// logs (SYMMETRA_TRACE is for that).
//
// Threads: any thread; a line is one write, so lines of several threads or processes do not mix.
#pragma once

namespace symmetra::detail {

enum class LogLevel : int { kOff = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// The level SYMMETRA_LOG names, read once per process. An unknown value means warn, and says so
// once.
LogLevel log_level();
// One line at `level` for PE `pe` (-1: none yet), printf-style.
[[gnu::format(printf, 3, 4)]] void log_write(LogLevel level, int pe, const char* format, ...);

}  // namespace symmetra::detail

// Logs at `level` (kWarn, kInfo, kDebug); the arguments are evaluated only if the level is on.
#define SYMMETRA_LOG(level, pe, ...)                                                         \
  do {                                                                                       \
    if (::symmetra::detail::log_level() >= ::symmetra::detail::LogLevel::level)              \
      ::symmetra::detail::log_write(::symmetra::detail::LogLevel::level, (pe), __VA_ARGS__); \
  } while (0)

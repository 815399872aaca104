// Result rows of the benchmarks: JSON lines as they are measured, and a table at the end
// (docs/design.md §5: keys op, bytes, pes, form, backend, p50_us, p99_us, GBps).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace symmetra::bench {

struct Row {
  std::string op;
  std::size_t bytes;
  int pes;
  std::string form;
  std::string backend;
  double p50_us;
  double p99_us;
  double gbps;  // 0 where bandwidth means nothing (latency rows)
};

// from, from * factor, ... up to `to`, and `to` itself when the steps miss it (8 B by 4 ends at
// 32 MiB; the issues ask for 64).
inline std::vector<std::size_t> sizes(std::size_t from, std::size_t to, std::size_t factor) {
  std::vector<std::size_t> v;
  for (std::size_t b = from; b <= to; b *= factor) v.push_back(b);
  if (v.empty() || v.back() != to) v.push_back(to);
  return v;
}

inline double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Puts this CPU in the same state before every row: BENCH_SETTLE_MS (default 10, 0 = off) of
// 32 KiB copies between two private buffers. The 2-core KVM guest copies faster for a few ms
// after its core idled than under sustained copying (docs/perf_cpu.md#measuring-on-this-vm).
// Without this, a row that follows one in which the core idled
// (Open MPI's OSHMEM waits off the CPU on its static-data rows) runs in the faster state, and the
// comparison measures the previous row. bench/oshmem/oshmem_perf.c does the same.
inline void settle() {
  static const double ms = [] {
    const char* e = std::getenv("BENCH_SETTLE_MS");
    return e != nullptr ? std::atof(e) : 10.0;
  }();
  if (ms <= 0) return;
  static std::vector<char> from(32768, 1), to(32768);
  const double end = now_us() + ms * 1e3;
  while (now_us() < end) {
    std::memcpy(to.data(), from.data(), from.size());
    asm volatile("" : : "r"(to.data()) : "memory");  // keep the copy
  }
}

// Runs `op` `per_batch` times per sample, then `finish` (inside the timing: the quiet that
// completes a batch of nbi operations), after settle(); returns per-operation times (us) of
// `batches` samples.
inline std::vector<double> sample(
    int batches, int per_batch, const std::function<void()>& op,
    const std::function<void()>& finish = [] {}) {
  settle();
  for (int i = 0; i < per_batch; ++i) op();  // warm-up
  finish();
  std::vector<double> us;
  for (int b = 0; b < batches; ++b) {
    const double t0 = now_us();
    for (int i = 0; i < per_batch; ++i) op();
    finish();
    us.push_back((now_us() - t0) / per_batch);
  }
  return us;
}

// Median and 99th percentile of per-operation times in microseconds.
inline void percentiles(std::vector<double> us, double* p50, double* p99) {
  std::sort(us.begin(), us.end());
  *p50 = us[us.size() / 2];
  *p99 = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}

class Report {
 public:
  void add(Row r) {
    std::printf(
        "{\"op\":\"%s\",\"bytes\":%zu,\"pes\":%d,\"form\":\"%s\",\"backend\":\"%s\","
        "\"p50_us\":%.4f,\"p99_us\":%.4f,\"GBps\":%.4f}\n",
        r.op.c_str(), r.bytes, r.pes, r.form.c_str(), r.backend.c_str(), r.p50_us, r.p99_us,
        r.gbps);
    std::fflush(stdout);
    rows_.push_back(std::move(r));
  }
  void table() const {
    std::printf("\n%-22s %10s %5s %10s %10s %9s\n", "op", "bytes", "pes", "p50 us", "p99 us",
                "GB/s");
    for (const Row& r : rows_) {
      std::printf("%-22s %10zu %5d %10.3f %10.3f ", r.op.c_str(), r.bytes, r.pes, r.p50_us,
                  r.p99_us);
      if (r.gbps > 0) {
        std::printf("%9.2f\n", r.gbps);
      } else {
        std::printf("%9s\n", "-");
      }
    }
    std::fflush(stdout);
  }

 private:
  std::vector<Row> rows_;
};

}  // namespace symmetra::bench

/* oshmem_perf: the measurements of symmetra-perf written in plain OpenSHMEM 1.4+, so that any
 * implementation (Open MPI's OSHMEM via oshcc, Symmetra via symcc) runs the same source.
 * Output: JSON lines with the same keys as symmetra-perf; backend from argv[1] (default oshmem).
 *   oshrun -n 4 ./oshmem_perf [backend] [--quick]
 * Results are printed and flushed before shmem_finalize. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* backend = "oshmem";
static int npes;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* settle() in bench/perf_report.hpp, the same here: BENCH_SETTLE_MS (default 10, 0 = off) of
 * 32 KiB copies before every row, so that no row runs in the faster state this machine's core
 * reaches after idling (docs/perf_cpu.md#measuring-on-this-vm) because the row before it idled. */
static void settle(void) {
  static double ms = -1;
  static char from[32768], to[32768];
  if (ms < 0) ms = getenv("BENCH_SETTLE_MS") ? atof(getenv("BENCH_SETTLE_MS")) : 10.0;
  if (ms <= 0) return;
  double end = now_us() + ms * 1e3;
  while (now_us() < end) {
    memcpy(to, from, sizeof(to));
    __asm__ volatile("" : : "r"(to) : "memory"); /* keep the copy */
  }
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void emit(const char* op, size_t bytes, int pes, double* us, int n, int bandwidth) {
  qsort(us, (size_t)n, sizeof(double), cmp_double);
  double p50 = us[n / 2], p99 = us[(n * 99 / 100) < n - 1 ? n * 99 / 100 : n - 1];
  printf(
      "{\"op\":\"%s\",\"bytes\":%zu,\"pes\":%d,\"form\":\"host\",\"backend\":\"%s\","
      "\"p50_us\":%.4f,\"p99_us\":%.4f,\"GBps\":%.4f}\n",
      op, bytes, pes, backend, p50, p99, bandwidth ? bytes / (p50 * 1e3) : 0.0);
  fflush(stdout);
}

enum {
  kPutLat,
  kPutBw,
  kGetLat,
  kGetBw,
  kP,
  kFadd,
  kBarrier,
  kPutStatic,
  kGetStatic,
  kPutAligned,
  kGetAligned
};
/* Static (global) data is symmetric too: the same transfers on it, up to its size. */
#define STATIC_BYTES (64 * 1024)
static char static_buf[STATIC_BYTES];

static char* buf;
static char* local;
/* The same transfers between page-aligned buffers (shmem_align, aligned_alloc), as the OSU
 * benchmarks place theirs: `local` comes from malloc, 16 bytes into a cache line, and a heap
 * block's own offset in its line (0 for Symmetra, 16 for Open MPI's OSHMEM) then decides whether
 * every load of a copy splits two lines, a 5-10% difference from 32 KiB up that says nothing
 * about the transport (docs/perf_cpu.md#copies). */
static char* buf_aligned;
static char* local_aligned;
static long* word;
static long* pset_sync;

static void op_once(int op, size_t bytes) {
  switch (op) {
    case kPutLat:
      shmem_putmem(buf, local, bytes, 1);
      shmem_quiet();
      break;
    case kPutBw:
      shmem_putmem_nbi(buf, local, bytes, 1);
      break;
    case kGetLat:
      shmem_getmem(local, buf, bytes, 1);
      break;
    case kGetBw:
      shmem_getmem_nbi(local, buf, bytes, 1);
      break;
    case kP:
      shmem_long_p(word, 1, 1);
      shmem_quiet();
      break;
    case kFadd:
      (void)shmem_long_atomic_fetch_add(word, 1, 1);
      break;
    case kPutStatic:
      shmem_putmem(static_buf, local, bytes, 1);
      shmem_quiet();
      break;
    case kGetStatic:
      shmem_getmem(local, static_buf, bytes, 1);
      break;
    case kPutAligned:
      shmem_putmem(buf_aligned, local_aligned, bytes, 1);
      shmem_quiet();
      break;
    case kGetAligned:
      shmem_getmem(local_aligned, buf_aligned, bytes, 1);
      break;
  }
}

static void measure(const char* name, int op, size_t bytes, int batches, int per, int bandwidth) {
  double us[64];
  settle();
  for (int i = 0; i < per; ++i) op_once(op, bytes);
  for (int b = 0; b < batches; ++b) {
    double t0 = now_us();
    for (int i = 0; i < per; ++i) op_once(op, bytes);
    if (op == kPutBw || op == kGetBw) shmem_quiet();
    us[b] = (now_us() - t0) / per;
  }
  emit(name, bytes, npes, us, batches, bandwidth);
}

int main(int argc, char** argv) {
  int quick = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else
      backend = argv[i];
  }
  shmem_init();
  int me = shmem_my_pe();
  npes = shmem_n_pes();
  size_t max_bytes = quick ? (1u << 20) : (4u << 20);
  int batches = quick ? 5 : 21;
  buf = shmem_malloc(max_bytes);
  local = malloc(max_bytes);
  for (size_t i = 0; i < max_bytes; ++i) local[i] = (char)(i * 7 + 1);
  buf_aligned = shmem_align(4096, max_bytes);
  local_aligned = aligned_alloc(4096, max_bytes);
  memcpy(local_aligned, local, max_bytes);
  word = shmem_malloc(sizeof(long));
  shmem_barrier_all();
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
    size_t per = (1u << 22) / bytes;
    per = per < 4 ? 4 : per > 2000 ? 2000 : per;
    if (quick) per /= 4;
    if (me == 0) {
      measure("put_lat", kPutLat, bytes, batches, (int)per, 0);
      measure("put_bw", kPutBw, bytes, batches, (int)per, 1);
      measure("get_lat", kGetLat, bytes, batches, (int)per, 0);
      measure("get_bw", kGetBw, bytes, batches, (int)per, 1);
      if (bytes <= STATIC_BYTES) {
        measure("put_lat_static", kPutStatic, bytes, batches, (int)per, 0);
        measure("get_lat_static", kGetStatic, bytes, batches, (int)per, 0);
      }
      if (bytes >= 4096) {
        measure("put_lat_aligned", kPutAligned, bytes, batches, (int)per, 0);
        measure("get_lat_aligned", kGetAligned, bytes, batches, (int)per, 0);
      }
    }
    shmem_barrier_all();
  }
  int per = quick ? 200 : 2000;
  if (me == 0) {
    measure("p_lat", kP, 8, batches, per, 0);
    measure("fetch_add_lat", kFadd, 8, batches, per, 0);
  }
  shmem_barrier_all();
  /* put_signal ping-pong emulated with put + fence + p on a flag (OpenSHMEM 1.4 has no
     put_signal in every implementation), waited with shmem_wait_until. */
  {
    static uint64_t flag = 0;
    static long data = 0;
    long value = 42;
    int rounds = batches * per / 4;
    double* rtt = malloc(sizeof(double) * (size_t)rounds);
    if (me <= 1) {
      int other = 1 - me;
      settle();
      for (int i = 1; i <= rounds; ++i) {
        double t0 = now_us();
        if (me == 0) {
          shmem_long_put(&data, &value, 1, other);
          shmem_fence();
          shmem_uint64_p(&flag, (uint64_t)i, other);
          shmem_uint64_wait_until(&flag, SHMEM_CMP_GE, (uint64_t)i);
        } else {
          shmem_uint64_wait_until(&flag, SHMEM_CMP_GE, (uint64_t)i);
          shmem_long_put(&data, &value, 1, other);
          shmem_fence();
          shmem_uint64_p(&flag, (uint64_t)i, other);
        }
        rtt[i - 1] = now_us() - t0;
      }
      if (me == 0) emit("put_signal_pingpong", 8, npes, rtt + rounds / 10, rounds - rounds / 10, 0);
    }
    free(rtt);
  }
  shmem_barrier_all();
  /* Barrier latency on the first k PEs (active-set barrier: the form every OSHMEM has). */
  pset_sync = shmem_malloc(sizeof(long) * SHMEM_BARRIER_SYNC_SIZE);
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) pset_sync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  for (int k = 2; k <= npes; k = (k * 2 > npes && k != npes) ? npes : k * 2) {
    if (me < k && (k & (k - 1)) == 0) {
      int log = 0;
      while ((1 << log) < k) ++log;
      double us[64];
      int bper = quick ? 100 : 500;
      settle();
      for (int b = 0; b < batches; ++b) {
        double t0 = now_us();
        for (int i = 0; i < bper; ++i) shmem_barrier(0, 0, k, pset_sync);
        us[b] = (now_us() - t0) / bper;
      }
      if (me == 0) emit("barrier", 0, k, us, batches, 0);
    } else if (me < k) {
      double us[64];
      int bper = quick ? 100 : 500;
      settle();
      for (int b = 0; b < batches; ++b) {
        double t0 = now_us();
        for (int i = 0; i < bper; ++i) shmem_barrier_all();
        us[b] = (now_us() - t0) / bper;
      }
      if (me == 0) emit("barrier", 0, k, us, batches, 0);
    }
    shmem_barrier_all();
  }
  /* Collectives, 8 B - 1 MiB per PE, through the active-set forms every OSHMEM has. */
  {
    /* One pSync for every active-set collective here: larger than each kind's SYNC_SIZE. */
    static long psync[SHMEM_REDUCE_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE + SHMEM_BCAST_SYNC_SIZE +
                      SHMEM_ALLTOALL_SYNC_SIZE + SHMEM_ALLTOALLS_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + (1 << 17)];
    for (size_t i = 0; i < sizeof(psync) / sizeof(long); ++i) psync[i] = SHMEM_SYNC_VALUE;
    size_t cmax = max_bytes < (1u << 20) ? max_bytes : (1u << 20);
    long* csrc = shmem_malloc(cmax * npes);
    long* cdst = shmem_malloc(cmax * npes);
    for (size_t i = 0; i < cmax * npes / sizeof(long); ++i) csrc[i] = (long)i;
    shmem_barrier_all();
    for (size_t bytes = 8; bytes <= cmax; bytes *= (quick ? 16 : 4)) {
      size_t elems = bytes / sizeof(long);
      int per = (int)((1u << 20) / bytes);
      per = per < 2 ? 2 : per > 200 ? 200 : per;
      int cb = quick ? 5 : 11;
      for (int op = 0; op < 6; ++op) {
        double us[64];
        settle();
        for (int b = 0; b < cb; ++b) {
          double t0 = now_us();
          for (int i = 0; i < per; ++i) {
            if (op == 0) shmem_broadcast64(cdst, csrc, elems, 0, 0, 0, npes, psync);
            if (op == 1) shmem_fcollect64(cdst, csrc, elems, 0, 0, npes, psync);
            if (op == 2) shmem_alltoall64(cdst, csrc, elems, 0, 0, npes, psync);
            if (op == 3)
              shmem_long_sum_to_all(cdst, csrc, (int)elems, 0, 0, npes,
                                    elems <= (1 << 17) ? pwrk : pwrk, psync);
            if (op == 4) shmem_collect64(cdst, csrc, elems, 0, 0, npes, psync);
            if (op == 5) shmem_alltoalls64(cdst, csrc, 1, 1, elems, 0, 0, npes, psync);
            shmem_barrier_all(); /* psync reuse between active-set collectives */
          }
          us[b] = (now_us() - t0) / per;
        }
        static const char* names[] = {"broadcast",       "fcollect", "alltoall",
                                      "reduce_sum_long", "collect",  "alltoalls"};
        if (me == 0) emit(names[op], bytes, npes, us, cb, 0);
      }
    }
  }
  fflush(stdout);
  shmem_finalize();
  return 0;
}

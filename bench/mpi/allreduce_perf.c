/* allreduce_perf: MPI_Allreduce of float sums, timed as symmetra-perf times its all-reduce
 * rows (bench/symmetra_perf.cpp), for the comparison across hosts (bench/remote_compare.sh):
 *   mpirun --mca pml ob1 --mca btl tcp,self -n P ./allreduce_perf [--quick] [--max-bytes N]
 * JSON lines with symmetra-perf's keys, backend "mpi". Each row is printed under op
 * "allreduce_auto" and again as "allreduce_hierarchical", so that compare.py sets both the
 * selector's pick and NVRAR's hierarchy against it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void emit(const char* op, size_t bytes, int pes, double* us, int n) {
  qsort(us, (size_t)n, sizeof(double), cmp_double);
  double p50 = us[n / 2], p99 = us[(n * 99 / 100) < n - 1 ? n * 99 / 100 : n - 1];
  printf(
      "{\"op\":\"%s\",\"bytes\":%zu,\"pes\":%d,\"form\":\"host\",\"backend\":\"mpi\","
      "\"p50_us\":%.4f,\"p99_us\":%.4f,\"GBps\":%.4f}\n",
      op, bytes, pes, p50, p99, bytes / (p50 * 1e3));
  fflush(stdout);
}

int main(int argc, char** argv) {
  int quick = 0;
  size_t max = 16u << 20;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
      max = 1u << 20;
    } else if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
      max = strtoull(argv[++i], NULL, 10);
    }
  }
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  float* src = malloc(max);
  float* dst = malloc(max);
  for (size_t i = 0; i < max / sizeof(float); ++i) src[i] = (float)(i % 1000) * 0.5f;
  const int batches = quick ? 5 : 11;
  double us[64];
  for (size_t bytes = 8; bytes <= max;
       bytes = (bytes < max && bytes * (quick ? 16 : 4) > max) ? max : bytes * (quick ? 16 : 4)) {
    const int count = (int)(bytes / sizeof(float));
    size_t per = (4u << 20) / bytes;
    per = per < 1 ? 1 : per > 500 ? 500 : per;
    for (size_t i = 0; i < per; ++i) /* warm-up */
      MPI_Allreduce(src, dst, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int b = 0; b < batches; ++b) {
      const double t0 = MPI_Wtime();
      for (size_t i = 0; i < per; ++i)
        MPI_Allreduce(src, dst, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      us[b] = (MPI_Wtime() - t0) * 1e6 / (double)per;
    }
    /* Every element against the sum the ranks' inputs give. */
    for (int i = 0; i < count; ++i)
      if (dst[i] != (float)(i % 1000) * 0.5f * (float)n) {
        fprintf(stderr, "allreduce_perf: element %d is %g, want %g\n", i, dst[i],
                (float)(i % 1000) * 0.5f * (float)n);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    if (me == 0) {
      double copy[64];
      memcpy(copy, us, sizeof(double) * (size_t)batches);
      emit("allreduce_auto", bytes, n, us, batches);
      emit("allreduce_hierarchical", bytes, n, copy, batches);
    }
  }
  free(dst);
  free(src);
  MPI_Finalize();
  return 0;
}

/* SHMEM_THREAD_MULTIPLE (OpenSHMEM 1.5 section 9.2): several threads of a PE call the library at
 * once. Thread 0 of every PE allocates and frees (collective calls, one thread per PE, as the
 * standard requires), growing the heap past its initial size, while threads 1-3 put into their
 * own part of a block on the next PE, fetch-add a counter on PE 0, quiet, and create, use and
 * destroy contexts. Run under ThreadSanitizer by tools/test: a data race in the library fails it.
 * Every element and the counter are checked afterwards. */
#include <pthread.h>
#include <string.h>

#include "check.h"

#define WORKERS 3
#define ELEMS 4096
#define ROUNDS 200

static uint64_t seed;
static uint64_t* data; /* WORKERS * ELEMS, each worker its part */
static long* counter;

static void* worker(void* arg) {
  const int t = (int)(intptr_t)arg, me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n;
  uint64_t src[ELEMS];
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  for (int r = 1; r <= ROUNDS; ++r) {
    for (int i = 0; i < ELEMS; ++i) src[i] = val(seed, me, r * WORKERS + t, (uint64_t)i);
    if (r % 3 == 0) {
      CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create in thread %d", t);
      shmem_ctx_uint64_put(ctx, data + t * ELEMS, src, ELEMS, next);
      shmem_ctx_long_atomic_add(ctx, counter, 1, 0);
      shmem_ctx_quiet(ctx);
      shmem_ctx_destroy(ctx);
    } else {
      shmem_uint64_put_nbi(data + t * ELEMS, src, ELEMS, next);
      (void)shmem_long_atomic_fetch_add(counter, 1, 0);
      shmem_quiet();
    }
  }
  return NULL;
}

int main(void) {
  int provided = -1;
  CHECK(
      shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 && provided == SHMEM_THREAD_MULTIPLE,
      "SHMEM_THREAD_MULTIPLE not provided (%d)", provided);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int prev = (me + n - 1) % n;
  seed = agreed_seed();
  data = (uint64_t*)shmem_malloc(WORKERS * ELEMS * sizeof(uint64_t));
  counter = (long*)shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  pthread_t th[WORKERS];
  for (int t = 0; t < WORKERS; ++t)
    CHECK(pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t) == 0, "pthread_create");
  /* Collective calls from this thread meanwhile: allocations that grow the heap, then frees. */
  void* blocks[8];
  for (int i = 0; i < 8; ++i) {
    blocks[i] = shmem_malloc((size_t)(i + 1) << 20);
    CHECK(blocks[i] != NULL, "malloc of %d MiB", i + 1);
    memset(blocks[i], i, (size_t)(i + 1) << 20);
  }
  for (int i = 7; i >= 0; --i) shmem_free(blocks[i]);
  for (int t = 0; t < WORKERS; ++t) pthread_join(th[t], NULL);
  shmem_barrier_all();
  for (int t = 0; t < WORKERS; ++t)
    for (int i = 0; i < ELEMS; ++i)
      CHECK(data[t * ELEMS + i] == val(seed, prev, ROUNDS * WORKERS + t, (uint64_t)i),
            "thread %d element %d", t, i);
  if (me == 0)
    CHECK(*counter == (long)n * WORKERS * ROUNDS, "counter %ld, want %ld", *counter,
          (long)n * WORKERS * ROUNDS);
  shmem_barrier_all();
  shmem_free(counter);
  shmem_free(data);
  if (me == 0) printf("PASS thread %d PEs x %d threads\n", n, WORKERS + 1);
  shmem_finalize();
  return 0;
}

/* Teams from a unique id (nvshmemx_team_get_uniqueid, nvshmemx_team_init), in C, as a user's
 * host code makes them: one PE gets the id and hands it to the members (here through the heap),
 * and only the members call nvshmemx_team_init. Each team is checked through its numbering
 * (my_pe, n_pes, translate to the world), a sum over it against the sum computed here from a
 * fresh seed, and its configuration (the heap through the API only: device memory on the GPU);
 * members in an order that is not strided, and two PEs with one index, must fail on every member
 * with the job still usable; teams made at once by disjoint groups, more than one home PE's records
 * hold, must all form. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

#include "test_util.h"

static unsigned long long seed;
static long input(int pe, int round) {
  unsigned long long x = seed ^ ((unsigned long long)pe << 32) ^ (unsigned long long)round;
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ULL;
  return (long)(x >> 40);
}

/* Collective over the world: PE `owner` gets `count` ids and every PE reads them. */
static void get_ids(nvshmemx_team_uniqueid_t* ids, int count, int owner) {
  nvshmemx_team_uniqueid_t* shared =
      (nvshmemx_team_uniqueid_t*)nvshmem_malloc(count * sizeof(*shared));
  if (nvshmem_my_pe() == owner) {
    for (int i = 0; i < count; ++i) {
      CHECK(nvshmemx_team_get_uniqueid(&ids[i]) == 0, "get_uniqueid failed");
      CHECK(ids[i] != 0 && ids[i] != ~0ull, "id %llx is 0 or ~0", (unsigned long long)ids[i]);
      for (int pe = 0; pe < nvshmem_n_pes(); ++pe) nvshmem_uint64_p(&shared[i], ids[i], pe);
    }
    nvshmem_quiet();
  }
  nvshmem_barrier_all();
  for (int i = 0; i < count; ++i) ids[i] = nvshmem_uint64_g(&shared[i], nvshmem_my_pe());
  nvshmem_barrier_all();
  nvshmem_free(shared);
}

static nvshmem_team_t init(nvshmemx_team_uniqueid_t id, int npes, int idx, int* rc) {
  nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  config.uniqueid = id;
  nvshmem_team_t team = 12345;
  *rc = nvshmemx_team_init(&team, &config, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, npes, idx);
  return team;
}

/* A member's checks of a team whose members are world PEs first, first + stride, ... */
static void check_team(nvshmem_team_t team, nvshmemx_team_uniqueid_t id, int first, int stride,
                       int size, int idx, int round, long* src, long* dest) {
  const int me = nvshmem_my_pe();
  CHECK(team != NVSHMEM_TEAM_INVALID, "round %d: no team", round);
  CHECK(nvshmem_team_my_pe(team) == idx, "round %d: team_my_pe %d, expected %d", round,
        nvshmem_team_my_pe(team), idx);
  CHECK(nvshmem_team_n_pes(team) == size, "round %d: team_n_pes %d, expected %d", round,
        nvshmem_team_n_pes(team), size);
  for (int i = 0; i < size; ++i)
    CHECK(nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_WORLD) == first + i * stride,
          "round %d: member %d is world PE %d, expected %d", round, i,
          nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_WORLD), first + i * stride);
  nvshmem_team_config_t got = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  CHECK(nvshmem_team_get_config(team, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, &got) == 0 &&
            got.uniqueid == id,
        "round %d: get_config's uniqueid %llx, expected %llx", round,
        (unsigned long long)got.uniqueid, (unsigned long long)id);
  nvshmem_long_p(src, input(me, round), me);
  nvshmem_quiet();
  nvshmem_long_sum_reduce(team, dest, src, 1);
  long want = 0;
  for (int i = 0; i < size; ++i) want += input(first + i * stride, round);
  const long got_sum = nvshmem_long_g(dest, me);
  CHECK(got_sum == want, "round %d: team sum %ld, expected %ld", round, got_sum, want);
  nvshmem_team_sync(team);
  nvshmem_team_destroy(team);
}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  seed = shared_seed();
  if (me == 0) printf("seed %llu\n", seed);
  long* src = (long*)nvshmem_malloc(sizeof(long));
  long* dest = (long*)nvshmem_malloc(sizeof(long));
  nvshmemx_team_uniqueid_t ids[8];
  int rc;

  /* Every PE, in world order, the id from the last PE. */
  get_ids(ids, 1, n - 1);
  nvshmem_team_t t = init(ids[0], n, me, &rc);
  CHECK(rc == 0, "all PEs: rc %d", rc);
  if (rc == 0) check_team(t, ids[0], 0, 1, n, me, 1, src, dest);
  nvshmem_barrier_all();

  /* The even PEs only, the odd ones elsewhere. */
  get_ids(ids, 1, 0);
  if (me % 2 == 0) {
    t = init(ids[0], (n + 1) / 2, me / 2, &rc);
    CHECK(rc == 0, "even PEs: rc %d", rc);
    if (rc == 0) check_team(t, ids[0], 0, 2, (n + 1) / 2, me / 2, 2, src, dest);
  }
  nvshmem_barrier_all();

  /* Every PE a team of its own, all at once: more creations than one home PE has records. */
  get_ids(ids, n < 8 ? n : 8, 0);
  if (me < 8) {
    t = init(ids[me], 1, 0, &rc);
    CHECK(rc == 0, "team of one: rc %d", rc);
    if (rc == 0) check_team(t, ids[me], me, 1, 1, 0, 3, src, dest);
  }
  nvshmem_barrier_all();

  if (n >= 3) {
    /* Members 0, 2, 1 in index order (PEs 0 and 1 swapped): not strided, refused everywhere. */
    get_ids(ids, 1, 0);
    if (me < 3) {
      t = init(ids[0], 3, me == 0 ? 0 : me == 1 ? 2 : 1, &rc);
      CHECK(rc != 0 && t == NVSHMEM_TEAM_INVALID, "not strided: rc %d, team %d", rc, t);
    }
    nvshmem_barrier_all();
  }
  if (n >= 2) {
    /* PEs 0 and 1 both claim index 0 of a team of 2: refused on both. */
    get_ids(ids, 1, 0);
    if (me < 2) {
      t = init(ids[0], 2, 0, &rc);
      CHECK(rc != 0 && t == NVSHMEM_TEAM_INVALID, "one index twice: rc %d, team %d", rc, t);
    }
    nvshmem_barrier_all();
  }
  /* After the refusals the records are free again: every PE, in world order, once more. */
  get_ids(ids, 1, 0);
  t = init(ids[0], n, me, &rc);
  CHECK(rc == 0, "all PEs again: rc %d", rc);
  if (rc == 0) check_team(t, ids[0], 0, 1, n, me, 4, src, dest);
  /* A missing id is an error, not a team. */
  nvshmem_team_config_t none = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  t = 7;
  CHECK(nvshmemx_team_init(&t, &none, 0, 1, 0) != 0 && t == NVSHMEM_TEAM_INVALID,
        "no id: accepted");

  nvshmem_free(dest);
  nvshmem_free(src);
  nvshmem_barrier_all();
  if (failures == 0) printf("[pe %d] all passed (%d PEs)\n", me, n);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}

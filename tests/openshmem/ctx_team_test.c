/* Contexts and teams at their edges (OpenSHMEM 1.5 sections 9.4-9.5), from the standard's text:
 * - shmem_ctx_quiet, shmem_ctx_fence and shmem_ctx_destroy on SHMEM_CTX_INVALID: no operation;
 * - shmem_ctx_get_team: SHMEM_CTX_INVALID gives SHMEM_TEAM_INVALID and nonzero, a context of a
 *   team gives that team, SHMEM_CTX_DEFAULT gives SHMEM_TEAM_WORLD;
 * - shmem_team_create_ctx on SHMEM_TEAM_INVALID: SHMEM_CTX_INVALID and nonzero;
 * - team queries on SHMEM_TEAM_INVALID: -1 (my_pe, n_pes, translate_pe), nonzero (get_config);
 *   splits of SHMEM_TEAM_INVALID give SHMEM_TEAM_INVALID; destroying it does nothing;
 * - shmem_team_get_config returns the configuration a team was split with, for the parameters
 *   its mask selected (num_contexts), and the defaults (0) otherwise and for the world team. */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* word = (long*)shmem_calloc(1, sizeof(long));

  /* Contexts */
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0, "get_team of SHMEM_CTX_INVALID returned 0");
  CHECK(t == SHMEM_TEAM_INVALID, "get_team of SHMEM_CTX_INVALID gave a team");
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD,
        "default context's team");
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0,
        "create_ctx on SHMEM_TEAM_INVALID returned 0");
  CHECK(ctx == SHMEM_CTX_INVALID, "create_ctx on SHMEM_TEAM_INVALID gave a context");
  CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "ctx_create");
  shmem_ctx_long_atomic_add(ctx, word, 1, (me + 1) % n);
  shmem_ctx_quiet(ctx);
  shmem_ctx_fence(ctx);
  CHECK(shmem_ctx_get_team(ctx, &t) == 0 && t == SHMEM_TEAM_WORLD, "a world context's team");
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  CHECK(sym_long(word) == 1, "the context's add gave %ld", sym_long(word));

  /* Team queries on SHMEM_TEAM_INVALID */
  CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID)");
  CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID)");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
        "translate from INVALID");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1,
        "translate to INVALID");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD) == -1,
        "translate of a PE past the team");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD) == -1,
        "translate of PE -1");
  shmem_team_config_t cfg = {.num_contexts = 99};
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
        "get_config(INVALID)");
  shmem_team_t nt = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &nt) != 0,
        "split of INVALID returned 0");
  CHECK(nt == SHMEM_TEAM_INVALID, "split of SHMEM_TEAM_INVALID gave a team");
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0,
        "split_2d of INVALID");
  CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
        "split_2d of SHMEM_TEAM_INVALID gave teams");
  shmem_team_destroy(SHMEM_TEAM_INVALID);

  /* Configurations: the world's defaults, then what each split was given. */
  CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 &&
            cfg.num_contexts == 0,
        "world num_contexts %d", cfg.num_contexts);
  const shmem_team_config_t want = {.num_contexts = 7};
  shmem_team_t even = SHMEM_TEAM_INVALID, all = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &want,
                                 SHMEM_TEAM_NUM_CONTEXTS, &even) == 0,
        "split even");
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &want, 0, &all) == 0, "split all");
  if (me % 2 == 0) {
    cfg.num_contexts = -5;
    CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0, "get_config(even)");
    CHECK(cfg.num_contexts == 7, "even team num_contexts %d, split with 7", cfg.num_contexts);
    shmem_ctx_t tc = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(even, 0, &tc) == 0, "team_create_ctx");
    CHECK(shmem_ctx_get_team(tc, &t) == 0 && t == even, "a team context's team");
    shmem_ctx_destroy(tc);
  } else {
    CHECK(even == SHMEM_TEAM_INVALID, "an odd PE got the even team");
  }
  /* The mask did not select num_contexts: the default. */
  CHECK(shmem_team_get_config(all, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 0,
        "unmasked num_contexts %d, want the default 0", cfg.num_contexts);
  /* split_2d keeps each axis's config. */
  const shmem_team_config_t xc = {.num_contexts = 2}, yc = {.num_contexts = 5};
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc,
                            SHMEM_TEAM_NUM_CONTEXTS, &yt) == 0,
        "split_2d");
  CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 2,
        "x num_contexts %d", cfg.num_contexts);
  CHECK(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 5,
        "y num_contexts %d", cfg.num_contexts);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
  shmem_team_destroy(all);
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  shmem_barrier_all();
  shmem_free(word);
  if (me == 0) printf("PASS ctx_team %d PEs\n", n);
  shmem_finalize();
  return 0;
}

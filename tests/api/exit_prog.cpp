// PEs that end without finalize, for failure_test:
//   exit_prog c_exit_early | c_return_early    OpenSHMEM C API; PE 1 calls exit(3) / returns 3
//                                              from main while the others enter a barrier
//   exit_prog threads_exit_early N            C++ API, N PEs as threads; PE 1 calls exit(3)
//                                              while the others wait in barrier_all
// A PE that gets through the barrier says so: PE 1 never entered it.
// And the C API's argument errors, each of which ends the job with a message (failure_test):
//   exit_prog c_before_init                   shmem_long_p before shmem_init
//   exit_prog c_invalid_ctx                   PE 1 puts through SHMEM_CTX_INVALID
//   exit_prog c_ctx_not_member                PE 0 puts through a context of the team {0} to
//                                              that team's PE 1, which does not exist
//   exit_prog c_bcast_private                 every PE broadcasts into a malloc'd dest
//   exit_prog c_ibput_overlap                 PE 0 ibputs blocks of 4 at a dest stride of 3
//   exit_prog c_pe_quiet_bad_pe               PE 1 quiets PE 5 of a 2-PE job
#include <shmem.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "symmetra/launch.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string c = argv[1];
  if (c == "threads_exit_early") {
    const int n = argc > 2 ? std::atoi(argv[2]) : 4;
    symmetra::launch_threads(n, [](symmetra::Runtime& rt) {
      rt.barrier_all();
      if (rt.my_pe() == 1) std::exit(3);
      rt.barrier_all();
      std::printf("pe %d passed a barrier PE 1 never entered\n", rt.my_pe());
    });
    return 0;
  }
  static long word;  // symmetric: static data
  if (c == "c_before_init") {
    shmem_long_p(&word, 1, 0);
    return 0;
  }
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
  if (c == "c_bcast_private") {
    auto* src = static_cast<long*>(shmem_malloc(4 * sizeof(long)));
    auto* dest = static_cast<long*>(std::malloc(4 * sizeof(long)));
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, src, 4, 0);
    std::printf("pe %d passed the bad call\n", me);
    shmem_finalize();
    return 0;
  }
  if (c == "c_ibput_overlap" || c == "c_pe_quiet_bad_pe") {
    auto* buf = static_cast<long*>(shmem_calloc(16, sizeof(long)));
    if (c == "c_ibput_overlap" && me == 0) shmem_long_ibput(buf, buf, 3, 4, 4, 2, 1);
    const int bad[2] = {0, 5};
    if (c == "c_pe_quiet_bad_pe" && me == 1) shmem_pe_quiet(bad, 2);
    shmem_barrier_all();
    std::printf("pe %d passed the bad call\n", me);
    shmem_finalize();
    return 0;
  }
  if (c == "c_invalid_ctx" || c == "c_ctx_not_member") {
    if (c == "c_invalid_ctx" && me == 1) shmem_ctx_putmem(SHMEM_CTX_INVALID, &word, &word, 8, 0);
    shmem_team_t first = SHMEM_TEAM_INVALID;
    if (c == "c_ctx_not_member") {
      shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &first);
      shmem_ctx_t ctx = SHMEM_CTX_INVALID;
      if (me == 0 && shmem_team_create_ctx(first, 0, &ctx) == 0) shmem_ctx_long_p(ctx, &word, 1, 1);
    }
    shmem_barrier_all();
    std::printf("pe %d passed the bad call\n", me);
    shmem_finalize();
    return 0;
  }
  if (me == 1) {
    if (c == "c_exit_early") std::exit(3);
    return 3;  // c_return_early: no shmem_finalize
  }
  shmem_barrier_all();
  std::printf("pe %d passed a barrier PE 1 never entered\n", me);
  std::fflush(stdout);
  shmem_finalize();
  return 0;
}

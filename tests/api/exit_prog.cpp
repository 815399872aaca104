// PEs that end without finalize, for failure_test:
//   exit_prog c_exit_early | c_return_early    OpenSHMEM C API; PE 1 calls exit(3) / returns 3
//                                              from main while the others enter a barrier
//   exit_prog threads_exit_early N            C++ API, N PEs as threads; PE 1 calls exit(3)
//                                              while the others wait in barrier_all
// A PE that gets through the barrier says so: PE 1 never entered it.
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
  shmem_init();
  const int me = shmem_my_pe();
  shmem_barrier_all();
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

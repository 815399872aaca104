// 01: the smallest Symmetra program. Every PE joins the job and says who it is.
// Run: symrun -n 4 ./01_hello
#include <cstdio>

#include <symmetra/runtime.hpp>

int main() {
  auto rt = symmetra::Runtime::init();  // reads symrun / mpirun / srun / torchrun's environment
  std::printf("hello from PE %d of %d\n", rt->my_pe(), rt->n_pes());
  rt->finalize();
  return 0;
}

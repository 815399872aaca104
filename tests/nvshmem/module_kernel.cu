// A kernel the test loads at run time (module_load.cu): compiled to a cubin by itself, with no
// host code, so nothing registers its device state until nvshmemx_cumodule_init.
#include <nvshmem.h>

extern "C" __global__ void shift_from_module(int* dst) {
  nvshmem_int_p(dst, nvshmem_my_pe() + 1000, (nvshmem_my_pe() + 1) % nvshmem_n_pes());
}

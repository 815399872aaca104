// The probes' error checks: a failed CUDA runtime (CK) or driver (CU) call prints itself and
// ends the probe. Each probe is one nvcc command (its header says which); this file is found
// next to it.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                              \
  do {                                                     \
    cudaError_t e_ = (x);                                  \
    if (e_ != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                        \
    }                                                      \
  } while (0)
#define CU(x)                                     \
  do {                                            \
    CUresult r_ = (x);                            \
    if (r_ != CUDA_SUCCESS) {                     \
      std::printf("%s: error %d\n", #x, (int)r_); \
      std::exit(1);                               \
    }                                             \
  } while (0)

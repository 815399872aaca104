// CK(call): a CUDA runtime call of a benchmark that must succeed; prints where and why, exits 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                                  \
  do {                                                                                            \
    cudaError_t rc_ = (call);                                                                     \
    if (rc_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(rc_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// Compiler portability for headers shared by g++ and nvcc (docs/design.md §1.1).
//
// SYMMETRA_HD marks functions callable from host and device code. SYMMETRA_DEVICE_PASS is true
// only while nvcc compiles device code; the CPU branch of every device-API function lives under
// its negation, so the same source is a CPU implementation under g++.
#pragma once

#if defined(__CUDACC__)
#define SYMMETRA_HD __host__ __device__
#define SYMMETRA_INLINE __host__ __device__ __forceinline__
#else
#define SYMMETRA_HD
#define SYMMETRA_INLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define SYMMETRA_DEVICE_PASS 1
#else
#define SYMMETRA_DEVICE_PASS 0
#endif

// The device API's remote branch in kernels (docs/proxy.md, "GPU producers"): define
// SYMMETRA_DEVICE_REMOTE=1 before including symmetra/device.hpp (or for the whole target) where a
// kernel must reach PEs of other hosts through the proxy ring. Off, kernels keep only the
// load/store branch, which that branch's presence alone made 16% slower for an 8-byte get.
#ifndef SYMMETRA_DEVICE_REMOTE
#define SYMMETRA_DEVICE_REMOTE 0
#endif

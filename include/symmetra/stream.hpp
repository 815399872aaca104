// The stream type of the stream-ordered API, without including CUDA's headers: cudaStream_t and
// CUstream are both `CUstream_st*`, so either can be passed.
#pragma once

struct CUstream_st;

namespace symmetra {
using Stream = CUstream_st*;
}  // namespace symmetra

// The library's instances of the collectives' host forms (include/symmetra/impl/
// runtime_coll_host.hpp), so that a program that includes only runtime.hpp links them instead
// of compiling every algorithm: SYMMETRA_COLL_FORMS(T) names each form for element type T.
// coll_forms_int.cpp and coll_forms_float.cpp instantiate it for every type collectives take
// (data_type_of): the fixed-width integers and the C types that are not one of them on LP64
// (char, long long), half, bfloat16, float, double.
#pragma once

#include <cstddef>

#include "symmetra/collectives.hpp"

#define SYMMETRA_COLL_FORMS(T)                                                                   \
  template void Runtime::broadcast<T>(const Team&, T*, const T*, std::size_t, int, bool);        \
  template void Runtime::fcollect<T>(const Team&, T*, const T*, std::size_t);                    \
  template void Runtime::fcollect_read<T>(const Team&, T*, const T*, std::size_t);               \
  template void Runtime::fcollect_ring<T>(const Team&, T*, const T*, std::size_t);               \
  template void Runtime::collect<T>(const Team&, T*, const T*, std::size_t);                     \
  template void Runtime::alltoall<T>(const Team&, T*, const T*, std::size_t);                    \
  template void Runtime::alltoalls<T>(const Team&, T*, const T*, std::ptrdiff_t, std::ptrdiff_t, \
                                      std::size_t);                                              \
  template void Runtime::reduce<T>(const Team&, T*, const T*, std::size_t, coll::ReduceOp);      \
  template void Runtime::reduce_scatter<T>(const Team&, T*, const T*, std::size_t,               \
                                           coll::ReduceOp);                                      \
  template void Runtime::allreduce<T>(const Team&, T*, const T*, std::size_t, coll::ReduceOp,    \
                                      coll::AllreduceAlgo);                                      \
  template void Runtime::permute<T, coll::NoChunkCallback>(                                      \
      const Team&, T*, const T*, std::size_t, int, int, std::size_t, coll::NoChunkCallback);

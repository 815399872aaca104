/* NVSHMEM's team collectives (nvshmem.h includes this): the type lists they are declared for and
 * the host forms. The device forms (thread, _warp, _block) are in nvshmem_device_coll.cuh, the
 * _on_stream forms in nvshmemx.h.
 *
 * Semantics, as NVSHMEM's: collective over the members of `team`, same arguments on every
 * member; buffers in the symmetric heap; 0 on success, nonzero (with the reason on stderr) where
 * `team` names no team. reduce is an all-reduce (every member gets dest[i] = op over the members'
 * src[i]); reducescatter gives member r the reduction of the members' src[r * nreduce + i];
 * fcollect concatenates every member's nelem elements in team order; alltoall sends block j of
 * src to member j (alltoalls: elements dst and sst apart in dest and src); broadcast copies
 * PE_root's src (PE_root numbered in the team) to every member's dest. The host forms return when
 * dest is complete on this PE and src may be reused; host reduce and reducescatter take dest ==
 * src. The _mem forms count bytes. */
#ifndef SYMMETRA_NVSHMEM_COLL_H
#define SYMMETRA_NVSHMEM_COLL_H

/* The element types of broadcast, fcollect and alltoall: NVSHMEM's standard RMA types. */
#define SYMMETRA_NVSHMEM_COLL_TYPES(X) SYMMETRA_NVSHMEM_RMA_TYPES(X)

/* The reductions' types, X(name, C type, op): bitwise ops on the unsigned and fixed-width
 * integers; min and max on those and the signed and floating types; sum and prod the same. */
#define SYMMETRA_NVSHMEM_REDUCE_BITWISE_TYPES(X, OP) \
  X(uchar, unsigned char, OP)                        \
  X(ushort, unsigned short, OP)                      \
  X(uint, unsigned int, OP)                          \
  X(ulong, unsigned long, OP)                        \
  X(ulonglong, unsigned long long, OP)               \
  X(int8, int8_t, OP)                                \
  X(int16, int16_t, OP)                              \
  X(int32, int32_t, OP)                              \
  X(int64, int64_t, OP)                              \
  X(uint8, uint8_t, OP)                              \
  X(uint16, uint16_t, OP)                            \
  X(uint32, uint32_t, OP)                            \
  X(uint64, uint64_t, OP)                            \
  X(size, size_t, OP)
#define SYMMETRA_NVSHMEM_REDUCE_STANDARD_TYPES(X, OP) \
  SYMMETRA_NVSHMEM_REDUCE_BITWISE_TYPES(X, OP)        \
  X(char, char, OP)                                   \
  X(schar, signed char, OP)                           \
  X(short, short, OP)                                 \
  X(int, int, OP)                                     \
  X(long, long, OP)                                   \
  X(longlong, long long, OP)                          \
  SYMMETRAI_NVSHMEM_FLOAT16_REDUCE_TYPES(X, OP)       \
  X(float, float, OP)                                 \
  X(double, double, OP)
#define SYMMETRA_NVSHMEM_REDUCTIONS(X)           \
  SYMMETRA_NVSHMEM_REDUCE_BITWISE_TYPES(X, and)  \
  SYMMETRA_NVSHMEM_REDUCE_BITWISE_TYPES(X, or)   \
  SYMMETRA_NVSHMEM_REDUCE_BITWISE_TYPES(X, xor)  \
  SYMMETRA_NVSHMEM_REDUCE_STANDARD_TYPES(X, max) \
  SYMMETRA_NVSHMEM_REDUCE_STANDARD_TYPES(X, min) \
  SYMMETRA_NVSHMEM_REDUCE_STANDARD_TYPES(X, sum) \
  SYMMETRA_NVSHMEM_REDUCE_STANDARD_TYPES(X, prod)

/* The collectives callable on both sides, as X(name, return, parameters, arguments) (the form of
 * SYMMETRA_NVSHMEM_BOTH_SIDED). */
#define SYMMETRAI_NVSHMEM_TYPED_COLL(NAME, T)                                                  \
  X(NAME##_broadcast, int,                                                                     \
    (nvshmem_team_t team, T * dest, const T* src, size_t nelem, int PE_root),                  \
    (team, dest, src, nelem, PE_root))                                                         \
  X(NAME##_fcollect, int, (nvshmem_team_t team, T * dest, const T* src, size_t nelem),         \
    (team, dest, src, nelem))                                                                  \
  X(NAME##_alltoall, int, (nvshmem_team_t team, T * dest, const T* src, size_t nelem),         \
    (team, dest, src, nelem))                                                                  \
  X(NAME##_alltoalls, int,                                                                     \
    (nvshmem_team_t team, T * dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelem), \
    (team, dest, src, dst, sst, nelem))
#define SYMMETRAI_NVSHMEM_TYPED_REDUCE(NAME, T, OP)                                           \
  X(NAME##_##OP##_reduce, int, (nvshmem_team_t team, T * dest, const T* src, size_t nreduce), \
    (team, dest, src, nreduce))                                                               \
  X(NAME##_##OP##_reducescatter, int,                                                         \
    (nvshmem_team_t team, T * dest, const T* src, size_t nreduce), (team, dest, src, nreduce))
#define SYMMETRA_NVSHMEM_COLL_BOTH_SIDED                                                \
  X(barrier, int, (nvshmem_team_t team), (team))                                        \
  X(team_sync, int, (nvshmem_team_t team), (team))                                      \
  X(broadcastmem, int,                                                                  \
    (nvshmem_team_t team, void* dest, const void* src, size_t nelem, int PE_root),      \
    (team, dest, src, nelem, PE_root))                                                  \
  X(fcollectmem, int, (nvshmem_team_t team, void* dest, const void* src, size_t nelem), \
    (team, dest, src, nelem))                                                           \
  X(alltoallmem, int, (nvshmem_team_t team, void* dest, const void* src, size_t nelem), \
    (team, dest, src, nelem))                                                           \
  SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRAI_NVSHMEM_TYPED_COLL)                             \
  SYMMETRA_NVSHMEM_REDUCTIONS(SYMMETRAI_NVSHMEM_TYPED_REDUCE)

/* NVSHMEM's name for the team sync. */
#define nvshmem_sync nvshmem_team_sync

#endif /* SYMMETRA_NVSHMEM_COLL_H */

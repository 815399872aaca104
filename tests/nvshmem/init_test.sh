#!/bin/sh
# nvshmemx_init_attr without a launcher: with a unique id (init_uid.c, the PEs started by fork,
# 1 and 3 of them), and with MPI communicators (init_mpi.c under mpirun, 4 processes in two jobs
# of 2) where Open MPI is installed (tools/setup installs it).
#   init_test.sh LIBDIR INCDIR SRCDIR OUTDIR
set -eu
libdir=$1 incdir=$2 srcdir=$3 out=$4
mkdir -p "$out"
# shellcheck disable=SC2086 # SYMMETRA_TEST_CFLAGS: the build's sanitizer flag, or nothing
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror ${SYMMETRA_TEST_CFLAGS:-} -I"$incdir" \
  -o "$out/init_uid" "$srcdir/init_uid.c" -L"$libdir" -lsymmetra_nvshmem -Wl,-rpath,"$libdir"
for n in 1 3; do
  echo "== init_uid $n"
  timeout 120 "$out/init_uid" "$n" >"$out/init_uid.$n.log" 2>&1 || { cat "$out/init_uid.$n.log"; exit 1; }
  cat "$out/init_uid.$n.log"
  [ "$(grep -c "all passed ($n PEs)" "$out/init_uid.$n.log")" -eq "$n" ] || { echo FAILED; exit 1; }
done
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  echo "== mpirun -n 4 init_mpi"
  # shellcheck disable=SC2086
  mpicc -std=c11 -O1 -Wall -Wextra -Werror ${SYMMETRA_TEST_CFLAGS:-} -I"$incdir" \
    -o "$out/init_mpi" "$srcdir/init_mpi.c" -L"$libdir" -lsymmetra_nvshmem -Wl,-rpath,"$libdir"
  # Open MPI's own allocations outlive MPI_Finalize (frames of its unloaded components), which a
  # sanitizer build's leak check would count: leaks are checked in the unique-id runs above.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    timeout 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -n 4 "$out/init_mpi" \
    >"$out/init_mpi.log" 2>&1 ||
    { cat "$out/init_mpi.log"; exit 1; }
  cat "$out/init_mpi.log"
  [ "$(grep -c 'all passed (2 PEs)' "$out/init_mpi.log")" -eq 4 ] || { echo FAILED; exit 1; }
else
  echo "(no mpicc or mpirun: the MPI communicator case did not run)"
fi
echo PASS

#!/bin/sh
# Builds an NVSHMEM host program in C as a Makefile user would (cc, -I include, -L lib,
# -lsymmetra_nvshmem) and runs it with symrun for each PE count given; every PE must say
# "all passed (N PEs)" and the job must succeed (SYMMETRA_TEST_CFLAGS: more compiler flags, the
# sanitizer of a sanitizer build, whose libraries need its runtime in the program):
#   run_host.sh BINDIR LIBDIR INCDIR SOURCE OUTDIR NPES...
set -eu
bindir=$1 libdir=$2 incdir=$3 src=$4 out=$5
shift 5
mkdir -p "$out"
exe="$out/$(basename "$src" .c)"
# shellcheck disable=SC2086 # SYMMETRA_TEST_CFLAGS: the build's sanitizer flag, or nothing
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror ${SYMMETRA_TEST_CFLAGS:-} -I"$incdir" -o "$exe" \
  "$src" -L"$libdir" -lsymmetra_nvshmem -Wl,-rpath,"$libdir"
for n in "$@"; do
  echo "== symrun -n $n $(basename "$exe")"
  log="$exe.$n.log"
  rc=0
  "$bindir/symrun" -n "$n" --timeout 60 "$exe" >"$log" 2>&1 || rc=$?
  cat "$log"
  [ "$rc" -eq 0 ] || { echo "FAILED: status $rc with $n PEs"; exit 1; }
  got=$(grep -c "all passed ($n PEs)" "$log" || true)
  [ "$got" -eq "$n" ] || { echo "FAILED: $got of $n PEs passed"; exit 1; }
done
echo "PASS"

#!/bin/sh
# nvshmem_global_exit: the job of 3 PEs ends with PE 1's status (7), well within the bound of the
# others' wait (global_exit.c).  global_exit_test.sh BINDIR LIBDIR INCDIR SRCDIR OUTDIR
set -eu
bindir=$1 libdir=$2 incdir=$3 srcdir=$4 out=$5
mkdir -p "$out"
# shellcheck disable=SC2086 # SYMMETRA_TEST_CFLAGS: the build's sanitizer flag, or nothing
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror ${SYMMETRA_TEST_CFLAGS:-} -I"$incdir" \
  -o "$out/global_exit" "$srcdir/global_exit.c" -L"$libdir" -lsymmetra_nvshmem -Wl,-rpath,"$libdir"
start=$(date +%s)
rc=0
SYMMETRA_TIMEOUT_S=120 timeout 100 "$bindir/symrun" -n 3 "$out/global_exit" >"$out/global_exit.log" 2>&1 || rc=$?
cat "$out/global_exit.log"
took=$(( $(date +%s) - start ))
[ "$rc" -eq 7 ] || { echo "FAILED: the job returned $rc, want 7"; exit 1; }
[ "$took" -lt 60 ] || { echo "FAILED: the job took $took s to end"; exit 1; }
! grep -q 'FAIL: the barrier returned' "$out/global_exit.log" || { echo FAILED; exit 1; }
echo "PASS (the job ended with 7 in $took s)"

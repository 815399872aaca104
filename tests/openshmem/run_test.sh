#!/bin/sh
# Builds one OpenSHMEM test with symcc and runs it with symrun for each PE count given:
#   run_test.sh BINDIR SOURCE OUTDIR NPES...
# SYMRUN_ARGS: more symrun options for each run (run_hosts.sh: --hosts, --netns).
# Fails on a compile error, a nonzero exit of any run, or a run that prints no "PASS". With
# EXPECT_STATUS=s set, each run must instead end with status s.
set -eu
bindir=$1 src=$2 out=$3
shift 3
mkdir -p "$out"
case "$src" in
  *.cpp) exe="$out/$(basename "$src" .cpp)"; "$bindir/symc++" -std=c++20 -O1 -Wall -Wextra -Werror -o "$exe" "$src" 2>&1 ;;
  *) exe="$out/$(basename "$src" .c)"; "$bindir/symcc" -std=c11 -O1 -Wall -Wextra -Werror -o "$exe" "$src" 2>&1 ;;
esac
if [ -n "${EXPECT_STATUS:-}" ]; then  # the job must end with this status (shmem_global_exit)
  for n in "$@"; do
    rc=0
    "$bindir/symrun" -n "$n" --timeout 60 "$exe" >"$exe.$n.log" 2>&1 || rc=$?
    cat "$exe.$n.log"
    [ "$rc" -eq "$EXPECT_STATUS" ] || { echo "symrun -n $n ended with $rc, want $EXPECT_STATUS"; exit 1; }
    # symrun must have taken it as the job's end, not as a PE failing.
    if grep -q "^symrun: PE" "$exe.$n.log"; then echo "symrun -n $n reported a failed PE"; exit 1; fi
  done
  # Under another launcher (here: a shell with SYMMETRA_BOOTSTRAP set, as a multi-node job sets
  # it) the PE's parent is not symrun and must not get symrun's signal, which would end it.
  alone=$(SYMMETRA_BOOTSTRAP=unix:symmetra-none sh -c '"$0"; echo "parent alive, status $?"' "$exe" 2>&1) || true
  echo "$alone"
  echo "$alone" | grep -q "parent alive, status $EXPECT_STATUS" || { echo "the PE's parent did not survive"; exit 1; }
  echo "PASS: every run ended with status $EXPECT_STATUS"
  exit 0
fi
for n in "$@"; do
  echo "== symrun -n $n $(basename "$exe")"
  log="$exe.$n.log"
  # shellcheck disable=SC2086 # SYMRUN_ARGS is a list of options
  if ! "$bindir/symrun" -n "$n" --timeout 60 ${SYMRUN_ARGS:-} "$exe" >"$log" 2>&1; then
    cat "$log"
    echo "FAILED with $n PEs"
    exit 1
  fi
  cat "$log"
  grep -q "^PASS" "$log" || { echo "no PASS line with $n PEs"; exit 1; }
done

#!/usr/bin/env bash
# NVSHMEM's own examples/ (NVIDIA's sources, not in this repository: docs/nvshmem.md#nvidias-
# examples), built unchanged with their own CMakeLists.txt against the installed package, run
# with N PEs and checked by what each prints.
#   upstream_examples.sh EXAMPLES_BIN_DIR PREFIX N LOG_DIR [NAME...]
# With NAMEs, only those examples run.
# Most examples call cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)) and stop when that
# device does not exist: on a machine with one GPU each PE gets a forced host of its own
# (--hosts N, UCX over TCP between them, kernels through the proxy), where its node rank is 0.
# tools/gpu-pack compiles them with SYMMETRA_DEVICE_REMOTE=1, so that their kernels reach the
# other forced hosts.
set -uo pipefail
ex=$1 prefix=$2 n=$3 logs=$4
shift 4
only=" $* "
mkdir -p "$logs"
symrun="$prefix/bin/nvshmrun"
export LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}"
export SYMMETRA_TRANSPORT=ucx UCX_TLS=${UCX_TLS:-tcp}
failed=0

# run NAME EXPECT_CMD PROG_AND_ARGS...: runs PROG under the launcher with N forced hosts, then
# EXPECT_CMD over its output file; both must succeed.
# wanted NAME: whether NAME is among the NAMEs given (all are, when none was).
wanted() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
run() {
  local name=$1 expect=$2; shift 2
  wanted "$name" || return 0
  local log="$logs/$name.$n.out"
  timeout 120 "$symrun" -n "$n" --hosts "$n" "$@" >"$log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ] || ! (eval "$expect") <"$log"; then
    echo "FAIL $name ($n PEs, rc=$rc):"; tail -15 "$log"; failed=$((failed + 1))
  else
    echo "ok   $name ($n PEs)"
  fi
}
# every LINE_OF_I: each PE i's line, as a printf format of i and n.
every() {
  local fmt=$1 out; out=$(cat)
  for i in $(seq 0 $((n - 1))); do
    # shellcheck disable=SC2059
    grep -qxF -- "$(printf "$fmt" "$i" "$n")" <<<"$out" || { echo "missing: $(printf "$fmt" "$i" "$n")"; return 1; }
  done
  ! grep -qi 'error\|failure' <<<"$out"
}
sum=$((n * (n - 1) / 2))

# shellcheck disable=SC2016
run dev-guide-ring 'out=$(cat); for i in $(seq 0 $((n-1))); do
    grep -qx "$i: received message $(( (i+n-1)%n ))" <<<"$out" || exit 1; done' \
  "$ex/dev-guide-ring"
# shellcheck disable=SC2016
run collective-launch 'out=$(cat); for i in $(seq 0 $((n-1))); do
    grep -qxF "results on device [$i] is $((i + sum)) " <<<"$out" || exit 1; done' \
  "$ex/collective-launch"
for prog in on-stream thread-group; do
  run "$prog" "every '[%d of %d] run complete '" "$ex/$prog"
done
# put-block checks what it received right after its own kernel, with no barrier after the puts:
# across hosts a put can still be in flight then (the PE that finishes first saw zeros), as it
# can over InfiniBand with NVSHMEM itself. So each PE's verdict is not checked, only that every
# PE ran its kernel of 1024 threads to its verdict (it failed to launch at 102 registers).
# shellcheck disable=SC2016
run put-block 'out=$(cat); for i in $(seq 0 $((n-1))); do
    grep -qx "\[$i of $n\] run \(complete\|failure\) " <<<"$out" || exit 1; done
    ! grep -qi "cuda failed" <<<"$out"' "$ex/put-block"
run ring-bcast '! grep -q "error"' "$ex/ring-bcast"
# 8 MiB is the smallest size its 32 blocks of 256 KiB chunks divide; PE 0 prints each size.
run ring-reduce 'out=$(cat); ! grep -q "error" <<<"$out" && [ "$(grep -c "ms$" <<<"$out")" -eq 3 ]' \
  "$ex/ring-reduce" -b 8M -e 32M
# No check of its own (it prints times); -c keeps its routing tables in device memory. Its
# offset exchange reads PE threadIdx.x / npes for 16 x npes threads: it needs 16 PEs or more
# (with fewer, Symmetra's checks stop it naming the PE out of range).
if [ "$n" -ge 16 ]; then
  # shellcheck disable=SC2016
  run moe_shuffle 'out=$(cat); for i in $(seq 0 $((n-1))); do
      grep -q "^Rank: $i Time: " <<<"$out" || exit 1; done' \
    "$ex/moe_shuffle" -c
fi
run user-buffer '[ "$(grep -c "^No errors found" )" -eq '"$n"' ]' "$ex/user-buffer"
# Joining through MPI (a communicator, a unique id broadcast by MPI_Bcast).
if command -v mpirun >/dev/null && [ -x "$ex/mpi-based-init" ]; then
  for prog in mpi-based-init uid-based-init dev-guide-ring-mpi; do
    wanted "$prog" || continue
    log="$logs/$prog.$n.out"
    timeout 120 mpirun --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH -x SYMMETRA_HOSTS="$n" \
      -x CUDA_DEVICE_MAX_CONNECTIONS=32 \
      -x SYMMETRA_TRANSPORT -x UCX_TLS -n "$n" "$ex/$prog" >"$log" 2>&1
    rc=$?
    if [ "$prog" = dev-guide-ring-mpi ]; then
      ok=1; for i in $(seq 0 $((n - 1))); do grep -qx "$i: received message $(( (i + n - 1) % n ))" "$log" || ok=0; done
    else
      ok=1; for i in $(seq 0 $((n - 1))); do grep -qxF "[$i of $n] run complete " "$log" || ok=0; done
    fi
    if [ $rc -eq 0 ] && [ $ok -eq 1 ]; then echo "ok   $prog ($n PEs, mpirun)"; else
      echo "FAIL $prog ($n PEs, mpirun, rc=$rc):"; tail -15 "$log"; failed=$((failed + 1)); fi
  done
fi
[ $failed -eq 0 ] && echo "upstream examples: all passed ($n PEs)" || { echo "upstream examples: $failed failed"; exit 1; }

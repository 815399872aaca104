#!/usr/bin/env bash
# The remote path side by side with its baselines, in one run (docs/perf_remote.md):
#   1. 2 PEs on 2 forced hosts, each in a network namespace of its own (tools/netns-hosts; on
#      loopback where it cannot make them, which it says), UCX over TCP: symmetra-perf's remote
#      rows (put/get latency and bandwidth 8 B - 4 MiB, p, fetch_add, put_signal ping-pong)
#      against ucx-raw-perf doing the same operations with UCP alone, in the same namespaces;
#      and the served path (SYMMETRA_UCX_SERVED=1) against UCX's RMA and atomics.
#   2. The same rows against Open MPI's OSHMEM (spml ucx, UCX_TLS=tcp) on loopback, where oshrun
#      starts its PEs (it cannot put them in namespaces); Symmetra runs on loopback for this one.
#   3. All-reduce of 4 PEs on 2 and on 4 forced hosts, 8 B - 16 MiB: the selector's pick
#      (allreduce_auto) and NVRAR's hierarchy against MPI_Allreduce over TCP (pml ob1, btl
#      tcp,self), on loopback, where mpirun starts its ranks.
# Ratios are Symmetra / baseline (below 1: Symmetra is faster).
#   bench/remote_compare.sh BUILD OUT [--quick]
set -uo pipefail
build=$1 out=$2
shift 2
quick=""; [ "${1:-}" = "--quick" ] && quick=--quick
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/bin"
mkdir -p "$out"
export SYMMETRA_TRANSPORT=ucx UCX_TLS=tcp BENCH_SETTLE_MS="${BENCH_SETTLE_MS:-10}"
[ -x "$bin/ucx-raw-perf" ] || { echo "(no UCX in this build: no remote comparison)"; exit 0; }

echo "== Remote rows: Symmetra vs raw UCX, 2 PEs on 2 hosts, UCX over TCP"
"$here/../tools/netns-hosts" run 2 -- bash -c '
  bin=$1 out=$2 quick=$3
  args="--hosts 2 --rendezvous tcp:$SYMMETRA_NETNS_HOST0"
  path="namespaces (veth)"
  if [ -n "$SYMMETRA_NETNS_PREFIX" ]; then args="$args --netns $SYMMETRA_NETNS_PREFIX"; else path="loopback"; fi
  echo "$path" >"$out/remote.path"
  "$bin/symrun" -n 2 $args "$bin/symmetra-perf" --parts rma,small $quick | grep "^{" >"$out/remote_symmetra.jsonl"
  "$bin/symrun" -n 2 $args "$bin/ucx-raw-perf" $quick | grep "^{" >"$out/remote_ucx.jsonl"
  SYMMETRA_UCX_SERVED=1 "$bin/symrun" -n 2 $args "$bin/symmetra-perf" --parts rma,small $quick |
    grep "^{" >"$out/remote_served.jsonl"
' _ "$bin" "$out" "$quick"
echo "(path: $(cat "$out/remote.path" 2>/dev/null))"
python3 "$here/compare.py" "$out/remote_symmetra.jsonl" "$out/remote_ucx.jsonl" | tee "$out/remote_vs_ucx.txt"
echo; echo "== Served (SYMMETRA_UCX_SERVED=1: gets and atomics answered by the target's CPU, the"
echo "   path of memory UCX cannot register) vs UCX's RMA and atomics, same namespaces"
python3 "$here/compare.py" "$out/remote_served.jsonl" "$out/remote_symmetra.jsonl" |
  tee "$out/remote_served_vs_rma.txt"

if command -v oshcc >/dev/null && command -v oshrun >/dev/null; then
  echo; echo "== Remote rows: Symmetra vs Open MPI OSHMEM (spml ucx), 2 PEs, UCX over TCP, loopback"
  oshcc -O2 "$here/oshmem/oshmem_perf.c" -o "$out/oshmem_perf"
  "$bin/symrun" -n 2 --hosts 2 --rendezvous tcp:127.0.0.1 "$bin/symmetra-perf" --parts rma,small \
    $quick | grep "^{" >"$out/loopback_symmetra.jsonl"
  # Open MPI 4.1.4 + UCX 1.13 (Debian 12) crash inside shmem_finalize after the results are out.
  oshrun --allow-run-as-root --oversubscribe --mca spml ucx -x UCX_TLS=tcp -x BENCH_SETTLE_MS \
    -n 2 "$out/oshmem_perf" oshmem $quick 2>"$out/oshmem_tcp.stderr" | grep '^{' \
    >"$out/oshmem_tcp.jsonl" || true
  python3 "$here/compare.py" "$out/loopback_symmetra.jsonl" "$out/oshmem_tcp.jsonl" |
    tee "$out/remote_vs_oshmem.txt"
fi

if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpicc -O2 "$here/mpi/allreduce_perf.c" -o "$out/mpi_allreduce_perf"
  for hosts in 2 4; do
    echo; echo "== All-reduce, 4 PEs on $hosts hosts: Symmetra vs MPI_Allreduce, TCP, loopback"
    "$bin/symrun" -n 4 --hosts "$hosts" --rendezvous tcp:127.0.0.1 "$bin/symmetra-perf" \
      --parts allreduce --allreduce-max $((16 << 20)) $quick | grep "^{" \
      >"$out/allreduce_${hosts}hosts_symmetra.jsonl"
    mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl tcp,self -n 4 \
      "$out/mpi_allreduce_perf" $quick >"$out/allreduce_${hosts}hosts_mpi.jsonl"
    grep -E '"op":"allreduce_(auto|hierarchical)"' "$out/allreduce_${hosts}hosts_symmetra.jsonl" \
      >"$out/allreduce_${hosts}hosts_ours.jsonl"
    python3 "$here/compare.py" "$out/allreduce_${hosts}hosts_ours.jsonl" \
      "$out/allreduce_${hosts}hosts_mpi.jsonl" | tee "$out/allreduce_${hosts}hosts_vs_mpi.txt"
  done
fi

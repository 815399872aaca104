#!/usr/bin/env bash
# NVSHMEM's own perftest/ programs (NVIDIA's sources, not in this repository: docs/nvshmem.md#nvidias-
# perftests), built unchanged against the installed package (tools/gpu-pack), run and checked by
# what they print. They time and do not check data, so the check is that each run ends well and
# prints every table it should, each with rows of positive times: print_table_basic drops a row
# whose value is 0, so a run whose kernel did nothing prints a title with no rows.
#   upstream_perftests.sh BIN_DIR PREFIX LOG_DIR [--hosts]
# Layouts: 2 PEs on this host (the point-to-point tests need exactly 2) and 4 for the collectives;
# their select_device takes the node rank modulo the GPUs present, so PEs share the one GPU. With
# --hosts, 2 PEs on two forced hosts (UCX over TCP; kernels through the proxy, so tools/gpu-pack
# compiles them with SYMMETRA_DEVICE_REMOTE=1).
set -uo pipefail
bin=$1 prefix=$2 logs=$3 hosts=${4:-}
mkdir -p "$logs"
export LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}"
# Small sizes and few iterations: this checks that they run, bench/nvshmem times.
args=(-b 8 -e 64K -n 50 -w 5)
failed=0

# tables FILE NAME COUNT: FILE holds COUNT tables titled NAME, each with at least one row of a
# size and a positive, finite value.
tables() {
  awk -v name="$2" -v want="$3" '
    /^#/ { t = $0; sub(/^# */, "", t); cur = (t == name); if (cur) { n++; rows[n] = 0 }; next }
    cur && /^[0-9]+ / { v = $NF + 0; if (v > 0 && $NF !~ /nan|inf/) rows[n]++ }
    END {
      if (n != want) { printf "%d tables %s, expected %d\n", n, name, want; exit 1 }
      for (i = 1; i <= n; i++) if (rows[i] == 0) { printf "table %s #%d has no rows\n", name, i; exit 1 }
    }' "$1"
}
# run PES NAME "TABLE COUNT ..." PROG [ARGS...]
run() {
  local pes=$1 name=$2 want=$3; shift 3
  local log="$logs/$name.$pes${hosts:+.hosts}.out" launch=("$prefix/bin/nvshmrun" -n "$pes")
  [ -n "$hosts" ] && launch+=(--hosts "$pes")
  timeout 180 "${launch[@]}" "$@" "${args[@]}" >"$log" 2>&1
  local rc=$? ok=1
  [ $rc -eq 0 ] || ok=0
  grep -qi 'cuda failed\|error' "$log" && ok=0
  set -- $want
  while [ $# -ge 2 ] && [ $ok -eq 1 ]; do tables "$log" "$1" "$2" >>"$log" || ok=0; shift 2; done
  if [ $ok -eq 1 ]; then
    echo "ok   $name ($pes PEs${hosts:+, forced hosts})"
  else
    echo "FAIL $name ($pes PEs${hosts:+, forced hosts}, rc=$rc):"; tail -15 "$log"; failed=$((failed + 1))
  fi
}

if [ -n "$hosts" ]; then
  export SYMMETRA_TRANSPORT=ucx UCX_TLS=${UCX_TLS:-tcp}
fi
run 2 shmem_p_latency "shmem_p_latency 1" "$bin/shmem_p_latency"
run 2 shmem_put_latency "shmem_put_latency 3" "$bin/shmem_put_latency"
run 2 shmem_put_signal_ping_pong_latency "shmem_put_ping_lat 1" \
  "$bin/shmem_put_signal_ping_pong_latency"
run 2 shmem_put_bw "shmem_put_bw_uni 1" "$bin/shmem_put_bw"
run 2 host_latency_on_stream "Latency 1" "$bin/latency"
run 2 host_latency_host "Latency 1" "$bin/latency" --issue host
run 2 host_latency_read "Latency 1" "$bin/latency" --issue host --dir read
for pes in 2 4; do
  [ -n "$hosts" ] && [ "$pes" -ne 2 ] && continue
  run $pes barrier_latency "barrier_device 3 barrier_all_device 3" "$bin/barrier_latency"
  # 7 operations x 2 types x thread, warp and block.
  run $pes reduction_latency "device_reduction 42" "$bin/reduction_latency"
done
[ $failed -eq 0 ] || { echo "$failed perftest run(s) failed"; exit 1; }
echo "NVIDIA's perftests: all passed${hosts:+ (forced hosts)}"

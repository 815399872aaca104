#!/usr/bin/env bash
# NVSHMEM's own perftest/ programs (NVIDIA's sources, not in this repository: docs/nvshmem.md#nvidias-
# perftests), built unchanged against the installed package (tools/gpu-pack), run and checked by
# what they print. They time and do not check data, so the check is that each run ends well and
# prints every table it should, each with rows of positive times: print_table_basic drops a row
# whose value is 0, so a run whose kernel did nothing prints a title with no rows.
#   upstream_perftests.sh BIN_DIR PREFIX LOG_DIR [--hosts] [NAME...]
# With NAMEs (shell patterns: 'shmem_atomic_*'), only the runs they match.
# Layouts: 2 PEs on this host (the point-to-point tests need exactly 2) and 4 for the collectives;
# their select_device takes the node rank modulo the GPUs present, so PEs share the one GPU. With
# --hosts, 2 PEs on two forced hosts (UCX over TCP; kernels through the proxy, so tools/gpu-pack
# compiles them with SYMMETRA_DEVICE_REMOTE=1).
set -uo pipefail
bin=$1 prefix=$2 logs=$3 hosts=
shift 3
[ "${1:-}" = --hosts ] && { hosts=1; shift; }
only=("$@")
mkdir -p "$logs"
export LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}"
# Small sizes and few iterations: this checks that they run, bench/nvshmem times.
args=(-b 8 -e 64K -n 50 -w 5)
failed=0 ran=0

# tables FILE NAME COUNT: FILE holds COUNT tables titled NAME (a trailing * matches any title
# that begins with the rest), each with at least one row of a size and a positive, finite value
# in the column its header names latency, BW or msgrate (NVIDIA's three printers put it first,
# fifth or sixth, before the collectives' bandwidths, which are 0.000 at small sizes).
tables() {
  awk -v name="$2" -v want="$3" '
    function match_name(t) {
      if (substr(name, length(name)) == "*") return index(t, substr(name, 1, length(name) - 1)) == 1
      return t == name
    }
    /^#/ { t = $0; sub(/^# */, "", t); cur = match_name(t); if (cur) { n++; rows[n] = 0; col = 0 }
           next }
    cur && !col && /^size/ { for (i = 1; i <= NF; i++) if ($i ~ /^(latency|BW|msgrate)/) { col = i; break } }
    cur && col && /^[0-9]+ / { v = $col + 0; if (v > 0 && $col !~ /nan|inf/) rows[n]++ }
    END {
      if (n != want) { printf "%d tables %s, expected %d\n", n, name, want; exit 1 }
      for (i = 1; i <= n; i++) if (rows[i] == 0) { printf "table %s #%d has no rows\n", name, i; exit 1 }
    }' "$1"
}
# run PES NAME "TABLE COUNT ..." PROG [ARGS...]; RUN_ARGS replaces the size and iteration
# arguments.
run() {
  local pes=$1 name=$2 want=$3; shift 3
  if [ ${#only[@]} -gt 0 ]; then
    local pat hit=
    for pat in "${only[@]}"; do [[ $name == $pat ]] && hit=1; done
    [ -n "$hit" ] || return 0
  fi
  ran=$((ran + 1))
  local log="$logs/$name.$pes${hosts:+.hosts}.out" launch=("$prefix/bin/nvshmrun" -n "$pes")
  local a=("${args[@]}")
  [ -n "${RUN_ARGS:-}" ] && read -ra a <<<"$RUN_ARGS"
  [ -n "$hosts" ] && launch+=(--hosts "$pes")
  timeout 180 "${launch[@]}" "$@" "${a[@]}" >"$log" 2>&1
  local rc=$? ok=1
  [ $rc -eq 0 ] || ok=0
  grep -qi 'cuda failed\|error' "$log" && ok=0
  set -- $want
  while [ $# -ge 2 ] && [ $ok -eq 1 ]; do tables "$log" "$1" "$2" >>"$log" || ok=0; shift 2; done
  if [ $ok -eq 1 ]; then
    # Its first table's first and last rows, for the log: sizes and times.
    echo "ok   $name ($pes PEs${hosts:+, forced hosts}):" \
      "$(awk '/^[0-9]+ / { if (!n++) f = $0; l = $0 } /^#/ && n { exit } END { print f " ... " l }' \
        "$log" | tr -s ' ')"
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
# Its thread table is titled shmem_g_latency (NVIDIA's name), its warp and block ones get.
run 2 shmem_get_latency "shmem_g_latency 1 shmem_get_latency 2" "$bin/shmem_get_latency"
run 2 shmem_signal_ping_pong_latency "shmem_sig_ping_lat 1" "$bin/shmem_signal_ping_pong_latency"
run 2 shmem_p_bw "shmem_p_bw 1" "$bin/shmem_p_bw"
# Every atomic of NVSHMEM's device API, one operation a run, each over the types it is defined
# for (a table per type: nine, five for and/or, seven for xor).
for op in inc:9 fetch_inc:9 set:9 add:9 fetch_add:9 and:5 fetch_and:5 or:5 fetch_or:5 xor:7 \
    fetch_xor:7 swap:9 compare_swap:9; do
  run 2 "shmem_atomic_latency_${op%:*}" "shmem_at_* ${op#*:}" "$bin/shmem_atomic_latency" \
    -a "${op%:*}"
done
run 2 host_latency_on_stream "Latency 1" "$bin/latency"
run 2 host_latency_host "Latency 1" "$bin/latency" --issue host
run 2 host_latency_read "Latency 1" "$bin/latency" --issue host --dir read
# The collectives' kernels of PEs in different processes on one GPU do not run at once (no MPS):
# the GPU gives each context time slices of about 2 ms, so a step that waits for a peer takes
# that long (docs/nvshmem.md#nvidias-perftests). Few sizes and iterations keep them in bounds.
for pes in 2 4; do
  [ -n "$hosts" ] && [ "$pes" -ne 2 ] && continue
  RUN_ARGS="-b 8 -e 64 -n 5 -w 1" run $pes barrier_latency \
    "barrier_device 3 barrier_all_device 3" "$bin/barrier_latency"
  # 7 operations x 2 types x thread, warp and block.
  RUN_ARGS="-b 8 -e 64 -n 2 -w 1" run $pes reduction_latency "device_reduction 42" \
    "$bin/reduction_latency"
  # alltoall, fcollect and broadcast: 32- and 64-bit, thread, warp and block.
  for coll in alltoall:alltoall fcollect:fcollect bcast:bcast; do
    RUN_ARGS="-b 8 -e 64 -n 2 -w 1" run $pes ${coll%:*}_latency "${coll#*:}_device 6" \
      "$bin/${coll%:*}_latency"
  done
  RUN_ARGS="-b 8 -e 64 -n 5 -w 1" run $pes sync_latency "sync_device 3 sync_all_device 3" \
    "$bin/sync_latency"
  # The host's collectives on a stream (int, and the reductions in bf16 too). barrier_all and
  # sync_all take no arguments and run their own 1000 and 128 iterations.
  for coll in alltoall broadcast fcollect reducescatter reduction barrier sync; do
    RUN_ARGS="-b 8 -e 64 -n 5 -w 1" run $pes ${coll}_on_stream "${coll}_on_stream 1" \
      "$bin/${coll}_on_stream"
  done
  for coll in reducescatter reduction; do
    RUN_ARGS="-b 8 -e 64 -n 5 -w 1 -d bf16" run $pes ${coll}_on_stream_bf16 \
      "${coll}_on_stream 1" "$bin/${coll}_on_stream"
  done
  RUN_ARGS=" " run $pes barrier_all_on_stream "barrier_all_on_stream 1" "$bin/barrier_all_on_stream"
  RUN_ARGS=" " run $pes sync_all_on_stream "sync_all_on_stream 1" "$bin/sync_all_on_stream"
done
[ $ran -gt 0 ] || { echo "no perftest run matched: ${only[*]}"; exit 1; }
[ $failed -eq 0 ] || { echo "$failed perftest run(s) failed"; exit 1; }
echo "NVIDIA's perftests: all passed${hosts:+ (forced hosts)}"

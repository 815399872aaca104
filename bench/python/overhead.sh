#!/usr/bin/env bash
# What Python adds per call (issue 22's target: 0.5 us or less): the host calls of
# bench/py_overhead.cpp from C++ and from the symmetra package (bench/python/overhead.py), on 2
# PEs, the two sides alternating RUNS times; prints each side's median per call, the difference
# and the ratio, as a table and JSON lines (build/python/overhead.jsonl).
#   bench/python/overhead.sh [RUNS]      (needs tools/setup and tools/python-test's install)
#   bench/python/overhead.sh --stream [RUNS]   (the GPU machine: the stream forms' enqueue cost,
#     both sides in one process, blocks alternating; PY_OVERHEAD_PYTHON, PY_OVERHEAD_SYMRUN name
#     the programs; tools/gpu-check)
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=""
if [ "${1:-}" = "--stream" ]; then mode=--stream; shift; fi
runs="${1:-4}"
venv=build/venv
py="${PY_OVERHEAD_PYTHON:-$venv/bin/python}"
symrun="${PY_OVERHEAD_SYMRUN:-$venv/bin/symrun}"
cpp="${PY_OVERHEAD_CPP:-build/cpu-release/bin/symmetra-py-overhead}"
if [ -z "${PY_OVERHEAD_CPP:-}" ]; then
  cmake --preset cpu-release >/dev/null && cmake --build build/cpu-release --target symmetra-py-overhead >/dev/null
fi
out=build/python/overhead$mode.jsonl
mkdir -p build/python && : >"$out"
for ((r = 0; r < runs; ++r)); do
  if [ -n "$mode" ]; then  # both sides in one process (overhead.py's stream_main)
    "$symrun" -n 2 "$py" bench/python/overhead.py $mode >>"$out"
  elif ((r % 2 == 0)); then
    "$symrun" -n 2 "$cpp" $mode | grep '^{' >>"$out"
    "$symrun" -n 2 "$py" bench/python/overhead.py $mode >>"$out"
  else
    "$symrun" -n 2 "$py" bench/python/overhead.py $mode >>"$out"
    "$symrun" -n 2 "$cpp" $mode | grep '^{' >>"$out"
  fi
done
"$py" - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ops = list(dict.fromkeys(r["op"] for r in rows))
mins = any("us_min" in r for r in rows)  # --stream: each side's fastest block too
print(f"{'op':18} {'bytes':>5} {'C++ us':>8} {'Python us':>10} {'added us':>9} {'ratio':>6}" +
      (f" {'added, fastest blocks':>22} {'added, paired':>14}" if mins else ""))
for op in ops:
    side = lambda s: [r for r in rows if r["op"] == op and r["side"] == s]
    cpp = statistics.median(r["us"] for r in side("cpp"))
    py = statistics.median(r["us"] for r in side("python"))
    b = next(r["bytes"] for r in rows if r["op"] == op)
    row = {"bench": "py_overhead_summary", "op": op, "bytes": b, "cpp_us": round(cpp, 4),
           "python_us": round(py, 4), "added_us": round(py - cpp, 4), "ratio": round(py / cpp, 3)}
    line = f"{op:18} {b:>5} {cpp:8.3f} {py:10.3f} {py - cpp:9.3f} {py / cpp:6.2f}"
    if mins:
        fast = min(r["us_min"] for r in side("python")) - min(r["us_min"] for r in side("cpp"))
        row["added_fastest_us"] = round(fast, 4)
        line += f" {fast:22.3f}"
        # The median over runs of each run's median paired difference (overhead.py).
        paired = statistics.median(r["added_paired_us"] for r in side("python"))
        row["added_paired_us"] = round(paired, 4)
        line += f" {paired:14.3f}"
    print(line)
    print(json.dumps(row))
PY

#!/usr/bin/env bash
# What Python adds per call (issue 22's target: 0.5 us or less): the host calls of
# bench/py_overhead.cpp from C++ and from the symmetra package (bench/python/overhead.py), on 2
# PEs, the two sides alternating RUNS times; prints each side's median per call, the difference
# and the ratio, as a table and JSON lines (build/python/overhead.jsonl).
#   bench/python/overhead.sh [RUNS]      (needs tools/setup and tools/python-test's install)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-4}"
venv=build/venv
cpp=build/cpu-release/bin/symmetra-py-overhead
cmake --preset cpu-release >/dev/null && cmake --build build/cpu-release --target symmetra-py-overhead >/dev/null
out=build/python/overhead.jsonl
mkdir -p build/python && : >"$out"
for ((r = 0; r < runs; ++r)); do
  if ((r % 2 == 0)); then
    "$venv/bin/symrun" -n 2 "$cpp" | grep '^{' >>"$out"
    "$venv/bin/symrun" -n 2 "$venv/bin/python" bench/python/overhead.py >>"$out"
  else
    "$venv/bin/symrun" -n 2 "$venv/bin/python" bench/python/overhead.py >>"$out"
    "$venv/bin/symrun" -n 2 "$cpp" | grep '^{' >>"$out"
  fi
done
"$venv/bin/python" - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ops = list(dict.fromkeys(r["op"] for r in rows))
print(f"{'op':18} {'bytes':>5} {'C++ us':>8} {'Python us':>10} {'added us':>9} {'ratio':>6}")
for op in ops:
    cpp = statistics.median(r["us"] for r in rows if r["op"] == op and r["side"] == "cpp")
    py = statistics.median(r["us"] for r in rows if r["op"] == op and r["side"] == "python")
    b = next(r["bytes"] for r in rows if r["op"] == op)
    print(f"{op:18} {b:>5} {cpp:8.3f} {py:10.3f} {py - cpp:9.3f} {py / cpp:6.2f}")
    print(json.dumps({"bench": "py_overhead_summary", "op": op, "bytes": b, "cpp_us": round(cpp, 4),
                      "python_us": round(py, 4), "added_us": round(py - cpp, 4),
                      "ratio": round(py / cpp, 3)}))
PY

"""The Python side of the overhead benchmark: the calls of bench/py_overhead.cpp, through the
symmetra package, in the same loops. Run under symrun (bench/python/overhead.sh runs both sides
and compares them)."""

import json
import time

import numpy as np

import symmetra as s


def median_us_per_call(calls, reps, body):
    for _ in range(calls // 10 + 1):
        body()
    per_call = []
    for _ in range(reps):
        s.barrier_all()
        t0 = time.perf_counter()
        for _ in range(calls):
            body()
        per_call.append((time.perf_counter() - t0) * 1e6 / calls)
    per_call.sort()
    return per_call[len(per_call) // 2]


def main():
    s.init()
    me, n = s.my_pe(), s.n_pes()
    peer = (me + 1) % n
    word = s.zeros(8, "int64")
    buf = s.zeros(8, "int64")
    total = s.zeros(8, "float32")
    src = s.zeros(8, "float32")
    src.numpy()[:] = 1
    local = np.arange(1, 9, dtype=np.int64)
    world = s.team_world()
    p, g, put, get, fadd, quiet = s.p, s.g, s.put, s.get, s.atomic_fetch_add, s.quiet
    barrier_all, allreduce = s.barrier_all, s.allreduce
    ops = [
        ("p", 8, 20000, lambda: p(word, 7, peer)),
        ("g", 8, 20000, lambda: g(word, peer)),
        ("put", 64, 20000, lambda: put(buf, local, peer)),
        ("get", 64, 20000, lambda: get(local, buf, peer)),
        ("atomic_fetch_add", 8, 20000, lambda: fadd(word, 1, peer)),
        ("quiet", 0, 20000, quiet),
        ("barrier_all", 0, 2000, barrier_all),
        ("allreduce", 32, 2000, lambda: allreduce(total, src, "sum", world)),
    ]
    for name, nbytes, calls, body in ops:
        us = median_us_per_call(calls, 9, body)
        if me == 0:
            print(json.dumps({"bench": "py_overhead", "side": "python", "op": name,
                              "bytes": nbytes, "pes": n, "us": round(us, 4)}), flush=True)
    s.barrier_all()
    for a in (src, total, buf, word):
        s.free(a)
    s.finalize()


def stream_main():
    """--stream (GPU backend): the enqueue cost of each stream form. Blocks of 200 enqueues from
    Python and 200 of the same C++ form called from C++ in this process (the extension's
    _bench_cpp_enqueues), alternating, on one stream and the same memory; the stream is drained
    after each block, outside the time. Both sides print their median and fastest of 31 blocks,
    and the median of the paired differences (each Python block less the C++ block next to it:
    the driver's and the GPU's drift over the run cancels)."""
    import torch

    from symmetra import _symmetra

    s.init()
    me, n = s.my_pe(), s.n_pes()
    peer = (me + 1) % n
    buf, src = s.zeros(8, "int64"), s.zeros(8, "int64")
    sig = s.zeros(1, "uint64")
    total, fsrc = s.zeros(8, "float32"), s.zeros(8, "float32")
    stream = torch.cuda.Stream()
    h = stream.cuda_stream  # an int: the extension's cheapest stream argument
    world = s.team_world()
    put, signal_op, allreduce, barrier = s.put, s.signal_op, s.allreduce, s.barrier
    cpp = _symmetra._bench_cpp_enqueues
    calls, reps = 200, 31

    # The loops call the binding as a program would, with no wrapper of the harness per call.
    def put_loop():
        for _ in range(calls):
            put(buf, src, peer, stream=h)

    def signal_op_loop():
        for _ in range(calls):
            signal_op(sig, 1, peer, stream=h)

    def allreduce_loop():
        for _ in range(calls):
            allreduce(total, fsrc, "sum", world, stream=h)

    def barrier_loop():
        for _ in range(calls):
            barrier(None, stream=h)

    ops = [
        ("put_on_stream", 64, put_loop, ("put", buf, src)),
        ("signal_op_on_stream", 8, signal_op_loop, ("signal_op", sig, sig)),
        ("allreduce_on_stream", 32, allreduce_loop, ("allreduce", total, fsrc)),
        ("barrier_all_on_stream", 0, barrier_loop, ("barrier_all", sig, sig)),
    ]
    for name, nbytes, loop, (cop, a, b) in ops:
        sides = {"python": [], "cpp": []}
        for rep in range(reps):
            for side in (("python", "cpp") if rep % 2 == 0 else ("cpp", "python")):
                s.barrier_all()
                if side == "python":
                    t0 = time.perf_counter()
                    loop()
                    sides[side].append((time.perf_counter() - t0) * 1e6 / calls)
                else:
                    sides[side].append(cpp(cop, a, b, peer, h, calls))
                stream.synchronize()
        if me == 0:
            paired = sorted(p - c for p, c in zip(sides["python"], sides["cpp"]))
            for side, per_call in sides.items():
                per_call.sort()
                # The median block, and the fastest: noise (another process's work, the
                # driver's queue) only adds time, so the fastest blocks show the cost itself.
                print(json.dumps({"bench": "py_overhead", "side": side, "op": name,
                                  "bytes": nbytes, "pes": n, "us": round(per_call[reps // 2], 4),
                                  "us_min": round(per_call[0], 4),
                                  "added_paired_us": round(paired[reps // 2], 4),
                                  "in_process": True}),
                      flush=True)
    s.barrier_all()
    for x in (fsrc, total, sig, src, buf):
        s.free(x)
    s.finalize()


if __name__ == "__main__":
    import sys

    stream_main() if "--stream" in sys.argv[1:] else main()

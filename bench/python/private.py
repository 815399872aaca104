"""symmetra.allreduce on private NumPy buffers against the same on symmetric ones (symmetra.empty),
side by side in one job, timed in alternating rounds (issue 44). Private buffers at the sizes where
the selector picks an algorithm that needs symmetric ones go through a symmetric staging block
(docs/python.md#private-buffers). Both results are checked against a float64 reference first.
Prints a table on PE 0, one JSON line per size and a summary:
  {"bench":"py_private","bytes":..,"pes":..,"private_us":..,"symmetric_us":..,"ratio":..}
Usage: symrun -n 2 python bench/python/private.py"""

import json
import time

import numpy as np

import symmetra
from _timing import median_us


def main():
    symmetra.init(backend="cpu")
    me, n = symmetra.my_pe(), symmetra.n_pes()
    seed = int(time.time()) // 60  # fresh per run, the same on every PE of the job
    if me == 0:
        print(f"{'bytes':>9} {'private us':>11} {'symmetric us':>13} {'ratio':>6}")
    worst = 0.0
    for nbytes in (4096, 65536, 1 << 20, 4 << 20, 16 << 20):
        count = nbytes // 4
        inputs = [np.random.default_rng([seed, r, nbytes]).standard_normal(count).astype(np.float32)
                  for r in range(n)]
        want = np.sum([x.astype(np.float64) for x in inputs], axis=0)
        ps, pd = inputs[me].copy(), np.empty(count, np.float32)
        ss, sd = symmetra.empty(count, "float32"), symmetra.empty(count, "float32")
        ss.numpy()[:] = inputs[me]
        symmetra.allreduce(pd, ps)
        symmetra.allreduce(sd, ss)
        for name, got in (("private", pd), ("symmetric", sd.numpy())):
            err = np.max(np.abs(got - want))
            if not err <= 1e-5 * n * (1 + np.max(np.abs(want))):
                raise SystemExit(f"[pe {me}] {nbytes} B {name}: WRONG RESULT, max error {err}")
        iters = 200 if nbytes <= 65536 else 20
        rounds = []
        for _ in range(3):  # alternating rounds: the machine's state moves both alike
            symmetra.barrier_all()
            p = median_us(lambda: symmetra.allreduce(pd, ps), iters)
            symmetra.barrier_all()
            s = median_us(lambda: symmetra.allreduce(sd, ss), iters)
            rounds.append((p / s, p, s))
        ratio, p, s = sorted(rounds)[1]
        worst = max(worst, ratio)
        if me == 0:
            print(f"{nbytes:>9} {p:11.1f} {s:13.1f} {ratio:6.2f}")
            print(json.dumps({"bench": "py_private", "bytes": nbytes, "pes": n,
                              "private_us": round(p, 2), "symmetric_us": round(s, 2),
                              "ratio": round(ratio, 3)}), flush=True)
        symmetra.free(ss)
        symmetra.free(sd)
    if me == 0:
        print(f"summary: private / symmetric all-reduce on {n} PEs, worst {worst:.2f} (aim 1.3)")
    symmetra.finalize()


if __name__ == "__main__":
    main()

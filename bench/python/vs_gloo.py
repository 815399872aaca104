"""symmetra.torch's all-reduce against torch.distributed with gloo, on CPU tensors, side by side
in one job (issue 22): every PE a process started by symrun, both libraries in each, the two
timed in alternation at each size. Prints a table on PE 0 and one JSON line per size:
  {"bench":"py_vs_gloo","bytes":..,"pes":..,"symmetra_us":..,"gloo_us":..,"ratio":..}
ratio = symmetra / gloo (below 1: Symmetra is faster). Usage: symrun -n 2 python vs_gloo.py"""

import json
import os

import torch
import torch.distributed as dist

import symmetra
from _timing import median_us
import symmetra.torch as st



def main():
    symmetra.init(backend="cpu")
    me, n = symmetra.my_pe(), symmetra.n_pes()
    port = int(os.environ.get("VS_GLOO_PORT", "29533"))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=me, world_size=n)
    if me == 0:
        print(f"{'bytes':>9} {'symmetra us':>12} {'gloo us':>9} {'ratio':>6}")
    for nbytes in (8, 256, 4096, 65536, 1 << 20, 4 << 20):
        count = nbytes // 4
        sym = st.empty(count, dtype=torch.float32)
        ref = torch.randn(count, generator=torch.Generator().manual_seed(me))
        g = ref.clone()
        sym.copy_(ref)
        # Checked once: both give the sum of every PE's ref.
        st.allreduce(sym)
        dist.all_reduce(g)
        assert torch.allclose(sym, g, rtol=1e-5, atol=1e-5 * n), "the two all-reduces disagree"
        iters = 200 if nbytes <= 65536 else 20
        s_us, g_us = [], []
        for _ in range(3):  # alternating rounds: the machine's state moves both alike
            symmetra.barrier_all()
            s_us.append(median_us(lambda: st.allreduce(sym), iters))
            dist.barrier()
            g_us.append(median_us(lambda: dist.all_reduce(g), iters))
        s, gl = sorted(s_us)[1], sorted(g_us)[1]
        if me == 0:
            print(f"{nbytes:>9} {s:12.2f} {gl:9.2f} {s / gl:6.2f}")
            print(json.dumps({"bench": "py_vs_gloo", "bytes": nbytes, "pes": n,
                              "symmetra_us": round(s, 3), "gloo_us": round(gl, 3),
                              "ratio": round(s / gl, 3)}), flush=True)
        st.free(sym)
    dist.destroy_process_group()
    symmetra.finalize()


if __name__ == "__main__":
    main()

"""docs/python.md's PyTorch example runs as written on the GPU: PE 0 of this job runs it as a job
of its own on 2 PEs (the CUDA backend), the other PEs wait at a barrier."""

import os
import re
import subprocess
import sys

import symmetra
from symmetra._launch import binary

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_torch_example(tmp_path, me):
    text = open(DOC).read()
    code = dict(re.findall(r"```python\n# example: (\w+)\n(.*?)```", text, re.S))["torch"]
    if me == 0:
        prog = tmp_path / "example_torch.py"
        prog.write_text(code)
        # This job's own variables stay out (as python/tests/test_setup.py's CLEAN_ENV).
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SYMMETRA_RANK", "SYMMETRA_SIZE", "SYMMETRA_BOOTSTRAP",
                                    "SYMMETRA_LOCAL", "SYMMETRA_LAUNCHER", "SYMMETRA_SECRET"))}
        r = subprocess.run([binary(), "-n", "2", sys.executable, str(prog)], env=env,
                           capture_output=True, text=True, timeout=120)
        print(r.stdout)
        assert r.returncode == 0, r.stdout + r.stderr
        assert sorted(re.findall(r"pe \d: .*", r.stdout)) == [
            "pe 0: after the graph 6", "pe 0: sum 3, next PE's copy 3",
            "pe 1: after the graph 6", "pe 1: sum 3, next PE's copy 3"]
    symmetra.barrier_all()

"""Jobs of their own inside a test: PE 0 of this job starts a program as a job of `pes` PEs under
the installed symrun while the other PEs wait at a barrier (so a slow job fails on PE 0, inside
the others' bounded wait). Not a test module: the tests import it."""

import os
import subprocess
import sys

import symmetra as s
from symmetra._launch import binary
from test_setup import CLEAN_ENV


def run_job(tmp_path, me, code, pes, name="job.py", **env):
    """PE 0 runs `code` as a job of `pes` PEs with CLEAN_ENV plus `env`; returns its
    CompletedProcess there, None on the other PEs."""
    result = None
    try:
        if me == 0:
            prog = tmp_path / name
            prog.write_text(code)
            limit = 0.8 * float(os.environ.get("SYMMETRA_TIMEOUT_S", "60"))
            result = subprocess.run([binary(), "-n", str(pes), sys.executable, str(prog)],
                                    env=dict(CLEAN_ENV, **env), capture_output=True, text=True,
                                    timeout=limit)
    finally:
        s.barrier_all()
    return result

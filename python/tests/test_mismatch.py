"""Collectives called differently on different PEs, and a PE that stays away past the timeout
(issue 44): with SYMMETRA_CHECK=1 a size or dtype that differs between PEs is a SymmetraError on
every PE naming both values, and nothing moves; a PE late past SYMMETRA_TIMEOUT_S makes the
waiting PE's call raise symmetra.Timeout naming it (never an abort of the process), and the late
PE's call, if it waits, raises JobStopped. The late PE comes 3 s late with a 2 s timeout: within a timeout of
the others' finalize, whose meeting the same bound covers. Each is a job of its own, run by PE 0 of this one while the others
wait at a barrier."""

import re
import textwrap

from jobs import run_job

MISMATCH = textwrap.dedent("""
    import functools
    print = functools.partial(print, flush=True)  # one write a line: the PEs share the pipe
    import numpy as np, symmetra as s
    s.init()
    me = s.my_pe()
    for case, (count, dtype) in {"count": ((4, 8), "float32"),
                                 "dtype": ((4, 4), ("float32", "int32"))}.items():
        n = count[me]
        dt = dtype if isinstance(dtype, str) else dtype[me]
        x = s.zeros(8, dt)
        out = s.zeros(8, dt)
        x.numpy()[:] = me + 1
        out.numpy()[:] = -5
        try:
            s.allreduce(out.numpy()[:n], x.numpy()[:n])
            print(f"pe {me}: {case} ANSWERED {out.numpy().tolist()}")
        except s.SymmetraError as e:
            print(f"pe {me}: {case} REFUSED {e}")
        s.barrier_all()
        s.free(out); s.free(x)
    # The job goes on after a refusal: a matching call is right.
    x = s.zeros(4, "int64"); x.numpy()[:] = me + 1
    s.allreduce(x, x)
    print(f"pe {me}: then {x.numpy().tolist()}")
    s.free(x)
    s.finalize()
""")

LATE = textwrap.dedent("""
    import functools
    print = functools.partial(print, flush=True)  # one write a line: the PEs share the pipe
    import time, symmetra as s
    s.init()
    me = s.my_pe()
    s.barrier_all()
    if me == 1:
        time.sleep(3)
    try:
        s.barrier_all()
        print(f"pe {me}: PASSED the barrier")
    except s.Timeout as e:
        print(f"pe {me}: TIMEOUT {e}")
    except s.JobStopped as e:
        print(f"pe {me}: STOPPED {e}")
    s.finalize()
""")


def test_different_sizes_and_dtypes_are_errors_on_every_pe(tmp_path, me):
    r = run_job(tmp_path, me, MISMATCH, 2, SYMMETRA_CHECK="1")
    if r is None:
        return
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "ANSWERED" not in out, out
    # The PEs' lines may run together in the shared pipe: search, not split.
    for pe in (0, 1):
        for want in (rf"pe {pe}: count REFUSED \[pe {pe}\] allreduce: the team's PEs passed "
                     r"different arguments \(element count\): PE 0 passed 4 elements, PE 1 "
                     r"passed 8 elements",
                     rf"pe {pe}: dtype REFUSED \[pe {pe}\] allreduce: the team's PEs passed "
                     r"different arguments \(element type\): PE 0 passed float32, PE 1 passed "
                     r"int32",
                     rf"pe {pe}: then \[3, 3, 3, 3\]"):
            assert re.search(want, out), (want, out)


def test_a_late_pe_is_a_catchable_timeout_naming_it(tmp_path, me):
    r = run_job(tmp_path, me, LATE, 2, SYMMETRA_TIMEOUT_S="2")
    if r is None:
        return
    out = r.stdout + r.stderr
    assert "pe 0: TIMEOUT" in out and "not yet arrived: PE 1" in out, out
    # PE 1 may find every other arrival standing and pass the barrier; if it waits, it stops.
    assert "pe 1: PASSED" in out or ("pe 1: STOPPED" in out and
                                     "timed out waiting for another PE" in out), out
    assert "Aborted" not in out and r.returncode != -6 and r.returncode != 134, out

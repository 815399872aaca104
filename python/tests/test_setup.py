"""Joining a job: through the launcher's environment (this run), through a unique id (jobs of
subprocesses that the test numbers itself), errors before init, and a PE that ends without
finalize."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import symmetra as s

# The subprocesses below start their own jobs: none of this job's launcher variables.
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if not k.startswith(("SYMMETRA_RANK", "SYMMETRA_SIZE", "SYMMETRA_BOOTSTRAP",
                                  "SYMMETRA_LOCAL", "SYMMETRA_LAUNCHER", "SYMMETRA_SECRET",
                                  "OMPI_", "PMI_", "SLURM_", "RANK", "WORLD_SIZE"))}
CLEAN_ENV["SYMMETRA_TIMEOUT_S"] = "20"


def run_python(code, timeout=60, **kw):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=CLEAN_ENV,
                          capture_output=True, text=True, timeout=timeout, **kw)


def test_job(me, n):
    assert 0 <= me < n == s.n_pes()
    assert s.initialized()
    assert s.team_world().n_pes == n and s.team_world().my_pe == me


def test_unique_id_job_of_three():
    """PE 0 of a new job makes the id and starts PEs 1 and 2 with it (hex on their stdin)."""
    code = """
        import subprocess, sys, numpy as np, symmetra as s
        rank = int(sys.argv[1]) if len(sys.argv) > 1 else 0
        if rank == 0:
            uid = s.get_unique_id()
            peers = [subprocess.Popen([sys.executable, "-c", CODE, str(r)],
                                      stdin=subprocess.PIPE) for r in (1, 2)]
            for p in peers:
                p.stdin.write(uid.hex().encode()); p.stdin.close()
        else:
            uid = bytes.fromhex(sys.stdin.read())
        s.init(unique_id=uid, rank=rank, world_size=3)
        x = s.zeros(1, "int64")
        s.p(x, 100 + rank, (rank + 1) % 3)
        s.barrier_all()
        ok = int(x.numpy()[0]) == 100 + (rank + 2) % 3 and s.my_pe() == rank and s.n_pes() == 3
        s.free(x)
        s.finalize()
        if rank == 0:
            ok = all(p.wait(timeout=30) == 0 for p in peers) and ok
            print("unique id job:", "ok" if ok else "WRONG")
        sys.exit(0 if ok else 1)
    """
    code = textwrap.dedent(code)
    full = "CODE = " + repr(code) + "\n" + code
    r = subprocess.run([sys.executable, "-c", full], env=CLEAN_ENV, capture_output=True,
                       text=True, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "unique id job: ok" in r.stdout


def test_unique_id_errors():
    r = run_python("""
        import symmetra as s
        for kw, want in [(dict(unique_id=b"nonsense", rank=0, world_size=2), "is not a unique id"),
                         (dict(unique_id=s.get_unique_id(), rank=2, world_size=2), "rank 2 is not a PE"),
                         (dict(rank=0, world_size=2), "rank and world_size go with unique_id")]:
            try:
                s.init(**kw)
            except (s.SymmetraError, ValueError) as e:
                assert want in str(e), str(e)
            else:
                raise SystemExit("joined with " + repr(kw))
        print("errors ok")
    """)
    assert r.returncode == 0 and "errors ok" in r.stdout, r.stdout + r.stderr


def test_calls_before_init_say_so():
    r = run_python("""
        import numpy as np, symmetra as s
        for f in (lambda: s.my_pe(), lambda: s.zeros(4), lambda: s.put(np.zeros(1), np.zeros(1), 0),
                  lambda: s.barrier_all(), lambda: s.finalize()):
            try:
                f()
            except s.SymmetraError as e:
                assert "symmetra is not initialized: call symmetra.init() first" in str(e), str(e)
            else:
                raise SystemExit("no error")
        print("before init ok")
    """)
    assert r.returncode == 0 and "before init ok" in r.stdout, r.stdout + r.stderr


def test_a_pe_that_exits_without_finalize_stops_the_others():
    """PE 1 of a 2-PE job returns without finalize: PE 0's barrier ends at once naming it, as a
    JobStopped, instead of waiting for the timeout."""
    code = """
        import subprocess, sys, time, symmetra as s
        rank = int(sys.argv[1]) if len(sys.argv) > 1 else 0
        if rank == 0:
            uid = s.get_unique_id()
            peer = subprocess.Popen([sys.executable, "-c", CODE, "1"], stdin=subprocess.PIPE)
            peer.stdin.write(uid.hex().encode()); peer.stdin.close()
        else:
            uid = bytes.fromhex(sys.stdin.read())
        s.init(unique_id=uid, rank=rank, world_size=2)
        if rank == 1:
            sys.exit(0)  # no finalize: the package leaves the job at exit
        t0 = time.time()
        try:
            s.barrier_all()
            print("barrier passed?!")
        except s.JobStopped as e:
            print("stopped after %.1f s: %s" % (time.time() - t0, e))
        peer.wait(timeout=30)
    """
    code = textwrap.dedent(code)
    full = "CODE = " + repr(code) + "\n" + code
    r = subprocess.run([sys.executable, "-c", full], env=CLEAN_ENV, capture_output=True,
                       text=True, timeout=90)
    assert "stopped after" in r.stdout, r.stdout + r.stderr
    seconds = float(r.stdout.split("stopped after ")[1].split(" s")[0])
    assert seconds < 10, r.stdout
    assert "pe 1" in r.stdout.lower() or "PE 1" in r.stdout, r.stdout

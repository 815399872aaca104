"""One PE's pytest for tools/python-test: PE 0 prints to the terminal, every other PE writes its
report to LOG.<pe> (and takes LOG.tmp.<pe> for its temporary files) and prints it only where its tests failed, so four PEs' reports do not
interleave. Usage: python tools/python-pe-pytest.py LOG PYTEST-ARGS..."""

import os
import sys

import pytest

log, args = sys.argv[1], sys.argv[2:]
pe = int(os.environ.get("SYMMETRA_RANK", "0"))
# A temporary directory per PE: pytest's shared one is cleaned by whichever PE starts first.
args.append(f"--basetemp={log}.tmp.{pe}")
if pe == 0:
    sys.exit(pytest.main(args))
path = f"{log}.{pe}"
with open(path, "w") as out:
    saved_out, saved_err = os.dup(1), os.dup(2)
    os.dup2(out.fileno(), 1)
    os.dup2(out.fileno(), 2)
    try:
        status = pytest.main(args)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved_out, 1)
        os.dup2(saved_err, 2)
if status != 0:
    sys.stdout.write(f"---- PE {pe} failed; its report ({path}):\n" + open(path).read())
sys.exit(status)

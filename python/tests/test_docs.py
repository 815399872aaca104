"""docs/python.md's examples run as written: each code block that starts with `# example: NAME`
becomes a program, run as a job of its own by PE 0 of this one (the other PEs wait at a barrier)."""

import os
import re

import pytest
from jobs import run_job

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def examples():
    text = open(DOC).read()
    return dict(re.findall(r"```python\n# example: (\w+)\n(.*?)```", text, re.S))


def test_the_doc_has_its_examples():
    assert set(examples()) == {"numpy", "jax", "shard_map", "torch"}  # torch: tests_gpu


def run_example(tmp_path, me, name, pes):
    """PE 0 runs the example as a job of `pes` PEs; returns its result there, None elsewhere.
    Not jax.py: the program's name would shadow jax."""
    return run_job(tmp_path, me, examples()[name], pes, name=f"example_{name}.py")


def expect_neighbour_products(result, pes, label):
    """Every PE of the example printed "pe N: <label> <total>", total being the sum over PEs of
    (p + 1) times the previous PE's (p + 1)."""
    assert result.returncode == 0, result.stdout + result.stderr
    total = sum((p + 1) * ((p - 1) % pes + 1) for p in range(pes))
    lines = sorted(re.findall(rf"pe \d+: {re.escape(label)} \d+", result.stdout))
    assert lines == [f"pe {p}: {label} {total}" for p in range(pes)]


@pytest.mark.parametrize("pes", [2, 3])
def test_jax_example(tmp_path, me, pes):
    result = run_example(tmp_path, me, "jax", pes)
    if me == 0:
        expect_neighbour_products(result, pes, "sum of neighbours' products")


@pytest.mark.parametrize("pes", [2, 3])
def test_shard_map_example(tmp_path, me, pes):
    result = run_example(tmp_path, me, "shard_map", pes)
    if me == 0:
        expect_neighbour_products(result, pes, "shard_map sum of neighbours' products")


@pytest.mark.parametrize("pes", [2, 4])
def test_numpy_example(tmp_path, me, pes):
    result = run_example(tmp_path, me, "numpy", pes)
    if me == 0:
        assert result.returncode == 0, result.stdout + result.stderr
        # The PEs print at once through one pipe: their lines may share a line of the output.
        lines = sorted(re.findall(r"pe \d+: from pe \d+, sum \d+", result.stdout))
        total = sum(range(pes))
        assert lines == sorted(f"pe {p}: from pe {(p - 1) % pes}, sum {total}" for p in range(pes))

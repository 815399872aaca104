"""Every test module runs on every PE (symrun -n N python -m pytest python/tests): the same tests
in the same order, so the collectives inside them match. A test calls its collectives before it
asserts, so a failure on one PE does not leave the others waiting; every wait is bounded by
SYMMETRA_TIMEOUT_S anyway."""

import os

import numpy as np
import pytest

import symmetra


@pytest.fixture(scope="session", autouse=True)
def job():
    symmetra.init()
    yield
    symmetra.finalize()


@pytest.fixture
def rng():
    """A generator every PE seeds alike, from 8 fresh random bytes of PE 0 (a broadcast): the
    inputs differ from run to run, and every PE can compute every other PE's input."""
    seed = symmetra.zeros(1, "uint64")
    mine = np.frombuffer(os.urandom(8), dtype=np.uint64).copy()
    out = symmetra.zeros(1, "uint64")
    seed.numpy()[:] = mine
    symmetra.broadcast(out, seed, root=0)
    value = int(out.numpy()[0])
    symmetra.free(out)
    symmetra.free(seed)
    return np.random.default_rng(value)


@pytest.fixture
def me():
    return symmetra.my_pe()


@pytest.fixture
def n():
    return symmetra.n_pes()

"""symmetra.torch on the CPU backend (tools/gpu-check runs them where torch is installed: the GPU
machine): every PE a process (symrun -n N python -m pytest python/tests_torch), CPU tensors. As in
python/tests, every PE runs the same tests in the same order, and every wait is bounded."""

import os

import pytest
import torch

import symmetra


@pytest.fixture(scope="session", autouse=True)
def job():
    symmetra.init(backend="cpu")
    yield
    symmetra.finalize()


@pytest.fixture
def gen():
    """A torch generator every PE seeds alike, from 8 fresh random bytes of PE 0 (a broadcast):
    inputs differ between runs, and every PE can make every other PE's input."""
    seed = symmetra.zeros(1, "int64")
    out = symmetra.zeros(1, "int64")
    torch.from_dlpack(seed)[0] = int.from_bytes(os.urandom(7), "little")
    symmetra.broadcast(out, seed, root=0)
    value = int(torch.from_dlpack(out)[0])
    symmetra.free(out)
    symmetra.free(seed)
    g = torch.Generator()
    g.manual_seed(value)
    return g


@pytest.fixture
def me():
    return symmetra.my_pe()


@pytest.fixture
def n():
    return symmetra.n_pes()

"""The GPU tests of the Python package (tools/gpu-check runs them): every PE a process on the GPU
machine's GPU (symrun -n 2 python -m pytest python/tests_gpu), the CUDA backend. As in
python/tests, every PE runs the same tests in the same order, and every wait is bounded."""

import os

# Two JAX processes share the one GPU: neither may take 75% of its memory up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
# XLA records every custom call that says it may be (kCmdBufferCompatible) into a command buffer
# (a CUDA graph), even alone: the symmetra.jax handlers run recorded and replayed.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL"
                           " --xla_gpu_graph_min_graph_size=1")

import pytest  # noqa: E402
import torch  # noqa: E402

import symmetra  # noqa: E402
import symmetra.torch as st  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def job():
    symmetra.init(backend="cuda")
    yield
    torch.cuda.synchronize()
    symmetra.finalize()


@pytest.fixture
def gen():
    """A torch generator on the GPU that every PE seeds alike, from 8 fresh random bytes of PE 0
    (a broadcast on the stream): inputs differ between runs, and every PE can make every other
    PE's input."""
    seed = st.zeros(1, dtype=torch.int64)
    out = st.zeros(1, dtype=torch.int64)
    seed.fill_(int.from_bytes(os.urandom(7), "little"))
    st.broadcast(out, seed, root=0)
    value = int(out.item())
    st.free(out)
    st.free(seed)
    g = torch.Generator(device="cuda")
    g.manual_seed(value)
    return g


@pytest.fixture
def me():
    return symmetra.my_pe()


@pytest.fixture
def n():
    return symmetra.n_pes()

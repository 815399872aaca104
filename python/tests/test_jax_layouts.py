"""symmetra.jax in the layouts JAX allows that it does not support yet: several devices in one
process, alone (--xla_force_host_platform_device_count=4) and as 2 processes x 2 devices joined
by jax.distributed. Inside jax.shard_map each must be refused with a message on every process,
never answered (issue 44: [0,4,8,12] came back where psum gives [24,24,24,24]). Each layout is a
job of its own, run by PE 0 of this one while the other PEs wait at a barrier."""

import re
import textwrap

import pytest
from jobs import run_job

pytest.importorskip("jax")

PROGRAM = textwrap.dedent("""
    import functools
    print = functools.partial(print, flush=True)  # one write a line: the PEs share the pipe
    import os, socket, sys
    import jax
    import numpy as np
    import symmetra as s
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    s.init()
    me, n = s.my_pe(), s.n_pes()
    if n > 1:  # the processes join one JAX job, as a user's do
        port = s.zeros(1, "int64")
        if me == 0:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port.numpy()[0] = sock.getsockname()[1]
        s.broadcast(port, port, root=0)
        jax.distributed.initialize(f"127.0.0.1:{int(port.numpy()[0])}", num_processes=n,
                                   process_id=me)
    import symmetra.jax as sj

    mesh = Mesh(np.array(jax.devices()), ("d",))
    local = np.arange(jax.local_device_count(), dtype=np.float32) + 10 * me
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("d")), local)
    f = jax.jit(jax.shard_map(sj.allreduce, mesh=mesh, in_specs=P("d"), out_specs=P("d"),
                              check_vma=False))
    try:
        out = f(x)
        print(f"pe {me}: ANSWERED", [np.asarray(sh.data).tolist() for sh in out.addressable_shards])
    except s.SymmetraError as e:
        print(f"pe {me}: REFUSED {e}")
    s.finalize()
""")


@pytest.mark.parametrize("pes,devices", [(1, 4), (2, 2)])
def test_several_devices_per_process_are_refused(tmp_path, me, pes, devices):
    flags = f"--xla_force_host_platform_device_count={devices}"
    result = run_job(tmp_path, me, PROGRAM, pes, name="layout.py", XLA_FLAGS=flags,
                     JAX_PLATFORMS="cpu")
    if result is None:
        return
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "ANSWERED" not in out, out
    for pe in range(pes):  # the PEs' lines may run together in the shared pipe: search, not split
        assert re.search(rf"pe {pe}: REFUSED \[pe {pe}\] symmetra\.jax\.allreduce: this process "
                         rf"has {devices} cpu devices, and symmetra\.jax supports one device per "
                         "process", out), out

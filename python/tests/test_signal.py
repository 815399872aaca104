"""put_signal with waits on the signal, wait_until and test."""

import numpy as np
import pytest

import symmetra as s


@pytest.mark.parametrize("signal_op", ["set", "add"])
@pytest.mark.parametrize("nbi", [False, True])
def test_put_signal_ring(rng, me, n, signal_op, nbi):
    rounds, count = 5, 257
    data = rng.standard_normal((rounds, n, count))
    dest = s.zeros(count, "float64")
    sig = s.zeros(1, "uint64")
    ack = s.zeros(1, "uint64")
    got, seen = [], []
    nxt, prv = (me + 1) % n, (me - 1) % n
    for r in range(rounds):
        s.put_signal(dest, data[r, me], sig, 1 if signal_op == "add" else r + 1, nxt,
                     signal_op=signal_op, nbi=nbi)
        if nbi:
            s.quiet()
        seen.append(s.signal_wait_until(sig, "ge", r + 1))
        got.append(dest.numpy().copy())
        s.atomic_add(ack, 1, prv)  # the previous PE may send the next round
        s.wait_until(ack, "ge", r + 1)
    s.barrier_all()
    final = s.signal_fetch(sig)
    s.free(ack)
    s.free(sig)
    s.free(dest)
    assert final == rounds
    assert all(v >= r + 1 for r, v in enumerate(seen))
    for r in range(rounds):
        np.testing.assert_array_equal(got[r], data[r, prv])


def test_test_and_wait_until(me, n):
    flags = s.zeros(n, "int64")
    before = s.test(flags, "ne", 0, index=me)
    s.barrier_all()
    s.p(flags, me + 10, (me + 1) % n, index=me)
    s.wait_until(flags, "eq", (me - 1) % n + 10, index=(me - 1) % n)
    after = s.test(flags, "gt", 9, index=(me - 1) % n)
    s.barrier_all()
    s.free(flags)
    assert not before and after

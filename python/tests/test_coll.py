"""The collectives, each against a NumPy reference computed from every PE's input; on the world
and on teams made by the splits."""

import numpy as np
import pytest

import symmetra as s


def inputs(rng, n, count, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal((n, count)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=(n, count), endpoint=True, dtype=dtype)


def fold(x, op):
    """The reduction of the rows of x in row (team) order; half precision accumulates in float32
    and rounds once, as the library does."""
    acc_type = np.float32 if x.dtype == np.float16 else x.dtype
    acc = x[0].astype(acc_type)
    for row in x[1:]:
        row = row.astype(acc_type)
        with np.errstate(over="ignore"):
            acc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
                   "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](acc, row)
    return acc.astype(x.dtype)


def check(got, ref, x=None, op="sum"):
    """Integers, moved data, min and max exactly; sums and products of floats within the rounding
    of their steps (algorithms that exchange partial results round each to the element type): a
    few units in the last place of the magnitudes that went in (x: every PE's input)."""
    if got.dtype.kind != "f" or x is None or op in ("min", "max"):
        np.testing.assert_array_equal(got, ref)
        return
    eps = float(np.finfo(got.dtype).eps)
    mags = np.abs(ref.astype(np.float64)) if op == "prod" else np.abs(x.astype(np.float64)).sum(axis=0)
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    bound = 4 * len(x) * eps * mags
    assert (err <= bound).all(), f"worst error {err.max()} where {bound[err.argmax()]} is allowed"


CASES = [("float32", "sum"), ("float64", "prod"), ("float16", "sum"), ("int32", "sum"),
         ("int64", "min"), ("uint8", "max"), ("uint32", "and"), ("int16", "or"), ("uint64", "xor")]


@pytest.mark.parametrize("dtype,op", CASES)
@pytest.mark.parametrize("count", [1, 33, 70000])
def test_allreduce(rng, me, n, dtype, op, count):
    x = inputs(rng, n, count, dtype)
    src = s.empty(count, dtype)
    dest = s.empty(count, dtype)
    src.numpy()[:] = x[me]
    s.allreduce(dest, src, op=op)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, fold(x, op), x, op)


@pytest.mark.parametrize("algo", ["one_shot", "two_shot", "recursive_doubling", "ll_two_shot", "ring",
                                  "put_ring"])
def test_allreduce_algorithms(rng, me, n, algo):
    x = inputs(rng, n, 4099, "float32")
    src = s.empty(4099, "float32")
    dest = s.empty(4099, "float32")
    src.numpy()[:] = x[me]
    s.allreduce(dest, src, algo=algo)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, fold(x, "sum"), x)


def test_allreduce_in_place_and_private(rng, me, n):
    x = inputs(rng, n, 1000, "int64")
    buf = s.empty(1000, "int64")
    buf.numpy()[:] = x[me]
    s.allreduce(buf, buf)  # in place
    private_src = x[me].copy()
    private_dest = np.empty(1000, np.int64)
    s.allreduce(private_dest, private_src, op="max")  # neither is symmetric
    got = buf.numpy().copy()
    s.free(buf)
    check(got, fold(x, "sum"))
    check(private_dest, fold(x, "max"))


@pytest.mark.parametrize("count", [1, 100, 20000])
def test_reduce_scatter(rng, me, n, count):
    x = inputs(rng, n, n * count, "float64")
    src = s.empty(n * count, "float64")
    dest = s.empty(count, "float64")
    src.numpy()[:] = x[me]
    s.reduce_scatter(dest, src)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    block = slice(me * count, (me + 1) * count)
    check(got, fold(x, "sum")[block], x[:, block])


@pytest.mark.parametrize("count", [1, 100, 20000])
def test_all_gather(rng, me, n, count):
    x = inputs(rng, n, count, "int32")
    src = s.empty(count, "int32")
    dest = s.empty((n, count), "int32")
    src.numpy()[:] = x[me]
    s.all_gather(dest, src)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, x)


@pytest.mark.parametrize("count", [1, 3000])
def test_alltoall(rng, me, n, count):
    x = inputs(rng, n, n * count, "uint16")
    src = s.empty((n, count), "uint16")
    dest = s.empty((n, count), "uint16")
    src.numpy()[:] = x[me].reshape(n, count)
    s.alltoall(dest, src)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, np.stack([x[j].reshape(n, count)[me] for j in range(n)]))


def test_broadcast_from_every_root(rng, me, n):
    x = inputs(rng, n, 513, "float32")
    src = s.empty(513, "float32")
    dest = s.empty(513, "float32")
    src.numpy()[:] = x[me]
    got = []
    for root in range(n):
        s.broadcast(dest, src, root=root)
        got.append(dest.numpy().copy())
    s.free(dest)
    s.free(src)
    for root in range(n):
        check(got[root], x[root])


@pytest.mark.parametrize("chunk", [None, 1, 1000])
def test_permute_ring_shift(rng, me, n, chunk):
    x = inputs(rng, n, 4000, "float64")
    src = s.empty(4000, "float64")
    dest = s.zeros(4000, "float64")
    src.numpy()[:] = x[me]
    s.permute(dest, src, to=(me + 1) % n, from_=(me - 1) % n, chunk=chunk)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, x[(me - 1) % n])


def test_permute_chain_ends(rng, me, n):
    x = inputs(rng, n, 64, "int64")
    src = s.empty(64, "int64")
    dest = s.zeros(64, "int64")
    src.numpy()[:] = x[me]
    s.permute(dest, src, to=me + 1 if me + 1 < n else None, from_=me - 1 if me > 0 else None)
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    check(got, x[me - 1] if me > 0 else np.zeros(64, np.int64))


def test_teams(rng, me, n):
    world = s.team_world()
    evens = world.split_strided(0, 2, (n + 1) // 2)
    x = inputs(rng, n, 257, "int64")
    src = s.empty(257, "int64")
    dest = s.zeros(257, "int64")
    src.numpy()[:] = x[me]
    if evens is not None:
        s.allreduce(dest, src, team=evens)
        s.barrier(evens)
        team_facts = (evens.my_pe, evens.n_pes, [evens.world_pe(i) for i in range(evens.n_pes)],
                      evens.translate_pe(evens.my_pe, world))
        evens.destroy()
    s.barrier_all()
    got = dest.numpy().copy()
    s.free(dest)
    s.free(src)
    if me % 2 == 0:
        assert team_facts == (me // 2, (n + 1) // 2, list(range(0, n, 2)), me)
        check(got, fold(x[0::2], "sum"))
    else:
        assert evens is None
        assert not got.any()


def test_split_2d(rng, me, n):
    if n % 2:
        pytest.skip("split_2d in 2 columns needs an even PE count")
    xteam, yteam = s.team_world().split_2d(2)
    x = inputs(rng, n, 10, "int32")
    src = s.empty(10, "int32")
    row = s.empty(10, "int32")
    col = s.empty(10, "int32")
    src.numpy()[:] = x[me]
    s.allreduce(row, src, team=xteam)
    s.allreduce(col, src, team=yteam)
    got_row, got_col = row.numpy().copy(), col.numpy().copy()
    sizes = (xteam.n_pes, yteam.n_pes)
    xteam.destroy()
    yteam.destroy()
    for a in (col, row, src):
        s.free(a)
    assert sizes == (2, n // 2)
    r = me // 2
    check(got_row, fold(x[2 * r:2 * r + 2], "sum"))
    check(got_col, fold(x[me % 2::2], "sum"))

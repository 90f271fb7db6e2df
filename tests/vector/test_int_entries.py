"""``check_int_entries``: the lists of ids the batched engines take (actions, seats, dealers,
wild ranks), read as numpy read them before the entry checks, bools and overflows aside."""

import re

import numpy as np
import pytest

from rummy_env.games import options
from rummy_env.games.options import check_int_entries
from rummy_env.vector import GinRummyVec, ReferenceGinRummyVec
from tests.helpers import whole

ALLOWED = "action ids are integers 0..107"


class Scalar:
    """A framework's 0-d array (a torch or JAX scalar): numpy reads it by ``__array__``."""

    def __init__(self, value):
        self.value = value

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype=dtype)

    def __repr__(self):
        return f"Scalar({self.value!r})"


@pytest.mark.parametrize(
    "values",
    [
        [3, 4],
        (3, 4),
        [np.int32(3), np.uint8(4)],
        [np.array(3), np.array(4, dtype=np.int16)],  # SB3's model.predict gives 0-d arrays
        [Scalar(3), Scalar(np.int64(4))],  # a list of torch.argmax(...) results
        [3, np.uint64(4)],
    ],
)
def test_lists_of_integers_are_the_int_arrays_numpy_makes(values):
    got = check_int_entries("actions", values, ALLOWED)
    assert isinstance(got, np.ndarray) and got.dtype.kind in "iu"
    assert got.tolist() == [3, 4]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([3, True], "actions[1]=True is not an integer"),
        ([Scalar(True), 4], "actions[0]=Scalar(True) is not an integer"),  # torch.tensor(True)
        ([Scalar(3.0), 4], "actions[0]=Scalar(3.0) is not an integer"),
        ([Scalar([3]), 4], "actions[0]=Scalar([3]) is not an integer"),
        ([np.array([3]), 4], "actions[0]=array([3]) is not an integer"),
        ([3, "4"], "actions[1]='4' is not an integer"),
        ([3, np.uint64(2**63)], "actions[1]=np.uint64(9223372036854775808) is out of range"),
        ([3, 2**64], "actions[1]=18446744073709551616 is out of range"),
    ],
)
def test_other_entries_are_refused_by_index(values, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}: {ALLOWED}$"):
        check_int_entries("actions", values, ALLOWED)


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec])
def test_a_list_of_framework_scalars_steps_as_their_array(cls):
    # before 2ea3017 np.asarray read a list of torch scalars; the entry checks refused them
    vec, replay = cls(3, seed=5), cls(3, seed=5)
    batch = vec.reset()
    replay.reset()
    legal = [int(np.flatnonzero(row)[0]) for row in batch.action_mask]
    for got, want in zip(vec.step([Scalar(a) for a in legal]), replay.step(np.array(legal)), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("values", [list(range(100)) * 1000, [np.int32(3)] * 4096, [np.uint64(2**63 - 1)] * 3])
def test_a_list_of_plain_ints_skips_the_entry_loop(values, monkeypatch):
    # a step of 4096 games with a Python list of actions: checked entry by entry in Python the
    # list cost ten times numpy's own reading (1 ms a step, a third of a Gin Rummy step), so
    # plain ints must be read by numpy in one call, without the per-entry check (speed itself
    # is measured by the benchmarks, not here)
    def entry(*args):
        raise AssertionError("read entry by entry")

    monkeypatch.setattr(options, "_int_entry", entry)
    got = check_int_entries("actions", values, ALLOWED)
    assert got.tolist() == [int(v) for v in values]


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec])
@pytest.mark.parametrize(
    ("method", "message"),
    [
        ("step", "actions of dtype bool: action ids are integers 0..107"),
        ("step_opponents", "seats must be an int array of shape (3,), got bool (3,)"),
    ],
)
def test_bool_arrays_are_not_ids(cls, method, message):
    vec = cls(3, seed=5)
    vec.reset()
    with pytest.raises(ValueError, match=whole(message)):
        getattr(vec, method)(np.ones(3, dtype=bool))

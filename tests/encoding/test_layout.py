"""Named observation layouts."""

import numpy as np
import pytest

from rummy_env.encoding.layout import Field, Layout, bits_to_rows
from tests.helpers import whole

LAYOUT = Layout([Field("hand", 52, 1, "cards"), Field("phase", 2, 1, "one-hot"), Field("score", 1, 100, "points")])


def test_slices_offsets_and_bounds():
    assert LAYOUT.size == 55
    assert LAYOUT.slice("phase") == slice(52, 54) and LAYOUT.offset("score") == 54
    assert LAYOUT.high.tolist() == [1.0] * 54 + [100.0]
    assert repr(LAYOUT) == "Layout(size=55, fields=[hand:52, phase:2, score:1])"
    assert LAYOUT.table().splitlines()[2] == "| 0..51 | `hand` | 52 | cards |"


def test_split_single_vectors_and_batches():
    v = np.arange(55, dtype=np.float32)
    parts = LAYOUT.split(v)
    assert parts["score"].tolist() == [54.0] and parts["phase"].tolist() == [52.0, 53.0]
    batch = np.stack([v, v + 100])
    assert LAYOUT.split(batch)["phase"].tolist() == [[52.0, 53.0], [152.0, 153.0]]


def test_errors_name_the_problem():
    with pytest.raises(
        ValueError, match=whole("vector of shape (10,) does not fit this layout: its last axis must have 55 entries")
    ):
        LAYOUT.split(np.zeros(10))
    # str() of a KeyError is the repr of its message, quotes included
    with pytest.raises(KeyError, match=whole(repr("no field 'nope' in this layout: fields are hand, phase, score"))):
        LAYOUT.slice("nope")
    with pytest.raises(ValueError, match=whole("duplicate field names in layout: ['a'] repeated in ['a', 'a']")):
        Layout([Field("a", 1, 1, ""), Field("a", 1, 1, "")])


def test_bits_to_rows():
    rows = bits_to_rows([0b101, 1 << 51, 0])
    assert rows.shape == (3, 52) and rows.dtype == np.uint8
    assert (
        np.flatnonzero(rows[0]).tolist() == [0, 2] and np.flatnonzero(rows[1]).tolist() == [51] and rows[2].sum() == 0
    )

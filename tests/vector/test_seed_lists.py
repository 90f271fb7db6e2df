"""``reset(seed=[...])`` on every kind of batched engine: one seed per game, the ``seed``
attribute it leaves, and the refusal of a seed of no allowed form."""

import numpy as np
import pytest

from rummy_env.envs.vector_view import SeatVectorEnv
from rummy_env.vector import (
    Batch,
    CrazyRummyVec,
    GinRummyVec,
    ReferenceCrazyRummyVec,
    ReferenceRummikubVec,
    RummikubVec,
)

ENGINES = [
    pytest.param(CrazyRummyVec, {"num_players": 3}, 0, id="kernel-crazy3"),
    pytest.param(ReferenceCrazyRummyVec, {"num_players": 3}, 0, id="reference-crazy3"),
    pytest.param(RummikubVec, {}, 0, id="rummikub"),
    pytest.param(ReferenceRummikubVec, {"num_players": 3}, 0, id="reference-rummikub3"),
    # whole games: later hands come from the same deal streams, so play past a hand's end
    pytest.param(GinRummyVec, {"episode": "game"}, 300, id="gin-game"),
    pytest.param(CrazyRummyVec, {"episode": "game"}, 300, id="crazy-game"),
]
N = 3


def _played(vec, seed, steps):
    """Reset ``vec`` with ``seed``, play ``steps`` random steps; the batches (copies) and
    every game's ``deal_of`` (with ``episode="game"``, its later hands' deals too)."""
    batches = [Batch(*(a.copy() for a in vec.reset(seed=seed)))]
    for _ in range(steps):
        batches.append(Batch(*(a.copy() for a in vec.step_random())))
    return batches, [vec.deal_of(i) for i in range(vec.num_envs)]


def _assert_same(a, b):
    (batches_a, deals_a), (batches_b, deals_b) = a, b
    assert deals_a == deals_b
    for x, y in zip(batches_a, batches_b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize(("cls", "options", "steps"), ENGINES)
def test_a_list_of_one_seed_plays_what_that_seed_plays_and_each_entry_its_own_game(cls, options, steps):
    by_int = {s: _played(cls(N, seed=0, **options), s, steps) for s in (4, 9)}
    # [s] * num_envs is s: the same deals, and the same random games (the action streams too)
    _assert_same(_played(cls(N, seed=0, **options), [4] * N, steps), by_int[4])
    # game i of a mixed list is game i of the int seed[i]
    mixed = _played(cls(N, seed=0, **options), (9, np.uint64(4), 9), steps)
    assert mixed[1] == [by_int[9][1][0], by_int[4][1][1], by_int[9][1][2]]
    assert mixed[1][0] != mixed[1][2]  # the index is part of a game's seed
    if steps:  # whole games crossed into their later hands, dealt from the list's seeds too
        assert all(len(deal["next_hands"]) >= 1 for deal in mixed[1])


def test_a_none_entry_continues_that_games_streams_in_a_whole_game_engine():
    continued = CrazyRummyVec(N, seed=6, episode="game")
    continued.reset()
    expected = _played(continued, None, 0)[1]
    vec = CrazyRummyVec(N, seed=6, episode="game")
    vec.reset()
    deals = _played(vec, [None, 2, None], 0)[1]
    assert (deals[0], deals[2]) == (expected[0], expected[2])
    assert deals[1] == _played(CrazyRummyVec(N, seed=0, episode="game"), 2, 0)[1][1]


@pytest.mark.parametrize("cls", [GinRummyVec, ReferenceRummikubVec])
def test_the_seed_attribute_is_the_int_or_the_tuple_last_given(cls):
    vec = cls(N, seed=5)
    assert vec.seed == 5
    vec.reset(seed=[None, np.int64(9), 2**64 - 1])
    assert vec.seed == (None, 9, 2**64 - 1) and all(type(s) is int for s in vec.seed[1:])
    vec.reset()  # None: the streams go on, and so does the attribute
    assert vec.seed == (None, 9, 2**64 - 1)
    vec.reset(seed=np.array([1, 2, 3], np.uint64))
    assert vec.seed == (1, 2, 3)
    vec.reset(seed=np.int32(7))
    assert vec.seed == 7 and type(vec.seed) is int


FORMS = (
    f"a seed is an int from 0 to {2**64 - 1}, None (continue every game's streams), or a list or tuple of "
    "num_envs=3 such ints or None (one per game; a 1-D array too)"
)


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (range(3), f"seed=range(0, 3) is not an int, None or a list: {FORMS}"),
        ({1, 2, 3}, f"seed={{1, 2, 3}} is not an int, None or a list: {FORMS}"),
        (2.0, f"seed=2.0 is not an int, None or a list: {FORMS}"),
        (True, f"seed=True is not an int, None or a list: {FORMS}"),
        (-1, f"seed=-1 is out of range: {FORMS}"),
        (2**64, f"seed={2**64} is out of range: {FORMS}"),
    ],
)
def test_a_seed_of_no_allowed_form_is_refused_naming_the_forms_and_deals_nothing(seed, message):
    vec = CrazyRummyVec(N, seed=0, num_players=3)
    vec.reset(seed=4)
    decks = vec.decks()
    with pytest.raises(ValueError) as err:
        vec.reset(seed=seed)
    assert str(err.value) == message
    assert (vec.decks() == decks).all() and vec.seed == 4
    envs = SeatVectorEnv("gin_rummy", N, seed=0, engine="reference")
    with pytest.raises(ValueError) as err:
        envs.reset(seed=seed)
    assert str(err.value) == message

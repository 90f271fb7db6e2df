"""GinRummyVec against the judges: core.deadwood (the compiled deadwood, knock mask and
showdown), the pure-Python batch (the same seed gives the same games) and env()."""

import numpy as np
import pytest

from rummy_env import gin_rummy_v0
from rummy_env.core import deadwood as exact
from rummy_env.vector import Batch, GinRummyVec, ReferenceGinRummyVec
from rummy_env.vector import deadwood_kernel as compiled
from tests.core.test_deadwood import random_hands
from tests.vector.differential import play_against_env

OPTIONS = [
    {},
    {"knock_limit": 0, "big_gin": False, "reward": "score"},
    {"knock_limit": 25, "gin_bonus": 7, "undercut_bonus": 3, "big_gin_bonus": 0},
    {"oklahoma": True, "reward": "score", "max_turns": 12},
]


def test_compiled_deadwood_and_knock_mask_equal_core_deadwood():
    for size in (10, 11):
        for hand in random_hands(size, size, 1500):
            assert compiled.deadwood(np.uint64(hand)) == exact.deadwood(hand)
            for limit in (0, 10, 31):
                assert int(compiled.knock_discards(np.uint64(hand), limit)) == exact.knock_discards(hand, limit)


def test_compiled_showdown_equals_core_deadwood_tie_breaks_included():
    rng = np.random.default_rng(1)
    out = np.zeros(3, np.uint64)
    with_layoffs = 0
    for cards20 in random_hands(5, 20, 3000):
        cards = [c for c in range(52) if cards20 >> c & 1]
        rng.shuffle(cards)
        knocker, defender = sum(1 << c for c in cards[:10]), sum(1 << c for c in cards[10:])
        s = exact.showdown(knocker, defender)
        laid = sum(1 << x.card for x in s.defender.layoffs)
        kd, dd = compiled.showdown(np.uint64(knocker), np.uint64(defender), out)
        assert (int(out[0]), int(out[1]), int(out[2]), kd, dd) == (
            exact.melds_mask(s.knocker_melds),
            laid,
            exact.melds_mask(s.defender.melds),
            s.knocker_deadwood,
            s.defender.deadwood,
        )
        with_layoffs += laid != 0
    assert with_layoffs > 500  # the lay-off search is exercised, not only its empty case


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_the_kernel_plays_the_reference_games_step_for_step(options):
    n, steps = 24, 700
    vec, ref = GinRummyVec(n, seed=11, **options), ReferenceGinRummyVec(n, seed=11, **options)
    batch, expected = vec.reset(), ref.reset()
    ended = 0
    for step in range(steps):
        for name, got, want in zip(Batch._fields, batch, expected, strict=True):
            assert np.array_equal(got, want), (step, name, np.flatnonzero((got != want).reshape(n, -1).any(axis=1)))
        assert np.array_equal(vec.scores, ref.scores) and np.array_equal(vec.decks(), ref.decks())
        ended += int((batch.terminated | batch.truncated).sum())
        batch, expected = vec.step_random(), ref.step_random()
    assert ended >= n  # every game crossed at least one episode boundary (on average)


@pytest.mark.parametrize("options", OPTIONS[:2], ids=["default", "gin-only,score"])
def test_the_kernel_replays_in_env_with_the_same_actions(options):
    counts = play_against_env(GinRummyVec(8, seed=5, **options), gin_rummy_v0, options, 250, np.random.default_rng(2))
    assert counts["episodes"] >= 8 and counts["resets"] >= 4

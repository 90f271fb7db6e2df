"""Exact values of the self-play input features (agents.policy_features) on known hands."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from agents.policy_features import _BITS, FEATURES, Featurizer, _gin_deadwood_python, gin_deadwood_features
from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.core.cards import parse_card as card_id
from tests.helpers import whole
from tests.markdown_code import ROOT

PLANES = ["opp_rank", "opp_adjacent", "opp_gap", "live_rank", "live_adjacent", "live_gap", "layoff"]


def _obs(layout, **fields) -> np.ndarray:
    obs = np.zeros((1, layout.size), np.float32)
    for name, cards in fields.items():
        for c in cards.split():
            obs[0, layout.slice(name).start + card_id(c)] = 1
    return obs


def _planes(name: str, variant: str, layout, obs: np.ndarray, skip: int) -> np.ndarray:
    x = Featurizer(name, variant, layout)(obs)[0, layout.size :]
    assert x.shape == (FEATURES[name],)
    return x[skip:].reshape(7, 52)


def test_gin_opp_planes_of_a_known_hand():
    layout = gin_rummy_v0.env().unwrapped.layout
    obs = _obs(layout, hand="7C 8C 5D KH", opponent_known="6C 5S", upcard="9C", discard_rest="5H")
    planes = _planes("gin_opp", "gin_rummy_v0", layout, obs, skip=265)
    got = {
        c: dict(zip(PLANES, np.round(planes[:, card_id(c)] * 6).astype(int).tolist(), strict=True))
        for c in ["7C", "8C", "5D", "KH"]
    }
    # in sixths: counts over 3 are 2 per tile, counts over 2 are 3 per tile, flags 6
    assert got["7C"] == dict(opp_rank=0, opp_adjacent=6, opp_gap=0, live_rank=6, live_adjacent=0, live_gap=3, layoff=0)
    assert got["8C"] == dict(opp_rank=0, opp_adjacent=0, opp_gap=6, live_rank=6, live_adjacent=0, live_gap=3, layoff=0)
    # 5S is the opponent's; 5H lies in the pile; 5C is unseen; 4D 6D 3D 7D all unseen
    assert got["5D"] == dict(opp_rank=2, opp_adjacent=0, opp_gap=0, live_rank=2, live_adjacent=6, live_gap=6, layoff=0)
    # no ace above the king (R-GIN-04: ace low): only QH and JH are neighbours
    assert got["KH"] == dict(opp_rank=0, opp_adjacent=0, opp_gap=0, live_rank=6, live_adjacent=3, live_gap=3, layoff=0)
    held = [card_id(c) for c in ["7C", "8C", "5D", "KH"]]
    assert np.count_nonzero(np.delete(planes, held, axis=1)) == 0  # only held cards have entries


READ = ["disc_rank", "disc_adjacent", "disc_gap", "pass_rank", "pass_adjacent", "pass_gap"]


def test_gin_read_planes_of_what_the_opponent_revealed():
    layout = gin_rummy_v0.env().unwrapped.layout
    # the opponent discarded 9C (now the upcard) and 5H; it passed up 6C and TD (in the pile, not its discards)
    obs = _obs(layout, hand="7C 8C 5D KH", upcard="9C", discard_rest="5H 6C TD", opponent_discarded="9C 5H")
    x = Featurizer("gin_read", "gin_rummy_v0", layout)(obs)[0, layout.size :]
    assert x.shape == (941,)
    assert np.array_equal(x[:629], Featurizer("gin_opp", "gin_rummy_v0", layout)(obs)[0, layout.size :])
    planes = x[629:].reshape(6, 52)
    got = {
        c: dict(zip(READ, np.round(planes[:, card_id(c)] * 6).astype(int).tolist(), strict=True))
        for c in ["7C", "8C", "5D", "KH"]
    }
    # in sixths: counts over 3 are 2 per card, counts over 2 are 3 per card
    assert got["7C"] == dict(disc_rank=0, disc_adjacent=0, disc_gap=3, pass_rank=0, pass_adjacent=3, pass_gap=0)
    assert got["8C"] == dict(disc_rank=0, disc_adjacent=3, disc_gap=0, pass_rank=0, pass_adjacent=0, pass_gap=3)
    assert got["5D"] == dict(disc_rank=2, disc_adjacent=0, disc_gap=0, pass_rank=0, pass_adjacent=0, pass_gap=0)
    assert got["KH"] == dict(disc_rank=0, disc_adjacent=0, disc_gap=0, pass_rank=0, pass_adjacent=0, pass_gap=0)
    held = [card_id(c) for c in ["7C", "8C", "5D", "KH"]]
    assert np.count_nonzero(np.delete(planes, held, axis=1)) == 0


def test_meld_opp_marks_cards_that_lay_off_on_the_table():
    layout = rummy_v0.env().unwrapped.layout
    obs = _obs(layout, hand="4H 9S QD", table="4C 4D 4S 7S 8S JD", known_1="KD", top_discard="TS")
    planes = _planes("meld_opp", "rummy_v0", layout, obs, skip=212)
    layoff = {c: int(planes[6, card_id(c)]) for c in ["4H", "9S", "QD"]}
    assert layoff == {"4H": 1, "9S": 1, "QD": 0}  # a set of fours; 7S 8S below 9S; JD alone
    assert planes[1, card_id("QD")] == 1 and planes[3, card_id("4H")] == 0  # KD next to QD; no live four
    assert planes[4, card_id("9S")] == 0  # 8S on the table, TS the top discard


def test_the_compiled_deadwood_planes_equal_the_python_reference():
    from agents.policy_features import _deadwood_kernel

    assert _deadwood_kernel() is not None, "numba is missing: the test extra installs it (the fast extra)"
    rng = np.random.default_rng(7)
    hands = np.zeros((300, 52), np.float32)
    ups = np.zeros((300, 52), np.float32)
    for i in range(300):
        cards = rng.choice(52, size=11, replace=False)
        hands[i, cards[: 10 + i % 2]] = 1
        if i % 3:
            ups[i, cards[10]] = 1 - hands[i, cards[10]]
    masks = ((hands > 0).astype(np.uint64) * _BITS).sum(1, dtype=np.uint64)
    up_ids = np.where(ups.any(1), ups.argmax(1), -1)
    reference = _gin_deadwood_python(masks, up_ids)
    assert np.array_equal(gin_deadwood_features(hands, ups), reference)
    # the upcard entry is set on the 100 ten-card hands offered an upcard (even i, not a multiple of 3)
    assert np.count_nonzero(reference[:, 52]) == 100


@pytest.mark.parametrize("name", ["gin", "gin_opp", "gin_read"])
def test_gin_features_are_refused_for_rummy(name):
    message = f"features {name!r} do not apply to rummy_v0: its features are none, meld, meld_opp"
    with pytest.raises(ValueError, match=whole(message)):
        Featurizer(name, "rummy_v0", rummy_v0.env().unwrapped.layout)


def test_the_compiled_feature_loops_load_from_numba_cache_in_a_new_process(tmp_path):
    # built as closures on first use they compiled again in every process (numba keys a
    # closure's cache by what it captures): the second process here must compile nothing
    code = """if True:
        import numpy as np
        from numba.core import event
        from agents.policy_features import gin_deadwood_features
        import rummy_env.crazy_rummy_v0 as crazy
        from agents.crazy_features import crazy_discard_features

        class Count(event.Listener):
            n = 0
            def on_start(self, ev): Count.n += 1
            def on_end(self, ev): pass

        env = crazy.env()
        env.reset(seed=0)
        for _ in range(2):  # player_0 discards, player_1 draws: its play phase
            env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        obs = env.last()[0]["observation"][None]
        with event.install_listener("numba:compile", Count()):
            hand = np.zeros((1, 52), np.float32)
            hand[0, :3] = 1  # AC 2C 3C, no upcard
            out = gin_deadwood_features(hand, np.zeros((1, 52), np.float32))
            discard = crazy_discard_features(obs, env.unwrapped.layout)
        print(Count.n > 0, [round(float(x), 4) for x in out[0, :3]], np.flatnonzero(discard[0, 104:]).tolist())
    """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    run = [sys.executable, "-c", code]
    runs = [subprocess.run(run, capture_output=True, text=True, env=env, cwd=ROOT) for _ in "ab"]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr[-2000:]
    first, second = (r.stdout.split(None, 1) for r in runs)
    assert (first[0], second[0]) == ("True", "False")
    # AC 2C 3C: the deadwood without AC is 2 + 3, ...; player_1 sheds QC (card 11)
    assert first[1] == second[1] == "[0.05, 0.04, 0.03] [11]\n"

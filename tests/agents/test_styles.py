"""Styles of play of the heuristics (``heuristic:style=NAME``): named per variant, clear
errors, ``style=default`` is the heuristic, every style blind to hidden cards and far
stronger than random play."""

import numpy as np
import pytest

from agents import make_agent
from agents.registry import STYLES, heuristic_styles, style_id
from agents.search.rummikub_plan import PatientAgent
from agents.styles import PARTNERS, danger
from experiments.common import play_episode
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from tests.games.resample_helpers import swap_hidden
from tests.helpers import whole

MODULES = {m.__name__.split(".")[-1]: m for m in (gin_rummy_v0, rummy_v0, crazy_rummy_v0, rummikub_v0)}
CASES = [(variant, style) for variant in MODULES for style in STYLES[variant]]
IDS = [f"{variant}-{style}" for variant, style in CASES]


def test_each_variant_has_the_default_and_at_least_three_other_styles():
    assert STYLES == {
        "rummy_v0": ("default", "go_rummy", "defensive", "shed_high"),
        "crazy_rummy_v0": ("default", "hold_wilds", "shed_high", "defensive", "hold_wilds_safe"),
        "gin_rummy_v0": ("default", "gin_hunter", "defensive", "upcard_meld_only"),
        "rummikub_v0": ("default", "hold_jokers", "most_tiles", "big_plays", "patient"),
    }
    assert heuristic_styles("gin_rummy_v0") == STYLES["gin_rummy_v0"]
    assert style_id("rummy_v0", "shed_high") == 3 and style_id("gin_rummy_v0", "default") == 0
    with pytest.raises(
        ValueError,
        match=whole(
            "no heuristic for 'poker_v0': variants with one are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0"
        ),
    ):
        heuristic_styles("poker_v0")


def test_unknown_styles_and_options_are_refused_with_the_variants_styles():
    env = gin_rummy_v0.env()
    styles = "default, gin_hunter, defensive, upcard_meld_only"
    one_option = f"heuristic takes one option, style; write heuristic:style=NAME with a style of gin_rummy_v0: {styles}"
    for name, message in [
        (
            "heuristic:style=aggressive",
            f"style 'aggressive' is not a style of the gin_rummy_v0 heuristic: styles are {styles}",
        ),
        ("heuristic:depth=3", one_option),
        ("heuristic:style=defensive,style=default", one_option),
        ("heuristic:style", one_option),
    ]:
        with pytest.raises(ValueError, match=whole(f"agent {name!r}: {message}")):
            make_agent(name, env)
    with pytest.raises(
        ValueError,
        match=whole(
            "agent 'heuristic:style=patient': style 'patient' is not a style of the rummy_v0 "
            "heuristic: styles are default, go_rummy, defensive, shed_high"
        ),
    ):
        make_agent("heuristic:style=patient", rummy_v0.env())
    with pytest.raises(
        ValueError,
        match=whole(
            "agent 'heuristic:style=hold_wilds': style 'hold_wilds' is not a style of the "
            "rummikub_v0 heuristic: styles are default, hold_jokers, most_tiles, big_plays, "
            "patient"
        ),
    ):
        make_agent("heuristic:style=hold_wilds", rummikub_v0.env())


def test_the_patient_style_is_the_patient_agent():
    agent = make_agent("heuristic:style=patient", rummikub_v0.env())
    assert type(agent) is PatientAgent  # its turns: test_styles_scripted.py


@pytest.mark.parametrize("variant", MODULES)
def test_style_default_is_the_heuristic_at_every_decision(variant):
    env = MODULES[variant].env()
    plain, default = make_agent("heuristic", env), make_agent("heuristic:style=default", env)
    assert type(plain) is type(default) and getattr(default, "style", "default") == "default"
    rng = np.random.default_rng(0)
    decisions = 0
    for seed in range(4):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]) and decisions < 150:
            obs = env.observe(env.agent_selection)
            action = plain.act(obs)
            assert default.act(obs) == action
            legal = np.flatnonzero(obs["action_mask"])
            env.step(action if rng.random() < 0.8 else int(rng.choice(legal)))
            decisions += 1
    assert decisions >= 60


def test_danger_counts_the_next_players_picks_and_the_discard_pile():
    from rummy_env.core.cards import parse_cards

    kh, qh, jh, ks, kc, th, c5 = parse_cards("KH QH JH KS KC TH 5C")
    assert PARTNERS[0][kh] >> qh & 1 and PARTNERS[0][kh] >> ks & 1 and not PARTNERS[0][kh] >> th & 1
    # KH: QH and JH picked (2 each), KS and KC let go (1 each); 5C is near none of them
    assert danger(kh, 1 << qh | 1 << jh, 1 << ks | 1 << kc) == 2
    assert danger(c5, 1 << qh | 1 << jh, 1 << ks | 1 << kc) == 0
    ac = parse_cards("AC")[0]
    assert not PARTNERS[0][ac] >> kc & 1 and PARTNERS[1][ac] >> kc & 1  # with ace_high, A is next to K


def _positions(variant, style, count):
    """Live positions of games played by ``style`` in every seat, a few moves in."""
    env = MODULES[variant].env()
    agent = make_agent(f"heuristic:style={style}", env)
    found = 0
    for seed in range(40):
        env.reset(seed=seed)
        for _ in range(4 + 9 * seed % 40):
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            env.step(agent.act(env.observe(env.agent_selection)))
        else:
            if np.count_nonzero(env.observe(env.agent_selection)["action_mask"]) >= 2:
                yield env
                found += 1
                if found == count:
                    return


@pytest.mark.parametrize(("variant", "style"), CASES, ids=IDS)
def test_a_style_decides_the_same_when_hidden_cards_are_permuted(variant, style):
    name = f"heuristic:style={style}"
    checked = 0
    for env in _positions(variant, style, 3):
        raw = env.unwrapped
        seat = raw.game_state.current_player()
        obs = env.observe(env.agent_selection)
        before = make_agent(name, env).act(obs)
        for k in range(3):
            swapped = swap_hidden(raw.game_state, seat, np.random.default_rng(k))
            assert swapped is not None
            raw.game_state = swapped  # another true deal, the same information
            # encoded from the swapped state (env.observe hands out its cached arrays until the next step)
            again = dict(zip(("observation", "action_mask"), raw._observe_arrays(seat), strict=True))
            assert all(np.array_equal(again[key], obs[key]) for key in obs)
            assert make_agent(name, env).act(again) == before
        checked += 1
    assert checked == 3


#: deals per style against random agents, and the styles' wins (every seat of every deal)
DEALS = {"gin_rummy_v0": 10, "rummy_v0": 10, "crazy_rummy_v0": 6, "rummikub_v0": 3}
WINS = {
    ("gin_rummy_v0", "default"): 20,
    ("gin_rummy_v0", "gin_hunter"): 20,
    ("gin_rummy_v0", "defensive"): 20,
    ("gin_rummy_v0", "upcard_meld_only"): 20,
    ("rummy_v0", "default"): 18,
    ("rummy_v0", "go_rummy"): 19,
    ("rummy_v0", "defensive"): 20,
    ("rummy_v0", "shed_high"): 20,
    ("crazy_rummy_v0", "default"): 17,
    ("crazy_rummy_v0", "hold_wilds"): 18,
    ("crazy_rummy_v0", "shed_high"): 16,
    ("crazy_rummy_v0", "defensive"): 17,
    ("crazy_rummy_v0", "hold_wilds_safe"): 18,
    ("rummikub_v0", "default"): 5,
    ("rummikub_v0", "hold_jokers"): 6,
    ("rummikub_v0", "most_tiles"): 4,
    ("rummikub_v0", "big_plays"): 5,
    ("rummikub_v0", "patient"): 6,
}


@pytest.mark.parametrize(("variant", "style"), CASES, ids=IDS)
def test_every_style_beats_random_agents(variant, style):
    env = MODULES[variant].env()
    n = len(env.possible_agents)
    wins = 0
    for deal in range(DEALS[variant]):
        for seat in range(n):
            agents = [make_agent("random", env, seed=deal * n + q) for q in range(n)]
            agents[seat] = make_agent(f"heuristic:style={style}", env)
            wins += play_episode(env, agents, deal)["returns"][seat] > 0  # a winner, alone or tied
    games = DEALS[variant] * n
    # a random seat wins 1/n of the games; every style wins more than half of them
    assert wins == WINS[variant, style] and wins > games / 2

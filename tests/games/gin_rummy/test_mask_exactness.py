"""The legal actions equal what an independent brute-force reading of the rules allows.

The checker is written from ``gin_rummy.md``: R-GIN-03 (the upcard offer: take or
pass), R-GIN-04 (draw from the stock or take the upcard; discard any card but the one
just taken from the discard pile), R-GIN-06 (knock by discarding a card when the ten
cards kept have deadwood <= the limit), R-GIN-07 (big gin with all eleven melded) and
R-GIN-14 (Oklahoma limit).  Deadwood comes from the exhaustive search of ``helpers``.
"""

import numpy as np
import pytest

from agents import make_agent
from rummy_env import gin_rummy_v0
from rummy_env.games.gin_rummy import DRAW, OFFER, action_to_string, string_to_action
from tests.games.gin_rummy.helpers import BruteDeadwood, value


def brute_force_legal(state):
    cfg = state.config
    if state.phase == OFFER:
        return {"draw upcard", "pass"}
    if state.phase == DRAW:
        assert len(state.stock) > 2 and state.discard  # R-GIN-09: no draw at the wall
        return {"draw stock", "draw upcard"}
    first_upcard = state.deck[20]
    limit = (0 if value(first_upcard) == 1 else value(first_upcard)) if cfg.oklahoma else cfg.knock_limit
    hand = state.hands[state.current]
    assert hand.bit_count() == 11
    taken = state.taken  # the card taken from the discard pile this turn, or -1
    brute = BruteDeadwood(hand)
    out = set()
    for c in range(52):
        if hand >> c & 1 and c != taken:
            out.add(f"discard {text(c)}")
            if brute.deadwood(hand & ~(1 << c)) <= limit:
                out.add(f"knock {text(c)}")
    if cfg.big_gin and brute.deadwood(hand) == 0:
        out.add("big gin")
    return out


def text(card):
    return "A23456789TJQK"[card % 13] + "CDHS"[card // 13]


def visited_states(options, seed, lineup):
    env = gin_rummy_v0.env(**options)
    env.reset(seed=seed)
    agents = {a: make_agent(lineup[i % len(lineup)], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield env.unwrapped.game_state, obs
        env.step(agents[agent].act(obs))


CONFIGS = [
    {},
    {"knock_limit": 0},
    {"knock_limit": 15, "episode": "game", "target_score": 60},
    {"oklahoma": True},
    {"big_gin": False, "knock_limit": 30},
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_mask_equals_brute_force(options):
    seen = {"states": 0, "discard": 0, "knocks": 0, "forbidden": 0, "offer": 0}
    rng = np.random.default_rng(len(str(options)))
    for game in range(40):
        lineup = [["heuristic", "random"], ["heuristic"], ["random"]][game % 3]
        for state, obs in visited_states(options, int(rng.integers(1 << 30)), lineup):
            expected = {string_to_action(t) for t in brute_force_legal(state)}
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected, str(state)
            assert sorted(expected) == state.legal_actions()
            seen["states"] += 1
            seen["offer"] += state.phase == OFFER
            if state.phase not in (OFFER, DRAW):
                seen["discard"] += 1
                seen["knocks"] += any(52 <= a < 104 for a in expected)
                seen["forbidden"] += state.taken >= 0
    # the sample must cover the interesting states, or the comparison proves little
    assert seen["states"] >= 800 and seen["knocks"] >= 20 and seen["forbidden"] >= 100 and seen["offer"] >= 40, seen


@pytest.mark.parametrize("limit", [0, 5, 10, 15])
def test_engine_knocks_equal_brute_force_on_stacked_eleven_card_hands(limit):
    """R-GIN-06 through the engine: deal ten cards, take the upcard as the eleventh
    (which may not be discarded, R-GIN-04), compare the legal knocks."""
    from rummy_env.core.cards import card_str, cards_of
    from rummy_env.games.gin_rummy import GinRummyConfig, GinRummyGame
    from tests.core.test_deadwood import random_hands

    game = GinRummyGame(GinRummyConfig(knock_limit=limit))
    knockable = 0
    for eleven in random_hands(500 + limit, 11, 500):
        cards = cards_of(eleven)
        upcard = cards[len(cards) // 2]
        hand = [c for c in cards if c != upcard]
        rest = [c for c in range(52) if not eleven >> c & 1]
        deck = [x for pair in zip(hand, rest[:10], strict=False) for x in pair] + [upcard] + rest[10:]  # player_0 first
        state = game.new_initial_state(deck=deck, dealer=1)
        state.apply_action(string_to_action("draw upcard"))
        brute = BruteDeadwood(eleven)
        expected = {f"knock {card_str(c)}" for c in hand if brute.deadwood(eleven & ~(1 << c)) <= limit}
        got = {t for t in map(action_to_string, state.legal_actions()) if t.startswith("knock")}
        assert got == expected, (card_str(upcard), [card_str(c) for c in cards])
        knockable += bool(expected)
    assert knockable >= 20

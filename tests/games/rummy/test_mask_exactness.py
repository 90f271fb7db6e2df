"""The legal actions equal what an independent brute-force reading of the rules allows.

The checker below is written from ``rummy.md`` alone: it enumerates every subset of the
hand as a candidate meld, every (card, table meld, side) as a candidate lay-off, and
applies R-RUMMY-09/10 by looking one move ahead.  It shares no code with the engine
except the text form of actions (used to name the moves it finds).
"""

import itertools

import numpy as np
import pytest

from agents import make_agent
from rummy_env import rummy_v0
from rummy_env.games.rummy import DRAW, string_to_action

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def text(card):
    return RANKS[card % 13] + SUITS[card // 13]


def valid_meld(cards, ace_high):
    if len(cards) < 3:
        return False
    ranks = sorted(c % 13 for c in cards)
    suits = {c // 13 for c in cards}
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len(suits) > 1:
        return False
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    high = sorted(13 if r == 0 else r for r in ranks)
    return ace_high and 0 in ranks and high == list(range(high[0], high[0] + len(high)))


def positions(run):
    """Run positions of a run's cards (the ace high when the run holds a king)."""
    ranks = [c % 13 for c in run]
    return [13 if r == 0 and 12 in ranks else r for r in ranks]


def layoff_ok(card, side, meld, ace_high):
    ranks = {c % 13 for c in meld}
    if side == "set":
        return len(ranks) == 1 and len(meld) == 3 and card % 13 in ranks
    if len(ranks) == 1 or card // 13 != meld[0] // 13:
        return False
    pos = positions(meld)
    if side == "low":
        return card % 13 == min(pos) - 1
    high_pos = 13 if card % 13 == 0 else card % 13
    return high_pos == max(pos) + 1 and (high_pos != 13 or ace_high)


def can_finish(rest, forbidden, table, ace_high):
    """R-RUMMY-10: the turn can still end (empty hand, a card to discard, or the
    untouchable last card can be laid off)."""
    if not rest or any(c != forbidden for c in rest):
        return True
    return any(layoff_ok(forbidden, side, m, ace_high) for m in table for side in ("set", "low", "high"))


def brute_force_legal(state, table, rejected=None):
    """Legal moves as text; ``table`` is the test's own record of the melds (card lists);
    ``rejected`` (a list) collects moves R-RUMMY-10 refused."""
    cfg = state.config
    rejected = [] if rejected is None else rejected
    if state.phase == DRAW:
        out = set()
        if state.stock or len(state.discard) >= (2 if cfg.reshuffle == "keep_top" else 1):
            out.add("draw stock")
        if state.discard:
            out.add("draw discard")
        return out
    hand = [c for c in range(52) if state.hands[state.current] >> c & 1]
    forbidden = state.taken_discard if state.taken_discard in hand else -1
    out = {f"discard {text(c)}" for c in hand if c != forbidden}
    for k in range(3, len(hand) + 1):
        for combo in itertools.combinations(hand, k):
            if valid_meld(combo, cfg.ace_high):
                rest = [c for c in hand if c not in combo]
                move = "meld " + " ".join(text(c) for c in combo)
                if can_finish(rest, forbidden, table + [list(combo)], cfg.ace_high):
                    out.add(move)
                else:
                    rejected.append(move)
    for c in hand:
        for i, meld in enumerate(table):
            for side in ("set", "low", "high"):
                if layoff_ok(c, side, meld, cfg.ace_high):
                    rest = [x for x in hand if x != c]
                    after = table[:i] + [meld + [c]] + table[i + 1 :]
                    if can_finish(rest, forbidden, after, cfg.ace_high):
                        out.add(f"layoff {text(c)} {side}")
                    else:
                        rejected.append(f"layoff {text(c)} {side}")
    return out


def visited_states(options, seed, lineup):
    """Every decision state of one hand played by ``lineup`` (agent names per seat), with
    the table as this test records it from the moves (not read from the engine)."""
    env = rummy_v0.env(**options)
    env.reset(seed=seed)
    agents = {a: make_agent(lineup[i % len(lineup)], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    table = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield env.unwrapped.game_state, obs, table
        action = agents[agent].act(obs)
        words = rummy_v0.raw_env.action_to_string(action).split()
        if words[0] == "meld":
            table.append([RANKS.index(w[0]) + 13 * SUITS.index(w[1]) for w in words[1:]])
        elif words[0] == "layoff":
            card = RANKS.index(words[1][0]) + 13 * SUITS.index(words[1][1])
            [meld] = [m for m in table if layoff_ok(card, words[2], m, options.get("ace_high", False))]
            meld.append(card)
        env.step(action)


CONFIGS = [
    {"num_players": 2},
    {"num_players": 2, "ace_high": True},
    {"num_players": 3, "reshuffle": "whole_pile"},
    {"num_players": 4, "ace_high": True},
    {"num_players": 6},
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_mask_equals_brute_force(options):
    seen = {"states": 0, "melds": 0, "layoffs": 0, "forbidden": 0, "masked_by_r10": 0}
    rng = np.random.default_rng(len(str(options)))
    for game in range(40):
        lineup = [["heuristic", "random"], ["heuristic"], ["random"]][game % 3]
        for state, obs, table in visited_states(options, int(rng.integers(1 << 30)), lineup):
            rejected = []
            expected = {string_to_action(t) for t in brute_force_legal(state, table, rejected)}
            seen["masked_by_r10"] += bool(rejected)
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected, str(state)
            assert sorted(expected) == state.legal_actions()
            seen["states"] += 1
            texts = [rummy_v0.raw_env.action_to_string(a) for a in expected]
            seen["melds"] += any(t.startswith("meld") for t in texts)
            seen["layoffs"] += any(t.startswith("layoff") for t in texts)
            if (
                state.phase != DRAW
                and state.taken_discard >= 0
                and state.hands[state.current] >> state.taken_discard & 1
            ):
                seen["forbidden"] += 1
    # the sample must cover the interesting moves, or the comparison proves little
    assert seen["states"] >= 1000 and seen["melds"] >= 50 and seen["layoffs"] >= 20 and seen["forbidden"] >= 50, seen
    assert seen["masked_by_r10"] >= 1, seen

"""Crazy Rummy's legal actions equal an independent brute-force reading of the rules.

The checker below is written from ``crazy_rummy.md`` and the action layout alone: it
enumerates every set and run as a candidate meld, fills missing cards with wild cards
(lowest ids first; never a wild card whose own card is on the table, R-CRAZY-05a), tries
every lay-off and swap, and applies R-CRAZY-08a by searching
ahead for a legal discard.  The one-card rule is tracked from the game's history, not
read from the engine.
"""

import itertools
from dataclasses import dataclass, field

import numpy as np
import pytest

from agents import agent_names, make_agent
from rummy_env import crazy_rummy_v0
from rummy_env.games.crazy_rummy import DRAW, SWAP, string_to_action

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def text(card):
    return RANKS[card % 13] + SUITS[card // 13]


def all_melds():
    """Every set and run as a sorted tuple of the cards it stands for (ace low only)."""
    out = []
    for rank in range(13):
        for k in (3, 4):
            for suits in itertools.combinations(range(4), k):
                out.append(tuple(sorted(s * 13 + rank for s in suits)))
    for suit in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                out.append(tuple(suit * 13 + r for r in range(low, high + 1)))
    return out


MELDS = all_melds()


@dataclass
class Model:
    hand: set
    table: list  # each meld: dict represented card -> physical card
    wild_rank: int
    taken: int  # card taken from the discard pile this turn, or -1
    old: int  # R-CRAZY-10: card held before the draw, or -1
    melded: bool
    moves: list = field(default_factory=list)

    def on_table(self):
        """R-CRAZY-05a: every card on the table once: the cards the melds stand for and the
        wild cards standing in for others."""
        return {c for m in self.table for c in m} | {p for m in self.table for p in m.values()}

    def wilds_in_hand(self, exclude=()):
        """The held wild cards that may fill a meld or lay-off: not one whose own card is on the
        table already (through another wild card): R-CRAZY-05a lets it only be swapped in."""
        on_table = self.on_table()
        return sorted(c for c in self.hand if c % 13 == self.wild_rank and c not in exclude and c not in on_table)

    def discard_ok(self, c):
        if c == self.taken:
            return False
        return self.old < 0 or self.old not in self.hand or c == self.old or len(self.hand) == 1

    def candidates(self):
        """(move text, resulting model) for every meld, lay-off and swap the meld rules allow."""
        out = []
        on_table = self.on_table()
        for meld in MELDS:
            if on_table & set(meld) or len(self.hand) - len(meld) < 1:
                continue
            natural = [c for c in meld if c in self.hand]
            missing = [c for c in meld if c not in self.hand]
            wilds = self.wilds_in_hand(exclude=natural)[: len(missing)]
            if len(wilds) < len(missing):
                continue
            after = self.copy()
            after.hand -= set(natural) | set(wilds)
            after.table.append({**{c: c for c in natural}, **dict(zip(missing, wilds, strict=False))})
            after.melded = True
            out.append(("meld " + " ".join(text(c) for c in meld), after))
        if not self.melded:
            return out
        for i, meld in enumerate(self.table):
            cards = sorted(meld)
            targets = []
            if len({c % 13 for c in cards}) == 1:
                if len(cards) == 3:
                    suit = ({0, 1, 2, 3} - {c // 13 for c in cards}).pop()
                    targets.append((suit * 13 + cards[0] % 13, "set"))
            else:
                if cards[0] % 13 > 0:
                    targets.append((cards[0] - 1, "low"))
                if cards[-1] % 13 < 12:
                    targets.append((cards[-1] + 1, "high"))
            for card, side in targets:
                if card in on_table or len(self.hand) < 2:
                    continue
                physical = card if card in self.hand else (self.wilds_in_hand() or [None])[0]
                if physical is None:
                    continue
                after = self.copy()
                after.hand.discard(physical)
                after.table[i][card] = physical
                out.append((f"layoff {text(card)} {side}", after))
            for card, physical in meld.items():
                if physical != card and card in self.hand:
                    after = self.copy()
                    after.hand.discard(card)
                    after.hand.add(physical)
                    after.table[i][card] = card
                    if card == self.old:
                        after.old = physical  # R-CRAZY-10: the wild must go in the old card's place
                    out.append((f"swap {text(card)}", after))
        return out

    def can_finish(self):
        if any(self.discard_ok(c) for c in self.hand):
            return True
        return any(after.can_finish() for _, after in self.candidates())

    def legal(self, rejected=None):
        """Legal moves as text; ``rejected`` (a list) collects moves R-CRAZY-08a refused."""
        out = {f"discard {text(c)}" for c in self.hand if self.discard_ok(c)}
        for move, after in self.candidates():
            if after.can_finish():
                out.add(move)
            elif rejected is not None:
                rejected.append(move)
        return out

    def copy(self):
        return Model(set(self.hand), [dict(m) for m in self.table], self.wild_rank, self.taken, self.old, self.melded)


def model_of(state, old):
    p = state.current
    hand = {c for c in range(52) if state.hands[p] >> c & 1}
    table = [{c: m.wilds.get(c, c) for c in m.cards()} for m in state.table]
    taken = state.taken_discard if state.taken_discard in hand else -1
    return Model(hand, table, state.wild_rank, taken, old, state.melded[p])


def expected_legal(state, start_size, old, rejected):
    if state.phase == DRAW:
        out = {"draw stock"}
        if state.discard and start_size != 1:
            out.add("draw discard")
        return out
    return model_of(state, old).legal(rejected)


CONFIGS = [
    {"num_players": 3},
    {"num_players": 4, "wild_rank": 1},
    {"num_players": 6, "wild_rank": 13},
    {"num_players": 5, "episode": "game"},
]


@pytest.mark.parametrize("options", CONFIGS, ids=str)
def test_mask_equals_brute_force(options):
    seen = {"states": 0, "melds_with_wilds": 0, "layoffs": 0, "swaps": 0, "one_card": 0, "masked_by_08a": 0}
    rng = np.random.default_rng(len(str(options)))
    for game in range(12):
        env = crazy_rummy_v0.env(**options)
        env.reset(seed=int(rng.integers(1 << 30)))
        names = agent_names("crazy_rummy_v0")
        agents = {a: make_agent(names[(i + game) % len(names)], env, seed=game + i) for i, a in enumerate(env.agents)}
        start_size, old = 0, -1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.unwrapped.game_state
            if state.phase == DRAW:
                hand = state.hands[state.current]
                start_size = hand.bit_count()
                old = hand.bit_length() - 1 if start_size == 1 else -1
            elif state.history and state.history[-1] < 52 or not state.history:
                old = -1  # a new turn began without a draw (first turn of a round)
            rejected = []
            expected = {string_to_action(t) for t in expected_legal(state, start_size, old, rejected)}
            seen["masked_by_08a"] += bool(rejected)
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == expected, str(state)
            seen["states"] += 1
            texts = [crazy_rummy_v0.raw_env.action_to_string(a) for a in expected]
            seen["layoffs"] += any(t.startswith("layoff") for t in texts)
            seen["swaps"] += any(t.startswith("swap") for t in texts)
            seen["one_card"] += old >= 0
            seen["melds_with_wilds"] += state.hands[state.current] & state.wilds != 0 and any(
                t.startswith("meld") for t in texts
            )
            action = agents[agent].act(obs)
            if action >= SWAP and action - SWAP == old:
                # R-CRAZY-10: the wild card taken in the old card's place must go instead
                old = next(m[old] for m in model_of(state, old).table if old in m)
            env.step(action)
    assert seen["states"] >= 300 and seen["melds_with_wilds"] >= 30 and seen["layoffs"] >= 20, seen
    assert seen["swaps"] >= 1 and seen["one_card"] >= 1, seen
    if options.get("episode") == "game":  # the longest sample: the R-CRAZY-08a lookahead refused moves
        assert seen["masked_by_08a"] >= 1, seen

"""Observations hold only what their player may know (rummy.md, environment conventions).

The test replays a hand from a deck in which every card the observer has never seen is
shuffled among the places of the unseen cards (the other hands, the stock).  Each
recorded move stays legal (every card a move names was public), and the observer's
observation and mask must come out identical at every step.
"""

import numpy as np
import pytest

from agents import make_agent
from rummy_env import rummy_v0
from rummy_env.core.cards import card_str


def record_hand(options, seed, steps):
    env = rummy_v0.env(**options)
    env.reset(seed=seed)
    agents = {a: make_agent(["heuristic", "random"][i % 2], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc or len(actions) == steps:
            break
        actions.append(agents[agent].act(obs))
        env.step(actions[-1])
    return env, actions


def seen_by(deck, dealer, actions, options, player):
    """Cards ``player`` has seen: own cards, every face-up card, every card on the table."""
    env = rummy_v0.raw_env(**options)
    env.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
    seen = 0

    def look():
        s = env.state
        mask = s.hands[player] | s.table.mask
        for c in s.discard:
            mask |= 1 << c
        return mask

    seen |= look()
    for a in actions:
        env.step(a)
        seen |= look()
    return seen


CONFIGS = [{"num_players": 2}, {"num_players": 3, "reshuffle": "whole_pile"}, {"num_players": 5, "ace_high": True}]


@pytest.mark.parametrize("options", CONFIGS, ids=str)
def test_resampling_hidden_cards_leaves_the_observation_unchanged(options):
    rng = np.random.default_rng(99)
    checked = 0
    for trial in range(30):
        env, actions = record_hand(options, seed=int(rng.integers(1 << 30)), steps=int(rng.integers(1, 150)))
        state = env.unwrapped.state
        deck, dealer = state.initial_deck, state.initial_dealer
        n = state.num_players
        for player in range(n):
            seen = seen_by(deck, dealer, actions, options, player)
            hidden_places = [i for i, c in enumerate(deck) if not seen >> c & 1]
            shuffled = list(deck)
            for place, card in zip(hidden_places, rng.permutation([deck[i] for i in hidden_places])):
                shuffled[place] = int(card)
            a, b = rummy_v0.raw_env(**options), rummy_v0.raw_env(**options)
            a.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
            b.reset(options={"deck": [card_str(c) for c in shuffled], "dealer": dealer})
            agent = a.possible_agents[player]
            for action in actions:
                oa, ob = a.observe(agent), b.observe(agent)
                assert np.array_equal(oa["observation"], ob["observation"])
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                a.step(action)
                b.step(action)
            oa, ob = a.observe(agent)["observation"], b.observe(agent)["observation"]
            if a.state.is_terminal():
                # the hand is scored: the losers' card values become public in the totals
                keep = np.ones(oa.size, dtype=bool)
                keep[a.layout.slice("scores")] = False
                oa, ob = oa[keep], ob[keep]
            assert np.array_equal(oa, ob)
            checked += shuffled != deck
    assert checked >= 50  # most trials really moved hidden cards


@pytest.mark.parametrize("options", CONFIGS, ids=str)
def test_a_player_never_sees_another_players_hidden_cards(options):
    for seed in range(15):
        env, _ = record_hand(options, seed=seed, steps=int(np.random.default_rng(seed).integers(0, 120)))
        raw = env.unwrapped
        state = raw.state
        lay = raw.layout
        for p, agent in enumerate(raw.possible_agents):
            obs = raw.observe(agent)
            planes = obs["observation"][: lay.offset("phase")].reshape(-1, 52)
            for q in range(state.num_players):
                if q == p:
                    continue
                hidden = [c for c in range(52) if state.hands[q] >> c & 1 and not state.known[q] >> c & 1]
                assert planes[:, hidden].sum() == 0, (p, q)
            assert obs["observation"][lay.slice("hand")].sum() == state.hands[p].bit_count()
            if state.is_terminal() or p != state.current_player():
                assert obs["action_mask"].sum() == 0  # not acting: all-zero mask
            else:
                assert obs["action_mask"].sum() > 0

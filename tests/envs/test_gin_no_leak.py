"""Gin Rummy observations hold only what their player may know (gin_rummy.md,
environment conventions; the method of ``test_no_leak.py``).

A hand is replayed from a deck in which every card the observer has never seen (never
in its hand, never face up on the discard pile, not laid out at a showdown) is
shuffled among the places of the unseen cards: the opponent's hand and the stock.
Every recorded move names only cards the observer saw, so it stays legal; the
observer's observation and mask must come out identical at every step.
"""

import numpy as np
import pytest

from agents import make_agent
from rummy_env import gin_rummy_v0
from rummy_env.core.cards import card_str


def record_hand(options, seed, steps, lineup):
    env = gin_rummy_v0.env(**options)
    env.reset(seed=seed)
    agents = {a: make_agent(lineup[i], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc or len(actions) == steps:
            break
        actions.append(agents[agent].act(obs))
        env.step(actions[-1])
    return env, actions


def replay(options, deck, dealer, actions, look=None):
    env = gin_rummy_v0.raw_env(**options)
    env.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
    for a in actions:
        if look:
            look(env.game_state)
        env.step(a)
    if look:
        look(env.game_state)
    return env


def seen_by(options, deck, dealer, actions, player):
    """Cards ``player`` has seen: its own cards, every card of the discard pile, and
    both hands once laid out at a showdown."""
    seen = [0]

    def look(s):
        mask = s.hands[player]
        for c in s.discard:
            mask |= 1 << c
        if s.showdown is not None:
            mask |= s.hands[0] | s.hands[1]
        seen[0] |= mask

    replay(options, deck, dealer, actions, look)
    return seen[0]


CONFIGS = [{}, {"knock_limit": 20, "oklahoma": False}, {"oklahoma": True, "big_gin": False}]


@pytest.mark.parametrize("options", CONFIGS, ids=str)
def test_resampling_hidden_cards_leaves_the_observation_unchanged(options):
    rng = np.random.default_rng(7)
    moved = 0
    for trial in range(24):
        lineup = [["heuristic", "random"], ["random", "heuristic"], ["heuristic", "heuristic"]][trial % 3]
        env, actions = record_hand(options, int(rng.integers(1 << 30)), int(rng.integers(1, 140)), lineup)
        state = env.unwrapped.game_state
        deck, dealer = state.initial_deck, state.initial_dealer
        for player in (0, 1):
            seen = seen_by(options, deck, dealer, actions, player)
            hidden = [i for i, c in enumerate(deck) if not seen >> c & 1]
            shuffled = list(deck)
            for place, card in zip(hidden, rng.permutation([deck[i] for i in hidden]), strict=False):
                shuffled[place] = int(card)
            a = gin_rummy_v0.raw_env(**options)
            b = gin_rummy_v0.raw_env(**options)
            a.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
            b.reset(options={"deck": [card_str(c) for c in shuffled], "dealer": dealer})
            agent = a.possible_agents[player]
            for action in actions:
                oa, ob = a.observe(agent), b.observe(agent)
                assert np.array_equal(oa["observation"], ob["observation"])
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                a.step(action)
                b.step(action)
            assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
            moved += shuffled != deck
    assert moved == 48  # seeded: every one of the 24 trials x 2 players really moved hidden cards


def check_views(raw, counts):
    """Each seat's observation and mask in ``raw``'s state: no hidden card of the opponent
    before a showdown, never the stock, the seat's own hand, the mask only for the acting
    seat; ``counts`` adds how many views ran the hidden-card check."""
    state = raw.game_state
    lay = raw.layout
    for p, agent in enumerate(raw.possible_agents):
        obs = raw.observe(agent)
        planes = obs["observation"][: lay.offset("phase")].reshape(-1, 52)
        other = state.hands[1 - p]
        if state.showdown is None:  # before a showdown only cards taken from the pile are known
            hidden = [c for c in range(52) if other >> c & 1 and not state.known[1 - p] >> c & 1]
            assert hidden and planes[:, hidden].sum() == 0, p
            counts["before showdown"] += 1
        else:
            counts["after showdown"] += 1
        assert planes[:, list(state.stock)].sum() == 0  # the stock is never shown
        assert obs["observation"][lay.slice("hand")].sum() == state.hands[p].bit_count()
        if state.is_terminal() or p != state.current_player():
            assert obs["action_mask"].sum() == 0
        else:
            assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()


@pytest.mark.parametrize("options", CONFIGS, ids=str)
def test_a_player_never_sees_the_opponents_hidden_cards(options):
    # each seed's whole hand is played once; its views are checked at one move drawn among
    # those before the hand's showdown (a live position, where hidden cards exist) and at
    # the hand's end (the showdown, or a cut hand)
    counts = {"before showdown": 0, "after showdown": 0}
    for seed in range(20):
        env, actions = record_hand(options, seed, 10_000, ["heuristic", "random"])
        state = env.unwrapped.game_state
        assert state.is_terminal()
        deck, dealer = state.initial_deck, state.initial_dealer
        live = []
        replay(
            options, deck, dealer, actions, lambda s, live=live: live.append(s.showdown is None and not s.is_terminal())
        )
        step = int(np.random.default_rng(seed).choice(np.flatnonzero(live)))
        for k in (step, len(actions)):
            check_views(replay(options, deck, dealer, actions[:k]), counts)
    # seeded, pinned: the 20 drawn positions x 2 seats are all live (before: 4, 2 and 4 of 40
    # views per config), and all 20 hands of each config ended at a showdown
    assert counts == {"before showdown": 40, "after showdown": 40}

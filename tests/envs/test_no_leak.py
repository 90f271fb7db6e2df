"""Observations hold only what their player may know (environment conventions).

The test replays a hand from a deck in which every card the observer has never seen is
shuffled among the places of the unseen cards (the other hands, the stock).  While the
replay shows every player the same table as the original (the same moves, legal, with
the same public effect), the observer's observation and mask must come out identical.

In basic Rummy every move names only public cards, so every replay stays the same.  In
Crazy Rummy a meld uses the mover's natural cards when held, so which cards went down
tells everyone which cards the mover did not hold: a shuffle that breaks that is not
consistent with what the observer saw, and its replay stops where the tables part.
"""

import numpy as np
import pytest

from agents import agent_names, make_agent
from tests.envs.variants import VARIANTS

LEAK_CASES = [(v, o) for v in VARIANTS for o in v.leak_options]
IDS = [f"{v.name}-{o}" for v, o in LEAK_CASES]


def record_hand(variant, options, seed, steps):
    """Play up to ``steps`` moves (heuristic and random agents); returns the env and moves."""
    env = variant.module.env(**options)
    env.reset(seed=seed)
    names = agent_names(variant.name)
    agents = {a: make_agent(names[i % len(names)], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc or len(actions) == steps or env.unwrapped.game_state.hands_played:
            break  # the first hand only: later decks come from the generator
        actions.append(agents[agent].act(obs))
        env.step(actions[-1])
    return env, actions


def replay(variant, options, deck, dealer, actions, player, look=None):
    """A raw env replaying ``actions`` from a stacked deck; ``look(state)`` runs after each move.

    The reset seed is fixed, so a game's next hand gets the same deck in every replay."""
    env = variant.module.raw_env(**options)
    env.reset(seed=1234, options={"deck": [variant.deck()[c] for c in deck], "dealer": dealer})
    for a in actions:
        if look:
            look(env.game_state)
        env.step(a)
    if look:
        look(env.game_state)
    return env


# (replays whose hidden cards moved, positions compared) per case, for the seeds below
RESAMPLED = {
    "rummy_v0-{'num_players': 2}": (46, 2846),
    "rummy_v0-{'num_players': 3, 'reshuffle': 'whole_pile'}": (75, 4323),
    "rummy_v0-{'num_players': 5, 'ace_high': True}": (122, 6895),
    "rummy_v0-{'num_players': 2, 'episode': 'game'}": (46, 2637),
    "crazy_rummy_v0-{'num_players': 3}": (75, 3472),
    "crazy_rummy_v0-{'num_players': 4, 'wild_rank': 2}": (99, 3733),
    "crazy_rummy_v0-{'num_players': 6, 'wild_rank': 13}": (150, 4117),
    "crazy_rummy_v0-{'num_players': 3, 'episode': 'game'}": (75, 3072),
}


@pytest.mark.parametrize("variant, options", LEAK_CASES, ids=IDS)
def test_resampling_hidden_cards_leaves_the_observation_unchanged(variant, options):
    rng = np.random.default_rng(99)
    moved = compared = 0
    for _ in range(25):
        env, actions = record_hand(variant, options, seed=int(rng.integers(1 << 30)), steps=int(rng.integers(1, 150)))
        state = env.unwrapped.game_state
        deck, dealer = state.initial_deck, state.initial_dealer
        replay_options = variant.replay_options(state, options)
        for player in range(state.num_players):
            seen = [0]

            def look(s, player=player, seen=seen):
                seen[0] |= variant.public_cards(s, player)

            replay(variant, replay_options, deck, dealer, actions, player, look)
            hidden_places = [i for i, c in enumerate(deck) if not seen[0] >> c & 1]
            shuffled = list(deck)
            for place, card in zip(hidden_places, rng.permutation([deck[i] for i in hidden_places]), strict=False):
                shuffled[place] = int(card)
            moved += shuffled != deck
            a = replay(variant, replay_options, deck, dealer, [], player)
            b = replay(variant, replay_options, shuffled, dealer, [], player)
            agent = a.possible_agents[player]
            for action in actions + [None]:
                if variant.public_signature(a.game_state) != variant.public_signature(b.game_state):
                    assert variant.name != "rummy_v0", "basic Rummy replays cannot part"
                    break
                oa, ob = a.observe(agent), b.observe(agent)
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                same = oa["observation"] == ob["observation"]
                if a.game_state.hands_played:
                    # the hand is scored: the other hands' values become public in the totals
                    for name in ("scores", "totals"):
                        if any(f.name == name for f in a.layout.fields):
                            same[a.layout.slice(name)] = True
                assert same.all()
                compared += 1
                if action is None or not b.observe(b.agent_selection)["action_mask"][action]:
                    break
                a.step(action)
                b.step(action)
    # seeded, pinned: hidden cards really moved in nearly every replay, and this many positions
    # were compared (a change that ends the replays early changes the count)
    assert (moved, compared) == RESAMPLED[f"{variant.name}-{options}"]


@pytest.mark.parametrize("variant, options", LEAK_CASES, ids=IDS)
def test_no_card_plane_shows_where_another_players_hidden_cards_are(variant, options):
    for seed in range(15):
        env, _ = record_hand(variant, options, seed=seed, steps=int(np.random.default_rng(seed).integers(0, 120)))
        raw = env.unwrapped
        state, lay = raw.game_state, raw.layout
        # planes that say where cards are (the wild card planes of Crazy Rummy say what a
        # wild card stands for, which is public, not where that natural card is)
        planes = [f.name for f in lay.fields if f.size == 52 and not f.name.startswith("wild_")]
        for p, agent in enumerate(raw.possible_agents):
            obs = raw.observe(agent)
            for q in range(state.num_players):
                if q != p:
                    hidden = [c for c in range(52) if state.hands[q] >> c & 1 and not state.known[q] >> c & 1]
                    for name in planes:
                        assert obs["observation"][lay.slice(name)][hidden].sum() == 0, (p, q, name)
            assert obs["observation"][lay.slice("hand")].sum() == state.hands[p].bit_count()
            acting = not state.is_terminal() and p == state.current_player()
            assert (obs["action_mask"].sum() > 0) == acting

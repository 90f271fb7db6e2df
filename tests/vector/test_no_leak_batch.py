"""The batched engines' observations hold only what the acting seat may know: the method
of ``tests/envs/test_no_leak.py`` on a ``Batch``.  A hand recorded in ``env()`` is dealt in
two games of a batch, the second from a deck in which every card a seat never saw is
shuffled among the places of the unseen cards; both play the recorded moves, and while
the env's replays of the two show the same table, the seat's observation and mask rows
(and the public columns: the seat to act, the episode flags) must be the same in both
games.  The rewards of a hand's end count the cards left in the other hands, which the
rules make public (basic and Crazy Rummy): compared on Gin Rummy only, whose showdown
shows both hands.  Rummikub's ``RummikubVec`` the same way, its unseen tiles as
``tests/envs/test_rummikub_env.py`` finds them.
"""

import numpy as np
import pytest

from agents import make_agent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.core.tiles import NUM_TILE_TYPES, tile_str
from rummy_env.games.rummikub import COMMIT, DRAW
from rummy_env.vector import (
    CrazyRummyVec,
    GinRummyVec,
    ReferenceCrazyRummyVec,
    ReferenceGinRummyVec,
    ReferenceRummyVec,
    RummikubVec,
    RummyVec,
)
from tests.envs.test_no_leak import replay
from tests.envs.test_no_leak_infos import recorded, shuffled, signature
from tests.envs.variants import VARIANTS

BY_MODULE = {v.module: v for v in VARIANTS}
CASES = [
    pytest.param(GinRummyVec, gin_rummy_v0, {}, id="kernel-gin"),
    pytest.param(ReferenceGinRummyVec, gin_rummy_v0, {}, id="reference-gin"),
    pytest.param(RummyVec, rummy_v0, {"num_players": 3}, id="kernel-rummy3"),
    pytest.param(ReferenceRummyVec, rummy_v0, {"num_players": 2}, id="reference-rummy2"),
    pytest.param(CrazyRummyVec, crazy_rummy_v0, {"num_players": 3}, id="kernel-crazy3"),
    pytest.param(ReferenceCrazyRummyVec, crazy_rummy_v0, {"num_players": 4}, id="reference-crazy4"),
]


def moves_together(variant, options, deck, other, dealer, actions):
    """How many of ``actions`` both deals play showing the same table (env replays)."""
    a = replay(variant, options, deck, dealer, [], 0)
    b = replay(variant, options, other, dealer, [], 0)
    for done, action in enumerate(actions):
        if signature(variant, a.game_state) != signature(variant, b.game_state):
            return done - 1
        if not b.observe(b.agent_selection)["action_mask"][action]:
            return done
        a.step(action)
        b.step(action)
    return len(actions) if signature(variant, a.game_state) == signature(variant, b.game_state) else len(actions) - 1


#: positions compared in each case's seeded games
COMPARED = {
    ("CrazyRummyVec", "{'num_players': 3}"): 156,
    ("GinRummyVec", "{}"): 177,
    ("ReferenceCrazyRummyVec", "{'num_players': 4}"): 103,
    ("ReferenceGinRummyVec", "{}"): 177,
    ("ReferenceRummyVec", "{'num_players': 2}"): 229,
    ("RummyVec", "{'num_players': 3}"): 1170,
}


@pytest.mark.parametrize(("cls", "module", "options"), CASES)
def test_a_seats_batch_rows_do_not_change_when_unseen_cards_are_shuffled(cls, module, options):
    variant = BY_MODULE[module]
    rng = np.random.default_rng(23)
    compared = 0
    for _ in range(4):
        deck, dealer, actions, replay_options, hidden = recorded(variant, options, int(rng.integers(1 << 30)), rng)
        for seat, places in enumerate(hidden):
            other = shuffled(deck, places, rng)
            together = moves_together(variant, replay_options, deck, other, dealer, actions)
            layout = module.raw_env(**replay_options).layout
            scored = np.zeros(layout.size, bool)
            for field in layout.fields:
                if field.name in ("scores", "totals"):
                    scored[layout.slice(field.name)] = True
            vec = cls(2, seed=0, **replay_options)
            batch = vec.reset(decks=np.array([deck, other]), dealers=np.array([dealer, dealer]))
            for done in range(together + 1):
                assert batch.current_player[0] == batch.current_player[1]
                assert batch.terminated.tolist() == [batch.terminated[0]] * 2
                if batch.current_player[0] == seat:
                    same = batch.observation[0] == batch.observation[1]
                    if batch.terminated[0] and module is not gin_rummy_v0:
                        same[scored] = True  # the hand's scores, made public by the rules
                    assert same.all(), (seat, done)
                    assert np.array_equal(batch.action_mask[0], batch.action_mask[1]), (seat, done)
                    compared += 1
                if module is gin_rummy_v0:
                    assert np.array_equal(batch.rewards[0], batch.rewards[1])
                if done == together or batch.terminated[0]:
                    break
                batch = vec.step(np.array([actions[done]] * 2))
    assert compared == COMPARED[cls.__name__, repr(options)]  # seeded: exact


def rummikub_hand(players, seed, rng):
    """A Rummikub hand of the heuristic and random agents (60 moves at most): (pool, first
    player, moves, the pool places each seat never saw).  As ``tests/envs/test_rummikub_env.py``:
    a seat saw its dealt tiles and its draws; every copy of a tile type committed to the
    table stays where it is (the committed tile came from an unknown place)."""
    env = rummikub_v0.env(num_players=players)
    env.reset(seed=seed)
    names = ["heuristic", "random", "random"]
    agents = [make_agent(names[i], env, seed=seed + i) for i in range(players)]
    actions = []
    for agent in env.agent_iter(max_iter=60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        actions.append(agents[env.possible_agents.index(agent)].act(obs))
        env.step(actions[-1])
    state = env.unwrapped.game_state
    deck, first = list(state.initial_deck), state.initial_first_player
    dealt = 14 * players
    seen = [{i for i in range(dealt) if (first + i) % players == p} for p in range(players)]
    replayed = rummikub_v0.raw_env(num_players=players)
    replayed.reset(options={"deck": [tile_str(t) for t in deck], "first_player": first})
    committed = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    for action in actions:
        s = replayed.game_state
        if action == DRAW and s.pool:
            seen[s.current].add(dealt)
            dealt += 1
        if action == COMMIT:
            committed += s.chosen
        replayed.step(action)
    hidden = [[i for i in range(len(deck)) if i not in seen[p] and committed[deck[i]] == 0] for p in range(players)]
    return deck, first, actions, hidden


@pytest.mark.parametrize("players", [2, 3])
def test_a_seats_rummikub_batch_rows_do_not_change_when_unseen_tiles_are_shuffled(players):
    rng = np.random.default_rng(29)
    compared = 0
    for _ in range(3):
        deck, first, actions, hidden = rummikub_hand(players, int(rng.integers(1 << 30)), rng)
        for seat, places in enumerate(hidden):
            other = shuffled(deck, places, rng)
            b = rummikub_v0.raw_env(num_players=players)
            b.reset(options={"deck": [tile_str(t) for t in other], "first_player": first})
            together = 0  # the moves legal in the shuffled deal too
            for action in actions:
                if not b.observe(b.agent_selection)["action_mask"][action]:
                    break
                b.step(action)
                together += 1
            vec = RummikubVec(2, seed=0, num_players=players)
            batch = vec.reset(decks=np.array([deck, other]), dealers=np.array([first, first]))
            for done in range(together + 1):
                assert batch.current_player[0] == batch.current_player[1]
                assert batch.terminated.tolist() == [batch.terminated[0]] * 2
                if batch.current_player[0] == seat and not batch.terminated[0]:
                    assert np.array_equal(batch.observation[0], batch.observation[1]), (seat, done)
                    assert np.array_equal(batch.action_mask[0], batch.action_mask[1]), (seat, done)
                    compared += 1
                if done == together or batch.terminated[0]:
                    break
                batch = vec.step(np.array([actions[done]] * 2))
    assert compared == 183  # seeded: exact, for 2 and 3 players

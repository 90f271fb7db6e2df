"""``rummikub_v0``'s own encoding, mask, no-leak and agent (the generic env tests are in
``test_env_api.py``)."""

import re

import numpy as np
import pytest

from agents import RummikubMaxPlayAgent, make_agent
from experiments.dev import rummikub_oracle as oracle
from experiments.dev.heuristic_vs_random import measure
from rummy_env import rummikub_v0
from rummy_env.core.tiles import NUM_TILE_TYPES, parse_counts, tile_str
from rummy_env.games.rummikub import COMMIT, DRAW, NUM_ACTIONS, stack_pool
from tests.helpers import legal_texts, play, rummikub_shared_win, whole

RACK0 = "R9 R10 JK B2 B4 B6 B8 B11 K1 K3 K5 Y2 Y4 Y6"
RACK1 = "Y1 Y3 Y5 Y7 Y9 Y11 Y13 K2 K4 K6 K8 K10 K12 B13"


def deal(**options):
    env = rummikub_v0.env(**options)
    env.reset(options={"deck": stack_pool([RACK0, RACK1], pool_top=["R1", "B7"]), "first_player": 0})
    return env


def test_space_sizes():
    for n in (2, 4):
        env = rummikub_v0.env(num_players=n)
        agent = env.possible_agents[0]
        assert env.action_space(agent).n == NUM_ACTIONS == 55
        assert env.observation_space(agent)["observation"].shape == (4 * 53 + 4 * n + 3,)
    space = rummikub_v0.env(target_score=200).observation_space("player_0")["observation"]
    lay = rummikub_v0.raw_env().layout
    assert space.low[lay.slice("scores")].tolist() == [-988.0, -988.0]  # -(200 + 788)
    assert space.high[lay.slice("scores")].tolist() == [988.0, 988.0]


def test_observation_of_a_known_deal_is_exact():
    env = deal()
    lay = env.unwrapped.layout
    o = env.observe("player_0")["observation"]
    assert o.shape == (223,) and o.dtype == np.float32
    assert np.array_equal(o[lay.slice("rack")], parse_counts(RACK0))
    for name in ("table", "play", "last_tile", "initial_meld", "scores", "passes", "turn"):
        assert o[lay.slice(name)].sum() == 0, name
    assert o[lay.slice("acting")].tolist() == [1, 0]
    assert o[lay.slice("rack_sizes")].tolist() == [14, 14]
    assert o[lay.slice("pool_size")].tolist() == [78]
    play(env, "add R9", "add R10")
    o = env.observe("player_0")["observation"]
    assert np.array_equal(o[lay.slice("play")], parse_counts("R9 R10"))
    assert np.flatnonzero(o[lay.slice("last_tile")]).tolist() == [9]  # R10
    other = env.observe("player_1")["observation"]
    assert other[lay.slice("play")].sum() == 0 and other[lay.slice("acting")].tolist() == [0, 1]
    play(env, "add JK", "commit")
    o = env.observe("player_1")["observation"]
    assert np.array_equal(o[lay.slice("table")], parse_counts("R9 R10 JK"))
    assert o[lay.slice("initial_meld")].tolist() == [0, 1] and o[lay.slice("rack_sizes")].tolist() == [14, 11]
    assert o[lay.slice("turn")].tolist() == [1]


def test_action_text():
    raw = rummikub_v0.raw_env
    assert [raw.action_to_string(a) for a in (0, 12, 13, 51, 52, 53, 54)] == [
        "add R1",
        "add R13",
        "add B1",
        "add Y13",
        "add JK",
        "commit",
        "draw",
    ]
    assert raw.string_to_action("PASS") == raw.string_to_action("draw") == DRAW
    assert raw.string_to_action("add k13") == 38
    with pytest.raises(
        ValueError,
        match=whole("action text 'add R0': tile 'R0' is not a tile: numbers are 1-13, colours R B K Y, joker JK"),
    ):
        raw.string_to_action("add R0")


def test_draw_is_a_pass_once_the_pool_is_empty_r_rk_06_11():
    env = deal()
    for _ in range(78):
        play(env, "draw")
    state = env.unwrapped.game_state
    assert state.pool == [] and legal_texts(env)[-1] == "draw"
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    legal = ", ".join([*legal_texts(env)[:-1], "pass"])  # the pool is empty: the refusal says "pass" for draw (R-RK-06)
    text = env.unwrapped.action_to_string(illegal)
    with pytest.raises(
        ValueError, match=whole(f"action {illegal} ({text}) is not legal for player 0 now; legal: {legal}")
    ):
        env.unwrapped.step(illegal)


def _mask_vs_ilp(state, mask):
    """After the initial meld: each tile, COMMIT and DRAW of the mask against an integer
    program that knows nothing of the solver (R-RK-08, tiles in non-decreasing order)."""
    p = state.current
    rack, chosen, table = state.racks[p], state.chosen, state.table
    last = int(np.flatnonzero(chosen)[-1]) if chosen.any() else 0
    for t in range(NUM_TILE_TYPES):
        expected = False
        if t >= last and rack[t] > chosen[t]:
            lo = chosen.copy()
            lo[t] += 1
            hi = rack.copy()
            hi[:t] = chosen[:t]  # the rest of the play comes after t in type order
            expected = oracle.milp_play_exists(table, lo, hi)
        assert bool(mask[t]) == expected, (t, str(state))
    assert bool(mask[COMMIT]) == (bool(chosen.any()) and oracle.milp_can_partition(table + chosen))
    assert bool(mask[DRAW]) == (not chosen.any())


@pytest.mark.parametrize("options", [{}, {"num_players": 3}])
def test_mask_after_the_initial_meld_equals_an_integer_program(options):
    checked = 0
    rng = np.random.default_rng(5)
    for game in range(3):
        env = rummikub_v0.env(**options)
        env.reset(seed=int(rng.integers(1 << 30)))
        agents = {
            a: make_agent(["heuristic", "random"][(i + game) % 2], env, seed=game + i)
            for i, a in enumerate(env.possible_agents)
        }
        for step, agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.unwrapped.game_state
            if state.initial_meld[state.current] and step % 7 == 0 and checked < 12 * (game + 1):
                _mask_vs_ilp(state, obs["action_mask"])
                checked += 1
            env.step(agents[agent].act(obs))
    assert checked >= 20


@pytest.mark.parametrize("players", [2, 3])
def test_no_leak_resampling_hidden_tiles(players):
    """Tiles the observer never saw (other racks, the pool) are shuffled among their places;
    replaying the same moves leaves the observer's observations unchanged."""
    rng = np.random.default_rng(11 + players)
    compared = 0
    for trial in range(12):
        env = rummikub_v0.env(num_players=players)
        env.reset(seed=int(rng.integers(1 << 30)))
        names = ["heuristic", "random", "random"]
        agents = {a: make_agent(names[i], env, seed=trial + i) for i, a in enumerate(env.possible_agents)}
        actions = []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc or len(actions) >= 60:
                break
            actions.append(agents[agent].act(obs))
            env.step(actions[-1])
        state = env.unwrapped.game_state
        deck, first = state.initial_deck, state.initial_first_player
        for player in range(players):
            # positions of the pool the observer saw: its dealt tiles and its draws; every
            # tile committed to the table was seen by everyone
            seen_positions = set()
            replay = rummikub_v0.raw_env(num_players=players)
            replay.reset(options={"deck": [tile_str(t) for t in deck], "first_player": first})
            drawn = 14 * players
            for i in range(drawn):
                if (first + i) % players == player:
                    seen_positions.add(i)
            committed = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
            for a in actions:
                s = replay.game_state
                if a == DRAW and s.pool:
                    if s.current == player:
                        seen_positions.add(drawn)
                    drawn += 1
                if a == COMMIT:
                    committed += s.chosen
                replay.step(a)
            # a committed tile of the opponent came from an unknown place: keep every copy
            # of a committed tile type where it is, shuffle the rest of the unseen places
            hidden = [i for i in range(len(deck)) if i not in seen_positions and committed[deck[i]] == 0]
            shuffled = list(deck)
            for place, tile in zip(hidden, rng.permutation([deck[i] for i in hidden]), strict=False):
                shuffled[place] = int(tile)
            a_env, b_env = rummikub_v0.raw_env(num_players=players), rummikub_v0.raw_env(num_players=players)
            a_env.reset(options={"deck": [tile_str(t) for t in deck], "first_player": first})
            b_env.reset(options={"deck": [tile_str(t) for t in shuffled], "first_player": first})
            agent = a_env.possible_agents[player]
            for a in actions:
                if a_env.game_state.hands_played:
                    break
                oa, ob = a_env.observe(agent), b_env.observe(agent)
                assert np.array_equal(oa["observation"], ob["observation"])
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                compared += 1
                if not b_env.observe(b_env.agent_selection)["action_mask"][a]:
                    break  # the shuffle gave the mover other tiles: this replay parts here
                a_env.step(a)
                b_env.step(a)
    assert compared >= 200


def test_max_play_agent_makes_the_biggest_play_and_draws_otherwise():
    env = deal()
    agent = make_agent("heuristic", env)
    assert isinstance(agent, RummikubMaxPlayAgent)
    moves = []
    for _ in range(4):
        action = agent.act(env.observe("player_0"))
        moves.append(env.unwrapped.action_to_string(action))
        env.step(action)
    assert moves == ["add R9", "add R10", "add JK", "commit"]  # the only initial meld: 30 points
    opponent = make_agent("heuristic", env)
    assert env.unwrapped.action_to_string(opponent.act(env.observe("player_1"))) == "draw"  # nothing melds


def test_max_play_agent_beats_random_in_most_hands():
    out = measure("rummikub", 30, {})  # 2 players, the agent in seat k % 2 of hand k (R-RK-10, 11)
    assert out["won"] == 28 / 30  # these 30 hands; 0.781 [0.751, 0.809] over 800 (README)
    # mean score of the agent's seat and of the random seat: +-681 points over the 30 hands
    assert (out["heuristic_score"], out["random_score"]) == pytest.approx((681 / 30, -681 / 30), rel=1e-6)


def test_a_shared_win_splits_the_winners_part_into_float_scores_r_rk_11():
    env = rummikub_shared_win()
    assert all(env.terminations.values())
    infos = [env.infos[a] for a in env.possible_agents]
    assert [i["rack_value"] for i in infos] == [249, 249, 290]
    # the loser scores -(290 - 249); the two lowest totals share the winner's part, 41 / 2
    assert [i["hand_score"] for i in infos] == [20.5, 20.5, -41.0]
    assert [i["total_score"] for i in infos] == [20.5, 20.5, -41.0]
    assert {type(i[k]) for i in infos for k in ("hand_score", "total_score")} == {float}
    assert [i["winners"] for i in infos] == ["player_0 player_1"] * 3 and infos[0]["winner"] == ""
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == [20.5, 20.5, -41.0]


def test_the_engine_refuses_a_deck_entry_that_is_not_a_tile_type():
    game = rummikub_v0.raw_env.game_class()
    good = [t for t in range(NUM_TILE_TYPES) for _ in range(2)]
    for bad, shown in [(0.9, "0.9"), (True, "True"), ("a", "'a'"), (53, "53"), (-1, "-1")]:
        deck = [bad, *good[1:]]  # int() used to read 0.9 as tile 0 and True as tile 1
        message = f"tile type {shown} is not a tile: tile types are ints 0..52 (52 = joker)"
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            game.new_initial_state(rng=np.random.default_rng(0), deck=deck)
    with pytest.raises(
        ValueError,
        match=r"^deck must hold the 106 tiles: two of each tile type 0..52 "
        r"\(got 105 tiles: tile type 0 appears 1 time\)$",
    ):
        game.new_initial_state(rng=np.random.default_rng(0), deck=good[1:])
    state = game.new_initial_state(rng=np.random.default_rng(0), deck=[np.int8(t) for t in good], first_player=0)
    assert state.initial_deck == good and state.pool[-1] == good[28]  # two racks of 14, then the pool's first tile

"""Golden hands of ``rummikub_v0``: stacked pools, scripted turns, exact results.

Two players, player_0 first.  Tile values: the number; a joker left on a rack counts 30
(R-RK-10); in a meld a joker counts as the tile it stands for (R-RK-07).
"""

import numpy as np
import pytest

from rummy_env import rummikub_v0
from rummy_env.core.tiles import parse_counts
from rummy_env.games.rummikub import stack_pool
from tests.helpers import legal_texts, play

FILLER = "Y1 Y3 Y5 Y7 Y9 Y11 Y13 K2 K4 K6 K8 K10 K12 B13"  # no meld, nothing close to one


def deal(rack0, rack1=FILLER, pool_top=(), **options):
    env = rummikub_v0.env(**options)
    env.reset(seed=0, options={"deck": stack_pool([rack0, rack1], pool_top=pool_top), "first_player": 0})
    return env


def table(env):
    return env.unwrapped.game_state.table


def test_initial_meld_of_exactly_30_with_a_joker_r_rk_07():
    # R9 R10 JK: the joker stands for R11 (the highest tile it can be), 9 + 10 + 11 = 30
    env = deal("R9 R10 JK B2 B4 B6 B8 B11 K1 K3 K5 Y2 Y4 Y6")
    assert legal_texts(env) == ["add R9", "draw"]
    play(env, "add R9")
    assert legal_texts(env) == ["add R10"]
    play(env, "add R10", "add JK")
    assert legal_texts(env) == ["commit"]
    play(env, "commit")
    assert np.array_equal(table(env), parse_counts("R9 R10 JK"))
    assert env.unwrapped.game_state.initial_meld == [True, False]


@pytest.mark.parametrize("points, legal", [(30, False), (29, True)])
def test_initial_meld_of_29_is_refused_r_rk_07(points, legal):
    # R2 R3 R4 R5 (14) + B5 K5 Y5 (15) = 29 points: nothing else on the rack melds
    env = deal(
        "R2 R3 R4 R5 B5 K5 Y5 B1 B8 B12 K1 K9 Y10 Y13",
        rack1="R13 B13 K13 Y12 R7 B7 K7 Y7 R10 B3 K11 Y8 Y2 B10",
        initial_meld_points=points,
    )
    if not legal:
        assert legal_texts(env) == ["draw"]
    else:
        assert legal_texts(env) == ["add R2", "draw"]
        play(env, "add R2", "add R3", "add R4", "add R5", "add B5", "add K5")
        assert legal_texts(env) == ["add Y5"]  # B5 K5 is no meld yet: no commit
        play(env, "add Y5", "commit")
        assert np.array_equal(table(env), parse_counts("R2 R3 R4 R5 B5 K5 Y5"))
        assert env.unwrapped.game_state.initial_meld == [True, False]


@pytest.mark.parametrize(
    "rack, why",
    [
        ("R7 R7 B7 B1 B4 B11 K2 K5 K9 K12 Y1 Y4 Y9 Y12", "a group with a repeated colour, R-RK-03"),
        ("R12 R13 R1 B1 B4 B8 K2 K5 K9 K12 Y3 Y6 Y9 Y11", "12-13-1 is not a run, R-RK-04"),
    ],
)
def test_invalid_melds_are_never_offered(rack, why):
    env = deal(rack, initial_meld_points=0)
    assert legal_texts(env) == ["draw"], why


def test_two_identical_runs_may_lie_on_the_table_r_rk_05():
    env = deal("R8 R8 R9 R9 R10 R10 B1 B4 B11 K2 K5 K12 Y3 Y6")
    play(env, "add R8", "add R8", "add R9", "add R9", "add R10", "add R10", "commit")
    assert np.array_equal(table(env), parse_counts("R8 R8 R9 R9 R10 R10"))
    env.unwrapped.render_mode = "ansi"
    assert env.unwrapped.render().count("R8 R9 R10") == 2


def test_a_play_that_needs_the_table_rearranged_r_rk_08():
    # player_0 lays R3 R4 R5 R6 and B10 K10 Y10; next turn B6 K6 take R6 off the run
    env = deal("R3 R4 R5 R6 B10 K10 Y10 B6 K6 B1 K1 Y2 Y12 B12", pool_top=["Y9", "R13"])
    play(env, "add R3", "add R4", "add R5", "add R6", "add B10", "add K10", "add Y10", "commit")
    play(env, "draw")  # player_1
    # tiles are added in ascending order: B6 opens the only play (R6 B6 K6), K6 follows it
    assert legal_texts(env) == ["add B6", "draw"]
    play(env, "add B6", "add K6", "commit")
    assert np.array_equal(table(env), parse_counts("R3 R4 R5 R6 B6 K6 B10 K10 Y10"))
    env.unwrapped.render_mode = "ansi"
    text = env.unwrapped.render()
    assert "R3 R4 R5\n" in text and "R6 B6 K6" in text


def test_a_freed_joker_is_played_again_in_the_same_turn_r_rk_08():
    # player_0 lays R5 R6 JK (the joker as R7) and B10 K10 Y10; next turn R7 frees the
    # joker, which must go into a new meld with B8 K8
    env = deal("R5 R6 JK B10 K10 Y10 R7 B8 K8 B1 K1 Y2 Y12 B12", pool_top=["Y9", "R13"])
    play(env, "add R5", "add R6", "add B10", "add K10", "add Y10", "add JK", "commit")
    play(env, "draw")
    play(env, "add R7")
    # R7 alone extends the run (the joker moves to R4 or R8: commit), or frees the joker for a
    # group with B1, B8 or B12 (tiles after R7 in the adding order)
    assert legal_texts(env) == ["add B1", "add B8", "add B12", "commit"]
    play(env, "add B8")
    assert "commit" not in legal_texts(env) and legal_texts(env) == ["add K8"]
    play(env, "add K8", "commit")
    env.unwrapped.render_mode = "ansi"
    assert "R5 R6 R7" in env.unwrapped.render() and "JK" in env.unwrapped.render()


def test_going_out_scores_the_other_racks_r_rk_10():
    # player_1 holds 2 jokers (30 each) + 12 tiles of 12 and 13: 60 + 8*13 + 4*12 = 212
    rack1 = "JK JK R13 R13 B13 B13 K13 K13 Y13 Y13 R12 R12 B12 B12"
    env = deal("R1 R2 R3 R4 R5 R6 R7 B1 B2 B3 B4 B5 B6 B7", rack1=rack1)
    play(
        env,
        *[f"add {t}" for t in ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "B1", "B2", "B3", "B4", "B5", "B6", "B7"]],
        "commit",
    )
    assert all(env.terminations.values())
    assert {a: env.infos[a]["hand_score"] for a in env.agents} == {"player_0": 212, "player_1": -212}
    assert env.infos["player_1"]["rack_value"] == 212 and env.infos["player_0"]["winner"] == "player_0"
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    # 212 passes the default target of 200, but a one-hand episode is no game: no game winner
    assert env.unwrapped.game_state.game_winner == -1


@pytest.mark.parametrize("target, over", [(200, True), (212, True), (213, False)])
def test_game_ends_when_a_total_reaches_the_target_r_rk_12(target, over):
    rack1 = "JK JK R13 R13 B13 B13 K13 K13 Y13 Y13 R12 R12 B12 B12"
    env = deal(
        "R1 R2 R3 R4 R5 R6 R7 B1 B2 B3 B4 B5 B6 B7", rack1=rack1, episode="game", target_score=target, reward="score"
    )
    play(
        env,
        *[f"add {t}" for t in ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "B1", "B2", "B3", "B4", "B5", "B6", "B7"]],
        "commit",
    )
    assert env.infos["player_0"]["total_score"] == 212
    assert env._cumulative_rewards == {"player_0": 212.0, "player_1": -212.0}
    assert all(env.terminations.values()) is over
    if not over:
        assert env.unwrapped.game_state.hands_played == 1 and env.unwrapped.game_state.table.sum() == 0


def test_pool_exhaustion_lowest_rack_wins_r_rk_11():
    env = deal("R1 R2 R4 R5 B1 B2 B4 B5 K1 K2 K4 K5 Y1 Y2", rack1=FILLER)
    assert len(env.unwrapped.game_state.pool) == 78
    for _ in range(78):  # both players draw until the pool is empty (the rest of the tiles, in type order)
        play(env, "draw")
    assert legal_texts(env)[-1] == "draw"  # id 54 now passes
    play(env, "pass")
    assert not any(env.terminations.values())
    play(env, "pass")  # every player has passed once in a row
    assert all(env.terminations.values())
    # all 106 tiles are on the two racks: 366 + 422 = 788 = 2 * (4 * 91) + 2 * 30
    assert [env.infos[a]["rack_value"] for a in env.agents] == [366, 422]
    assert [env.infos[a]["hand_score"] for a in env.agents] == [56, -56]
    assert env.infos["player_0"]["winner"] == "player_0"


def test_pool_exhaustion_with_a_shared_lowest_total_r_rk_11():
    # a tie for the lowest rack is hard to reach by scripted play: the scoring is checked on
    # the engine, with three racks set by hand and the pool empty
    from rummy_env.games.rummikub import RummikubGame

    state = RummikubGame(num_players=3).new_initial_state(rng=0)
    racks = [parse_counts("R5 B5"), parse_counts("K10"), parse_counts("Y1 JK")]  # 10, 10, 31
    state.racks = racks
    state.pool = []
    state._end_hand(out=-1)
    assert state.last_hand["winners"] == [0, 1] and state.last_hand["rack_values"] == [10, 10, 31]
    assert state.last_hand["hand_scores"] == [10.5, 10.5, -21]


def test_leaders_tied_at_the_target_share_the_game_and_the_lowest_seat_is_named_r_rk_11_12():
    # player_1 and player_2 hold and draw the two copies of the same 35 low types (the
    # numbers 1..8 and R9 B9 K9), player_0 the 18 other types twice (both jokers among
    # them); everyone draws until the pool is empty, then passes: racks 446 / 171 / 171
    low = [f"{c}{v}" for v in range(1, 9) for c in "RBKY"] + ["R9", "B9", "K9"]
    high = ["Y9"] + [f"{c}{v}" for v in range(10, 14) for c in "RBKY"] + ["JK"]
    racks = [high[:14], low[:14], low[:14]]
    draws = [t for i in range(21) for t in (high[(14 + i) % 18], low[14 + i], low[14 + i])]
    pool = [*draws, high[(14 + 21) % 18]]  # 64 tiles: player_0 draws 22, the others 21
    env = rummikub_v0.env(num_players=3, episode="game", target_score=100)
    env.reset(seed=0, options={"deck": stack_pool([" ".join(r) for r in racks], pool_top=pool), "first_player": 0})
    while not all(env.terminations.values()):
        play(env, "draw" if env.unwrapped.game_state.pool else "pass")
    assert [env.infos[a]["rack_value"] for a in env.agents] == [446, 171, 171]
    assert {a: env.infos[a]["hand_score"] for a in env.agents} == {
        "player_0": -275.0,
        "player_1": 137.5,
        "player_2": 137.5,
    }
    assert env.unwrapped.game_state.game_winner == 1  # both lead with 137.5 >= 100: the lower seat is named
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.5, "player_2": 0.5}

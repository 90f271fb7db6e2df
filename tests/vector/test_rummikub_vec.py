"""RummikubVec (2-4 players, every rummikub_v0 option, hands and whole games) against its
judges: the pure-Python batch (the same seed gives the same games), env() replaying
``deal_of`` with the same actions, a scripted hand with exact scores and rewards, and
bad arguments with their exact messages."""

import re

import numpy as np
import pytest

from rummy_env import rummikub_v0
from rummy_env.core.tiles import parse_tile
from rummy_env.games.rummikub import COMMIT, DRAW, stack_pool
from rummy_env.vector import Batch, ReferenceRummikubVec, RummikubVec, empty_batch
from rummy_env.vector.rummikub_masks import masks_kernel
from tests.vector.differential import IGNORED, play_against_env

OPTIONS = [
    {},
    {"num_players": 3, "reward": "score", "max_turns": 40},
    {"num_players": 4, "initial_meld_points": 0},
    {"num_players": 2, "initial_meld_table_play": True, "initial_meld_points": 10, "max_turns": 60},
    {"num_players": 3, "episode": "game", "target_score": 60, "reward": "score", "max_turns": 30},
    {"num_players": 2, "episode": "game", "target_score": 40, "max_hands": 2, "max_turns": 25},
]


def prefer_tiles(legal, rng):
    """A random legal id, tiles and commits five times likelier than drawing (uniform
    play draws often and melds late)."""
    weights = np.where(legal == DRAW, 1.0, 5.0)
    return int(rng.choice(legal, p=weights / weights.sum()))


def same(got, want, step):
    for name, u, v in zip(Batch._fields, got, want, strict=True):
        assert np.array_equal(u, v), (step, name, np.flatnonzero((u != v).reshape(len(u), -1).any(axis=1)))


#: per option set, what the seeded games of the step-for-step test went through: commits
#: chosen, episode ends seen, hands played in the longest game (so that they cover each)
COVERAGE = [(70, 3, 1), (71, 13, 1), (84, 15, 1), (70, 7, 1), (73, 0, 3), (60, 7, 2)]


@pytest.mark.parametrize(
    ("options", "coverage"),
    list(zip(OPTIONS, COVERAGE, strict=True)),
    ids=[",".join(f"{k}={v}" for k, v in o.items()) or "default" for o in OPTIONS],
)
def test_the_engine_plays_the_reference_games_step_for_step(options, coverage):
    n, steps = 6, 150
    vec, ref = RummikubVec(n, seed=11, **options), ReferenceRummikubVec(n, seed=11, **options)
    batch, expected = vec.reset(), ref.reset()
    rng = np.random.default_rng(5)
    seats = np.arange(n) % vec.num_players
    commits = ends = hands = 0
    for step in range(steps):
        same(batch, expected, step)
        assert np.array_equal(vec.scores, ref.scores) and np.array_equal(vec.hands_played, ref.hands_played)
        assert vec.deal_of(step % n) == ref.deal_of(step % n)
        ends += int((batch.terminated | batch.truncated).sum())
        hands = max(hands, int(vec.hands_played.max()))
        if step % 4 == 0:  # the engines' own random streams
            batch, expected = vec.step_random(), ref.step_random()
        elif step % 4 == 1:
            batch, expected = vec.step_opponents(seats), ref.step_opponents(seats)
        else:
            actions = np.full(n, IGNORED, np.int64)
            for i in range(n):
                if batch.action_mask[i].any():
                    actions[i] = prefer_tiles(np.flatnonzero(batch.action_mask[i]), rng)
            commits += int((actions == COMMIT).sum())
            batch, expected = vec.step(actions), ref.step(actions)
    assert (commits, ends, hands) == coverage  # the 3-player whole games end no episode: 3 hands end inside one


@pytest.mark.parametrize("options", [OPTIONS[1], OPTIONS[5]], ids=["hands", "games"])
def test_games_replay_in_env_from_deal_of_with_the_same_actions(options):
    vec = RummikubVec(3, seed=2, **options)
    counts = play_against_env(vec, rummikub_v0, options, 220, np.random.default_rng(8), choose=prefer_tiles)
    assert counts["episodes"] >= 2 and counts["resets"] >= 1
    keys = {"deck", "first_player"} | ({"next_hands"} if options.get("episode") == "game" else set())
    assert set(vec.deal_of(0)) == keys


# player_0 holds a whole run and a joker: R1 R2 R3 JK(=R4) and R4 .. R13, 95 points (R-RK-07)
RUN = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 JK"
OTHER = "B1 B2 B5 K7 K9 Y3 Y4 Y8 Y11 B13 K2 K4 K13 Y13"  # 95 points left on the rack (R-RK-10)


@pytest.mark.parametrize("cls", [ReferenceRummikubVec, RummikubVec])
@pytest.mark.parametrize(("reward", "rewards"), [("win", [1.0, -1.0]), ("score", [95.0, -95.0])])
def test_a_scripted_hand_goes_out_in_one_turn_with_exact_scores(cls, reward, rewards):
    pool = stack_pool([RUN, OTHER], first_player=0)
    vec = cls(2, seed=0, reward=reward)
    batch = vec.reset(decks=[pool, pool], dealers=np.array([0, 0]))
    assert vec.deal_of(1) == {"deck": pool, "first_player": 0}
    assert batch.current_player.tolist() == [0, 0]
    assert batch.action_mask[0, DRAW] == 1 and batch.action_mask[0, COMMIT] == 0
    for text in RUN.split():
        t = parse_tile(text)
        assert batch.action_mask[:, t].all(), text
        batch = vec.step(np.array([t, t]))
        assert batch.action_mask[0, DRAW] == 0
    assert batch.action_mask[:, COMMIT].all() and np.flatnonzero(batch.action_mask[0]).tolist() == [COMMIT]
    batch = vec.step(np.array([COMMIT, COMMIT]))
    assert batch.terminated.all() and not batch.truncated.any() and not batch.action_mask.any()
    assert batch.rewards.tolist() == [rewards, rewards]
    assert vec.scores.tolist() == [[95, -95], [95, -95]] and vec.hands_played.tolist() == [1, 1]
    lay = vec.layout
    obs = batch.observation[0]
    assert not obs[lay.slice("rack")].any() and obs[lay.slice("table")].sum() == 14
    assert obs[lay.slice("rack_sizes")].tolist() == [0, 14] and obs[lay.slice("scores")].tolist() == [95, -95]
    assert obs[lay.slice("initial_meld")].tolist() == [1, 0] and not obs[lay.slice("acting")].any()
    assert obs[lay.slice("pool_size")].tolist() == [106 - 28]
    batch = vec.step(np.array([0, 0]))  # the autoreset deals a new hand from the stream
    assert not batch.terminated.any() and vec.deal_of(0)["deck"] != pool


def test_stacked_pools_and_first_players_deal_the_same_games_in_both_implementations():
    pools = np.array([np.random.default_rng(k).permutation(np.repeat(np.arange(53), 2)) for k in range(4)])
    kernel, reference = RummikubVec(4, seed=4, num_players=3), ReferenceRummikubVec(4, seed=4, num_players=3)
    same(kernel.reset(decks=pools), reference.reset(decks=pools), 0)
    deals = [kernel.deal_of(i) for i in range(4)]
    assert deals == [reference.deal_of(i) for i in range(4)]
    assert [d["first_player"] for d in deals] == [2, 2, 0, 1]  # drawn per game from its deal stream
    first = np.array([2, 0, 1, 2])
    same(kernel.reset(decks=pools, dealers=first), reference.reset(decks=pools, dealers=first), 0)
    assert [kernel.deal_of(i)["first_player"] for i in range(4)] == first.tolist()
    assert kernel.dealers().tolist() == first.tolist() and kernel.decks().shape == (4, 106)


def test_threads_play_the_same_games_as_one_thread():
    one = RummikubVec(64, seed=21, num_threads=1, num_players=3)
    two = RummikubVec(64, seed=21, num_threads=2, num_players=3)
    assert one.threads_used() == 1 and two.threads_used() == 2
    same(one.reset(), two.reset(), 0)
    for step in range(30):
        same(one.step_random(), two.step_random(), step)
    seats = np.arange(64) % 3
    same(one.step_opponents(seats), two.step_opponents(seats), 30)
    two.close()
    assert set(one.timings) == {"step", "mask", "observation"} and one.timings["mask"] > 0


@pytest.mark.parametrize("cls", [ReferenceRummikubVec, RummikubVec])
def test_bad_arguments_raise_clear_errors_and_change_no_game(cls):
    vec = cls(3, seed=0, num_players=3)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\), step_random\(\) or deal_of\(\)$"):
        vec.step(np.zeros(3, np.int64))
    batch = vec.reset()
    before = Batch(*(a.copy() for a in batch))
    deals = [vec.deal_of(i) for i in range(3)]

    def refused(message, call, *args, **kwargs):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            call(*args, **kwargs)

    refused("actions of shape (2,): pass one action id per game, shape (3,)", vec.step, np.zeros(2, np.int64))
    refused("actions of dtype float64: action ids are integers 0..54", vec.step, np.zeros(3))
    actions = np.array([DRAW] * 3)
    actions[1] = COMMIT  # no tile chosen yet: commit is not legal
    refused(
        "action 53 (commit) is not legal in game 1 for player "
        f"{int(batch.current_player[1])}: actions must be legal ids of that game's action_mask; no game was changed",
        vec.step,
        actions,
    )
    actions[1] = 55
    refused(
        f"action 55 (out of range) is not legal in game 1 for player {int(batch.current_player[1])}: "
        "actions must be legal ids of that game's action_mask; no game was changed",
        vec.step,
        actions,
    )
    refused(
        "decks of shape (3, 52): pass (3, 106) tile types 0..52, first drawn first",
        vec.reset,
        decks=np.zeros((3, 52), int),
    )
    pools = np.tile(np.repeat(np.arange(53), 2), (3, 1))
    pools[2, 0] = 5
    pool = "deck of game 2 is not a Rummikub pool: it must hold each tile type 0..52 twice"
    refused(f"{pool} (tile type 5 appears 3 times, tile type 0 appears 1 time)", vec.reset, decks=pools)
    # an entry outside 0..52 is named before any count (np.bincount refused a negative one in its own words)
    for value, dtype in [(-1, np.int64), (53, np.int64), (2**40, np.int64), (2**63 + 5, np.uint64)]:
        pools = np.tile(np.repeat(np.arange(53), 2), (3, 1)).astype(dtype)
        pools[2, 7] = value
        refused(f"{pool} (entry 7 is {value}, not a tile type 0..52)", vec.reset, decks=pools)
    refused(
        "deck of game 0: deck must be a list of 106 tile strings, first drawn first, not one string",
        vec.reset,
        decks=["R1 R2"] * 3,
    )
    refused(
        "deck of game 1: deck of type NoneType has no order: pass a list of 106 tile strings",
        vec.reset,
        decks=[deals[0]["deck"], None, deals[0]["deck"]],
    )
    refused(
        "deck of game 1: tile 'R1' appears 3 times; each coloured tile exists twice",
        vec.reset,
        decks=[deals[0]["deck"], deals[0]["deck"][:-1] + ["R1"], deals[0]["deck"]],
    )
    refused(
        "first player 3 of game 1 is not a seat: dealers (Rummikub: first players) are 0..2",
        vec.reset,
        dealers=np.array([0, 3, 1]),
    )
    refused(
        "dealers (Rummikub: first players) must be an int array of shape (3,), got float64 (3,)",
        vec.reset,
        dealers=np.zeros(3),
    )
    refused("seats must be 0..2, got [0, 4]", vec.step_opponents, np.array([0, 4, 0]))
    size = vec.observation_size
    refused(
        f"out.observation must be a writeable C-contiguous float32 array of shape (3, {size}): got float32 (2, {size})",
        vec.step_random,
        out=empty_batch(2, size, vec.num_actions, vec.num_players),
    )
    refused("game index=3 is out of range: game index must be an int from 0 to 2", vec.deal_of, 3)
    refused("option num_players=5 is out of range: num_players must be an int from 2 to 4", cls, 2, num_players=5)
    refused(
        "option initial_meld_points=800 is out of range: initial_meld_points must be an int from 0 to 754",
        cls,
        2,
        initial_meld_points=800,
    )
    for kept, was in zip(batch, before, strict=True):  # the failed calls wrote nothing
        np.testing.assert_array_equal(kept, was)
    assert [vec.deal_of(i) for i in range(3)] == deals
    after = vec.step_random()
    replay = cls(3, seed=0, num_players=3)
    replay.reset()
    same(after, replay.step_random(), 1)


@pytest.mark.parametrize("cls", [ReferenceRummikubVec, RummikubVec])
def test_caller_owned_outputs_are_written_in_place_and_seeds_replay(cls):
    vec = cls(3, seed=5, num_players=4)
    out = empty_batch(3, vec.observation_size, vec.num_actions, vec.num_players)
    assert vec.observation_size == 4 * 53 + 4 * 4 + 3 and vec.num_actions == 55
    assert vec.reset(out=out) is out and out.action_mask.any(axis=1).all()
    assert out.action_mask.dtype == np.int8 and out.observation.dtype == np.float32
    twin, other = cls(3, seed=5, num_players=4), cls(3, seed=6, num_players=4)
    same(out, twin.reset(), 0)
    assert (out.observation != other.reset().observation).any()
    for step in range(20):
        got = vec.step_random(out=out)
        assert got is out
        same(out, twin.step_random(), step)


def test_both_sweep_directions_give_the_exact_masks_and_each_game_keeps_their_costs():
    # table R1 R2 R3 + JK B5 K5 (the joker as Y5 or R4), rack R4 R5 B1 Y13, initial meld made:
    # R4 extends the run, R5 joins B5 K5 (the joker moves to Y5), B1 and Y13 fit nowhere
    # (R1 is needed in its run: R4 is below B1, so no play led by B1 may use it)
    masks_range, tables = masks_kernel()

    def counts(text):
        return np.bincount([parse_tile(t) for t in text.split()], minlength=53).astype(np.int64)[None]

    table, racks = counts("R1 R2 R3 JK B5 K5"), np.stack([counts("R4 R5 B1 Y13")[0]] * 2)[None]
    # (upward cost, downward cost) before -> direction run: the smaller known work, else _mirror_pays
    # (the numbers 4, 5, 1, 13 that can be added average 5.75 <= 8: downward)
    # the direction run records its sweep work (113 move pairs upward, 93 downward; the
    # same on every run; the joker must be used and a run is forced, R2 standing alone at
    # 2: the relaxed sweep of rummikub_jokers), the other keeps its cost
    for before, down in (([5, 10], False), ([10, 5], True), ([-1, -1], True), ([-1, 7], False)):
        legal, fallback = np.zeros((1, 55), np.int8), np.zeros(1, np.bool_)
        dir_cost = np.array([before], np.int64)
        masks_range(
            0, 1, np.array([0]), racks, table, np.zeros((1, 53), np.int64), np.array([-1]), np.array([0]),
            np.ones((1, 2), np.bool_), 30, False, tables, legal, fallback, dir_cost,
        )  # fmt: skip
        assert np.flatnonzero(legal[0]).tolist() == [parse_tile("R4"), parse_tile("R5"), DRAW], before
        after = list(before)
        after[int(down)] = 93 if down else 113
        assert dir_cost[0].tolist() == after, before

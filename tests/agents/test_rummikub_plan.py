"""Whole-play search on Rummikub (``pimc`` with ``plan=plays``): names, candidate plays,
turn-by-turn playouts, blindness to hidden tiles, and a position where it beats max-play."""

import numpy as np
import pytest

from agents import make_agent
from agents.search import PIMCAgent, rummikub_plan
from agents.search.rummikub_mix import MAX_PLAY_DRAW, MIX_EPS, STYLES, hand_turns, style_posterior
from agents.search.rummikub_plan import PLAN_DEFAULTS, PatientAgent, RummikubPlanAgent
from agents.search.rummikub_plays import Rules, World, _has_stray_tile, can_go_out, candidate_plays, playout
from experiments.common import play_episode
from rummy_env import gin_rummy_v0, rummikub_v0
from rummy_env.core.rummikub_solver import best_play, can_partition
from rummy_env.core.tiles import FULL_POOL_COUNTS, NUM_TILE_TYPES, counts_str, parse_counts
from rummy_env.games.rummikub.actions import COMMIT, DRAW
from tests.games.resample_helpers import scrambled
from tests.helpers import whole


def test_pimc_on_rummikub_searches_whole_plays_and_bad_options_are_refused():
    env = rummikub_v0.env()
    agent = make_agent("pimc", env, seed=1)
    assert isinstance(agent, RummikubPlanAgent)
    assert (agent.worlds, agent.candidates, agent.rollout, agent.prior, agent.late) == (3, 4, "patient", 0.1, 4)
    assert PLAN_DEFAULTS["worlds"] == 3
    custom = make_agent("pimc:worlds=5,candidates=2,rollout=heuristic,late=9", env)
    assert (custom.worlds, custom.candidates, custom.rollout, custom.late) == (5, 2, "heuristic", 9)
    assert isinstance(make_agent("pimc:plan=steps,worlds=1", env), PIMCAgent)
    assert isinstance(make_agent("agents.search.rummikub_plan:patient_agent", env), PatientAgent)
    whole_play = "is an option of whole-play search: it needs plan=plays (Rummikub)"
    for name, module, message in [
        (
            "pimc:plan=plays",
            gin_rummy_v0,
            "plan=plays searches whole Rummikub plays; gin_rummy_v0 has none: use plan=steps",
        ),
        ("pimc:candidates=3", gin_rummy_v0, f"candidates=N {whole_play}"),
        ("pimc:plan=steps,late=3", rummikub_v0, f"late=N {whole_play}"),
        ("pimc:plan=tiles", rummikub_v0, "plan='tiles' is not a pimc plan: use plan=plays (Rummikub) or plan=steps"),
        (
            "pimc:playouts=5",
            rummikub_v0,
            "pimc with plan=plays takes worlds, candidates, depth, rollout, prior, late, time, model; playouts belong "
            "to plan=steps",
        ),
        (
            "pimc:rollout=random",
            rummikub_v0,
            "rollout='random' is not a Rummikub plan rollout: use one of heuristic, patient",
        ),
    ]:
        with pytest.raises(ValueError, match=whole(message)):
            make_agent(name, module.env())


def test_candidate_plays_start_with_max_play_then_its_neighbours():
    rules = Rules(rummikub_v0.env().unwrapped.game.config)
    table, rack = parse_counts("R4 R5 R6"), parse_counts("R1 R2 R3 B7 K7 Y7 JK Y9")
    plays = [counts_str(p) for p in candidate_plays(rules, table, rack, True, 8)]
    # most points; without the joker; the draw; then without B7 (Y7 Y8=JK Y9 instead),
    # without Y7, R3, R2 (the most tiles play is the first one again)
    assert plays == [
        "R1 R2 R3 B7 K7 Y7 JK",
        "R1 R2 R3 B7 K7 Y7",
        "",
        "R1 R2 R3 Y7 Y9 JK",
        "R1 R2 R3 B7 K7 JK",
        "B7 K7 Y7 JK",
        "R3 B7 K7 Y7 JK",
        "R2 R3 B7 K7 Y7 JK",
    ]
    assert [counts_str(p) for p in candidate_plays(rules, table, rack, True, 2, can_draw=False)] == plays[:2]
    # before the initial meld (R-RK-07) only rack melds of 30+ points: Y9 and R1..R3 alone are 6
    none = candidate_plays(rules, np.zeros(NUM_TILE_TYPES, np.int64), parse_counts("R1 R2 R3 Y9"), False, 4)
    assert [counts_str(p) for p in none] == [""]


def test_stray_tiles_rule_out_a_partition():
    assert _has_stray_tile(parse_counts("R1 R2 R3 K9"))  # K9: no group partner, no K8/K10
    assert _has_stray_tile(parse_counts("R1 R2 R3 K9 JK"))  # K9 JK is two tiles of a run
    assert not _has_stray_tile(parse_counts("R1 R2 R3 K9 JK JK"))
    # each tile fits some meld, but R1 cannot be in both R1 R2 R3 and R1 B1 K1
    assert not _has_stray_tile(parse_counts("R1 R2 R3 B1 K1")) and not can_partition(parse_counts("R1 R2 R3 B1 K1"))
    assert not _has_stray_tile(parse_counts("R13 B13 K13 R11 R12"))
    assert can_go_out(parse_counts("R1 R2 R3"), parse_counts("R4 B4 K4 Y4"))
    assert not can_go_out(parse_counts("R1 R2 R3"), parse_counts("R5 B4 K4 Y4"))
    rng = np.random.default_rng(0)
    stray = 0
    for _ in range(300):  # the test is necessary: a stray tile never partitions
        tiles = rng.choice(106, int(rng.integers(3, 50)), replace=False)
        counts = np.bincount(np.repeat(np.arange(NUM_TILE_TYPES), 2)[tiles], minlength=NUM_TILE_TYPES)
        if _has_stray_tile(counts):
            stray += 1
            assert not can_partition(counts)
    assert stray > 100


def _exhausted_position():
    """A constructed R-RK-11 position: pool empty, player_1 just passed, player_0 to act
    with R1 R2 R3 K13 (19 points); player_1 holds the 13 tiles K11 K11 K12 K12 K13, the
    other 13s and both jokers (197 points), the table all the rest (runs).  K13 fits no
    meld without player_1's tiles, so max-play plays R1 R2 R3, and player_1 then goes out
    with everything; passing ends the hand with 19 points, the lowest total."""
    env = rummikub_v0.env()
    env.reset(seed=0, options={"first_player": 0})
    state = env.unwrapped.game_state
    mine = parse_counts("R1 R2 R3 K13")
    theirs = parse_counts("K11 K11 K12 K12 K13 R13 R13 B13 B13 Y13 Y13 JK JK")
    state.racks, state.table, state.pool = [mine, theirs], FULL_POOL_COUNTS - mine - theirs, []
    state.initial_meld, state.passes, state.current, state._legal = [True, True], 1, 0, None
    assert can_partition(state.table)
    return env


def test_search_passes_to_win_where_max_play_plays_and_loses():
    env = _exhausted_position()
    obs = env.observe("player_0")
    assert make_agent("heuristic", env).act(obs) == parse_counts("R1").argmax()  # starts R1 R2 R3
    agent = make_agent("pimc", env, seed=3)
    assert agent.play_values(env.unwrapped.game_state, 0, [parse_counts("R1 R2 R3"), parse_counts("")]).tolist() == [
        0.1,
        1.0,
    ]
    env.step(agent.act(obs))
    state = env.unwrapped.game_state
    assert state.is_terminal() and state.last_hand["winners"] == [0] and state.returns()[0] == 1.0
    env = _exhausted_position()
    heuristic = make_agent("heuristic", env)
    for _ in range(4):  # R1 R2 R3, commit
        env.step(heuristic.act(env.observe("player_0")))
    state = env.unwrapped.game_state
    assert state.current == 1 and counts_str(state.racks[0]) == "K13"
    # player_1's max play (the heuristic's) is its whole rack: it goes out and wins (R-RK-10)
    assert np.array_equal(best_play(state.table, state.racks[1], True), state.racks[1])


def test_world_turns_score_as_the_engine():
    env = _exhausted_position()
    world = World(env.unwrapped.game_state)
    passed = world.copy()
    passed.apply(np.zeros(NUM_TILE_TYPES, np.int64), 1000)  # the second pass in a row: R-RK-11
    assert passed.over and passed.winners == [0]
    world.apply(parse_counts("R1 R2 R3"), 1000)
    assert not world.over and world.current == 1 and counts_str(world.racks[0]) == "K13"
    world.apply(world.racks[1].copy(), 1000)  # player_1 goes out: R-RK-10
    assert world.over and world.winners == [1]
    limited = World(env.unwrapped.game_state)
    limited.apply(parse_counts("R1 R2 R3"), limited.turn + 1)  # R-RK-13: no winner
    assert limited.over and limited.winners == []


def test_worlds_of_model_0_fit_the_opponents_last_play():
    env = _exhausted_position()
    state = env.unwrapped.game_state
    add, commit, draw = 4, COMMIT, DRAW  # the tiles added do not matter, only the turn boundaries
    for history, turn, expected in [
        ([add, add, add, commit], 1, []),  # player_1's first play: its initial meld (R-RK-07)
        ([add, add, add, commit, draw, add, commit], 3, [1]),  # a later play, the table as it left it
        ([add, add, add, commit, add, commit, draw], 3, []),  # player_1 drew last
        ([add, add, add, commit, draw, add, commit, add], 3, [1]),  # player_0's own play being built
        ([add, add, add, commit, add, commit], 1, []),  # a play of an earlier hand is not read
    ]:
        state.history, state.turn = history, turn
        assert RummikubPlanAgent.committed_seats(state, 0) == expected
    # player_1 can empty its rack here, so no world fits; uniform worlds always do
    assert not RummikubPlanAgent.fits(state, [1]) and RummikubPlanAgent.fits(state, [])
    with pytest.raises(
        ValueError,
        match=whole(
            "model=0.5: plan=plays takes model=0 (worlds fit the opponents' plays), 1 "
            "(uniform) or mix (the opponents' playout style from their turns)"
        ),
    ):
        make_agent("pimc:model=0.5", env)
    assert make_agent("pimc:model=0", env).model == 0.0


def _searched_position(seed, turns):
    env = rummikub_v0.env()
    env.reset(seed=seed)
    patient = PatientAgent(env)
    heuristic = make_agent("heuristic", env)
    for _ in range(turns):
        if env.terminations[env.agent_selection]:
            return None
        actor = patient if env.agent_selection == "player_0" else heuristic
        env.step(actor.act(env.observe(env.agent_selection)))
    state = env.unwrapped.game_state
    if env.terminations[env.agent_selection] or state.chosen.any() or len(state.legal_actions()) < 2:
        return None
    return env


def _check_blind_to_hidden_tiles(spec, posterior_moved=False):
    """On 3 searched positions, ``spec``'s plan, values and action under seed 11, and the
    public turns and style posterior, are the same in 3 other true deals with the same
    information (hidden tiles swapped between the other rack and the pool), positions
    where a search of the true deal would give other values in one of them; with
    ``posterior_moved`` some position's opponent posterior must differ from the prior."""
    checked, moved = 0, False
    for seed in range(30):
        env = _searched_position(seed, 20 + 3 * seed)
        if env is None:
            continue
        raw = env.unwrapped
        seat = raw.game_state.current_player()
        obs = env.observe(env.agent_selection)
        agent = make_agent(spec, env, seed=11)
        view = raw.game_state.observation(seat)
        if len(agent.candidate_plays(view)) < 2:
            continue
        plays = agent.candidate_plays(view)
        before = make_agent(spec, env, seed=11).plan(raw.game_state, seat, view)
        values = make_agent(spec, env, seed=11).play_values(raw.game_state, seat, plays)
        action = make_agent(spec, env, seed=11).act(obs)
        turns, posterior = hand_turns(raw.game_state), style_posterior(raw.game_state, seat)
        truth = raw.game_state
        other = 1 - seat  # 2 seats
        # 20 swaps of hidden tiles each, keeping the deals that changed the other rack
        deals = (scrambled(truth, seat, np.random.default_rng(k), swaps=20) for k in range(100))
        deals = [d for d in deals if not np.array_equal(d.racks[other], truth.racks[other])][:3]
        assert len(deals) == 3
        # the control: a search whose worlds were the true deal would value the plays
        # differently in one of these deals; positions where it would not cannot tell
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(type(truth), "resample", lambda state, seat, rng: state.clone())
            peeked = [make_agent(spec, env, seed=11).play_values(d, seat, plays).tolist() for d in (truth, *deals)]
        if all(v == peeked[0] for v in peeked[1:]):
            continue
        moved = moved or posterior[other].tolist() != [0.5, 0.5]
        for swapped in deals:
            assert sorted(swapped.pool) != sorted(truth.pool)
            raw.game_state = swapped  # another true deal, the same information
            assert hand_turns(swapped) == turns
            assert style_posterior(swapped, seat).tolist() == posterior.tolist()
            again = make_agent(spec, env, seed=11).plan(swapped, seat, swapped.observation(seat))
            assert counts_str(again) == counts_str(before)
            # the worlds, hence every value, depend only on the player's information
            assert make_agent(spec, env, seed=11).play_values(swapped, seat, plays).tolist() == values.tolist()
            assert make_agent(spec, env, seed=11).act(obs) == action
        checked += 1
        if checked == 3:
            break
    assert checked == 3
    assert moved or not posterior_moved


@pytest.mark.parametrize("rollout", ["heuristic", "patient"])
def test_whole_play_decisions_do_not_change_when_hidden_tiles_are_permuted(rollout):
    # each position checked is one where a search that read the true racks would fail
    _check_blind_to_hidden_tiles(f"pimc:worlds=2,candidates=3,late=106,rollout={rollout}")


def test_model_mix_decisions_and_posterior_do_not_change_when_hidden_tiles_are_permuted():
    # the styles are drawn from public turns only: swapping the other rack's tiles with
    # the pool's changes neither the posterior nor, under one seed, any value or action
    # (rollout=heuristic: its values differ from world to world, so a search that read
    # the true racks fails here, checked by replacing resample with clone)
    spec = "pimc:worlds=2,candidates=3,late=106,rollout=heuristic,model=mix"
    _check_blind_to_hidden_tiles(spec, posterior_moved=True)


@pytest.mark.parametrize(("players", "expected"), [(2, (58, [0.0, 0.0], True)), (3, (83, [0.0] * 3, True))])
def test_tiny_whole_play_search_and_the_patient_agent_play_whole_hands(players, expected):
    # raw_env raises IllegalActionError on an illegal action (env() would score it as a loss)
    env = rummikub_v0.raw_env(num_players=players, max_turns=40)
    agents = [make_agent("pimc:worlds=1,candidates=2,depth=4,late=106", env, seed=1), PatientAgent(env)]
    agents += [make_agent("heuristic", env) for _ in range(players - 2)]
    result = play_episode(env, agents, seed=7)
    assert (result["steps"], result["returns"], result["truncated"]) == expected


def test_model_mix_reads_the_others_style_from_their_public_turns():
    env = _exhausted_position()
    state = env.unwrapped.game_state
    add, commit, draw = 4, COMMIT, DRAW
    # 7 turns, player_0 to act, so player_1 took the first: player_1 melds, player_0
    # melds, player_1 draws, player_0 draws, player_1 draws, player_0 plays, player_1
    # draws; the pool starts at 106 - 2 * 14 = 78 tiles (R-RK-02)
    state.history = [add, add, add, commit, add, commit, draw, draw, draw, add, add, commit, draw]
    state.turn = 7
    assert hand_turns(state) == [
        (1, True, 78),
        (0, True, 78),
        (1, False, 78),
        (0, False, 77),
        (1, False, 76),
        (0, True, 75),
        (1, False, 75),
    ]
    # player_1: three draws after its meld (max-play 0.5 each, patient 1): 1 / (1 + 0.125)
    post = style_posterior(state, 0)
    assert STYLES == ("heuristic", "patient") and (MAX_PLAY_DRAW, MIX_EPS) == (0.5, 0.2)
    assert post[0].tolist() == [0.5, 0.5]  # the acting seat's own row: the prior
    assert post[1] == pytest.approx([0.125 / 1.125, 1 / 1.125], abs=1e-12)
    # player_0 seen from player_1: a draw (0.5 for max-play) and a later play (0.2 for patient)
    assert style_posterior(state, 1)[0] == pytest.approx([0.5 / 0.7, 0.2 / 0.7], abs=1e-12)
    assert make_agent("pimc:model=mix", env, seed=3).model == "mix"


def _joker_meld_position():
    """Pool empty, player_0 (melded) to act with R1 R2 R3 K13; player_1 has not made its
    initial meld (R-RK-07) and holds R10 R11 R12 JK, the table all the rest (the worlds are
    this deal: no tile is hidden from player_0).  Max-play melds its whole rack with the
    joker and goes out (R-RK-10); patient melds R10 R11 R12 (33 points) without the joker,
    and player_0 then goes out on the rearranged table."""
    env = rummikub_v0.env()
    env.reset(seed=0, options={"first_player": 0})
    state = env.unwrapped.game_state
    mine, theirs = parse_counts("R1 R2 R3 K13"), parse_counts("R10 R11 R12 JK")
    state.racks, state.table, state.pool = [mine, theirs], FULL_POOL_COUNTS - mine - theirs, []
    state.initial_meld, state.passes, state.current, state._legal = [True, False], 0, 0, None
    assert can_partition(state.table)
    return env


def test_playout_rolls_the_patient_seats_out_patient():
    env = _joker_meld_position()
    rules = Rules(env.unwrapped.game.config)
    for rollout, patient, value, racks in [
        ("patient", (), 0.0, ["R1 R2 R3 K13", ""]),  # player_1 max-play: out with the joker
        ("patient", (1,), 1.0, ["", "JK"]),  # player_1 patient keeps JK, player_0 goes out
        ("heuristic", (1,), 1.0, ["", "JK"]),
        ("heuristic", (0,), 0.0, ["R1 R2 R3 K13", ""]),  # the searching seat keeps its rollout
    ]:
        world = World(env.unwrapped.game_state)
        world.apply(parse_counts(""), rules.max_turns)  # player_0 passes (pool empty)
        assert playout(world, rules, 0, 200, rollout, patient) == value, (rollout, patient)
        assert [counts_str(r) for r in world.racks] == racks and world.over


@pytest.mark.parametrize("p_patient, values", [(0.0, [0.1, 0.0]), (1.0, [1.1, 1.0])])
def test_model_mix_rolls_the_opponent_out_in_the_style_drawn_from_its_posterior(monkeypatch, p_patient, values):
    # with player_1 max-play the search loses both plays, with player_1 patient it wins
    # both (the first play's value with the prior 0.1): the drawn style reaches the rollouts
    env = _joker_meld_position()
    state = env.unwrapped.game_state
    asked = []

    def posterior(state, seat):
        asked.append(seat)
        return np.array([[0.5, 0.5], [1 - p_patient, p_patient]])

    monkeypatch.setattr(rummikub_plan, "style_posterior", posterior)
    agent = make_agent("pimc:model=mix", env, seed=3)
    assert agent.play_values(state, 0, [parse_counts("R1 R2 R3"), parse_counts("")]).tolist() == values
    assert asked == [0]
    # model=1 rolls player_1 out max-play whatever its turns say
    assert make_agent("pimc:model=1", env, seed=3).play_values(state, 0, [parse_counts("")]).tolist() == [0.1]

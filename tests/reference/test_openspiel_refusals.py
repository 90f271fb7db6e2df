"""A refused action changes nothing in the OpenSpiel games (issue 27, part 2): every
illegal decision id, every chance outcome a node does not offer, ids out of range and
arguments of the wrong type, at chance nodes (setup, deal, stock draw), at the start of
turns and in the middle of multi-step turns (a draw taken, melds laid, a Rummikub play
being built), and once the game is over.  And a Rummikub world resampled for a seat
that is not acting while another builds a play still lets that play be finished."""

import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from rummy_env.games.crazy_rummy.actions import DRAW_STOCK as CRAZY_DRAW
from rummy_env.games.errors import ActionTypeError, IllegalActionError
from rummy_env.games.gin_rummy import DRAW_STOCK as GIN_DRAW
from rummy_env.games.rummikub.actions import DRAW as RUMMIKUB_DRAW
from rummy_env.games.rummy.actions import DRAW_STOCK as RUMMY_DRAW
from rummy_env.openspiel.core import DEAL, DRAW, SETUP
from tests.helpers import whole
from tests.reference.openspiel_play import NAMES, load, random_play, sample_chance

DRAWS = {"rummy": RUMMY_DRAW, "gin_rummy": GIN_DRAW, "crazy_rummy": CRAZY_DRAW, "rummikub": RUMMIKUB_DRAW}
PARAMS = {
    "rummy": {"num_players": 3, "max_turns": 40},
    "gin_rummy": {"max_turns": 40},
    "crazy_rummy": {"max_turns": 40},
    "rummikub": {"max_turns": 60},
}


def snapshot(state):
    """Everything a refused action must leave as it was."""
    n = state.num_players()
    seats = range(n)
    offered = state.chance_outcomes() if state.is_chance_node() else None
    return (
        state.history(),
        state.move_number(),
        str(state),
        state.current_player(),
        state.is_terminal(),
        state.legal_actions(),
        offered,
        state.rewards(),
        state.returns(),
        [state.information_state_string(q) for q in seats],
        [state.information_state_tensor(q) for q in seats],
        [state.observation_string(q) for q in seats],
        [state.observation_tensor(q) for q in seats],
    )


def quick_look(state):
    """The parts of :func:`snapshot` that are cheap to read (checked after each refusal;
    the whole snapshot after each batch: a log line, once added, stays)."""
    offered = state.chance_outcomes() if state.is_chance_node() else None
    return state.history(), state.move_number(), str(state), state.legal_actions(), offered, state.rewards()


def is_decision(state):
    return not state.is_chance_node() and not state.is_terminal()


def turn_start(variant):
    return lambda s: is_decision(s) and DRAWS[variant] in s.legal_actions()


def mid_turn(variant):
    # the acting seat made the decision before this one: a draw it is to follow with a
    # discard, a meld or lay-off, a tile added to a Rummikub play
    def test(state):
        history = state.full_history()
        return (
            is_decision(state)
            and DRAWS[variant] not in state.legal_actions()
            and history[-1].player == state.current_player()
        )

    return test


def positions(variant, seed):
    """States of one random game (chance nodes of the setup, the deal and a stock draw;
    turn starts; the middle of turns; the end), by name."""
    game = load(variant, **PARAMS[variant])
    wanted = {
        "setup": lambda s: s._core.phase == SETUP,
        "deal": lambda s: s._core.phase == DEAL and len(s._core.dealt) > 3,
        "stock draw": lambda s: s._core.phase == DRAW,
        "turn start": turn_start(variant),
        "mid turn": mid_turn(variant),
        "late mid turn": lambda s: mid_turn(variant)(s) and len(s.history()) > 80,
    }
    found = {}

    def keep(state):
        for name, test in wanted.items():
            if name not in found and test(state):
                found[name] = state.clone()
        return False

    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        keep(state)
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    found["over"] = state
    return found


def refused_ids(state):
    """Every id the state must refuse: illegal decision ids or chance outcomes not
    offered, and ids out of range."""
    game = state.get_game()
    if state.is_chance_node():
        offered = {o for o, _ in state.chance_outcomes()}
        inside = [o for o in range(game.max_chance_outcomes()) if o not in offered]
        top = game.max_chance_outcomes()
    else:
        legal = set(state.legal_actions())
        inside = [a for a in range(game.num_distinct_actions()) if a not in legal]
        top = game.num_distinct_actions()
    return inside + [top, top + 1, 10**6, 2**31, 2**40, -2, -1000]


WRONG_TYPES = ["3", 1.5, np.float64(2.0), None, [1], np.array([1])]
# past int64 pyspiel's binding refused the call with a message printing the whole state
BEYOND_INT64 = [2**63, 2**70, -(2**63) - 1]
# what pybind11's int conversion would take (anything with __int__: 105.9 -> 105, True -> 1)
# and the states refuse themselves, before pyspiel converts them
TRUNCATED = [np.float32(2.9), True, np.True_, Fraction(1, 1), Decimal("1"), np.array(1.0)]
#: the ids each game's refusals list: its last decision id and last chance outcome
LAST_IDS = {"rummy": (578, 51), "gin_rummy": (107, 51), "crazy_rummy": (630, 51), "rummikub": (54, 52)}
SEE = "(see legal_actions and chance_outcomes)"


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("variant", sorted(NAMES))
def test_a_refused_action_changes_nothing(variant, seed):
    found = positions(variant, seed)
    assert {"setup", "deal", "stock draw", "turn start", "mid turn", "over"} <= set(found), sorted(found)
    for name, state in found.items():
        before, look = snapshot(state), quick_look(state)
        for action in refused_ids(state):
            # with pyspiel's own legality check the same error (it was a SpielError holding
            # the serialized state)
            for method in (state.apply_action, state.apply_action_with_legality_check):
                with pytest.raises(IllegalActionError):
                    method(action)
            assert quick_look(state) == look, (name, action)
        assert snapshot(state) == before, name
        for action in WRONG_TYPES:
            with pytest.raises((TypeError, pyspiel.SpielError)):
                state.apply_action(action)
        # -1, OpenSpiel's kInvalidAction, which pyspiel would stop with an internal check
        last_decision, last_outcome = LAST_IDS[variant]
        ids = f"is not an action id: decisions are 0..{last_decision}, chance outcomes 0..{last_outcome} {SEE}"
        for method in (state.apply_action, state.apply_action_with_legality_check, state.child):
            with pytest.raises(IllegalActionError, match=whole(f"action -1 {ids}")):
                method(-1)
            for big in BEYOND_INT64:
                with pytest.raises(IllegalActionError, match=whole(f"action {big} {ids}")):
                    method(big)
        for action in TRUNCATED:
            message = f"action {action!r} has type {type(action).__name__}: actions and chance outcomes are integer ids"
            for method in (state.apply_action, state.apply_action_with_legality_check, state.child):
                with pytest.raises(ActionTypeError, match=whole(f"{message} {SEE}")):
                    method(action)
        assert snapshot(state) == before, name
        if not state.is_terminal():  # the state still plays on
            state.apply_action(state.legal_actions()[0] if is_decision(state) else state.chance_outcomes()[0][0])
            assert state.history() == [*before[0], state.history()[-1]]


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_a_draw_while_the_player_must_discard_or_build_is_refused(variant):
    """R-RUMMY-06 / R-GIN-04 / R-CRAZY-06 / R-RK-06: one draw a turn, before anything else."""
    state = positions(variant, 3)["mid turn"]
    before = snapshot(state)
    draw = DRAWS[variant]
    legal = ", ".join(state.action_to_string(a) for a in state.legal_actions())
    message = (
        f"action {draw} ({state.action_to_string(draw)}) is not legal for player {state.current_player()} now;"
        f" legal: {legal}"
    )
    assert state.action_to_string(draw) == ("draw" if variant == "rummikub" else "draw stock")
    with pytest.raises(IllegalActionError, match=whole(message)):
        state.apply_action(DRAWS[variant])
    assert snapshot(state) == before and not state.is_chance_node()


def test_action_to_string_refuses_what_is_not_an_action_without_printing_the_state():
    game = load("gin_rummy")
    state = random_play(game.new_initial_state(), np.random.default_rng(4), until=is_decision)
    assert state.action_to_string(5) == state.action_to_string(0, 5) == "discard 6C"
    said = "action {} is not an action id: decisions are 0..107, chance outcomes 0..51 " + SEE
    types = "actions and chance outcomes are integer ids " + SEE
    for args, error, message in [
        ((2**63,), IllegalActionError, said.format(2**63)),
        ((0, -(2**64)), IllegalActionError, said.format(-(2**64))),
        ((1.5,), ActionTypeError, f"action 1.5 has type float: {types}"),
        ((True,), ActionTypeError, f"action True has type bool: {types}"),
        ((1.5, 5), TypeError, "player 1.5 has type float: players are integer seats"),
        # past pyspiel's int32 its binding refused the call with the whole state in the message
        ((2**31, 5), ValueError, f"player {2**31} is neither a seat 0..1 nor -1 (chance)"),
        ((2**40, 5), ValueError, f"player {2**40} is neither a seat 0..1 nor -1 (chance)"),
        ((-(2**64), 5), ValueError, f"player {-(2**64)} is neither a seat 0..1 nor -1 (chance)"),
        ((2, 5), ValueError, "player 2 is neither a seat 0..1 nor -1 (chance)"),
        ((), TypeError, "action_to_string takes (action) or (player, action), got 0 arguments"),
        ((0, 1, 2), TypeError, "action_to_string takes (action) or (player, action), got 3 arguments"),
    ]:
        with pytest.raises(error, match=whole(message)):
            state.action_to_string(*args)


def test_an_id_past_the_last_action_leaves_information_states_readable():
    game = load("gin_rummy")
    state = random_play(game.new_initial_state(), np.random.default_rng(4), until=is_decision)
    text = state.information_state_string(0)
    with pytest.raises(IllegalActionError, match=whole("action 108 is out of range: action ids are 0..107")):
        state.apply_action(game.num_distinct_actions())
    assert state.information_state_string(0) == state.information_state_string(0) == text


def building_states(seed, count):
    """Rummikub states (3 players) where the acting seat has added tiles to a play."""
    game = load("rummikub", num_players=3, max_turns=200)
    rng = np.random.default_rng(seed)
    state, out = game.new_initial_state(), []
    while not state.is_terminal() and len(out) < count:
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        if state.engine.last_tile >= 0:
            out.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    return out


def test_a_rummikub_world_resampled_for_a_waiting_seat_lets_the_builder_finish_its_play():
    """R-RK-08: the play being built is public (its ``add`` actions), and each add was
    legal, so the builder's rack can finish it in every world a waiting seat imagines."""
    sampler = pyspiel.UniformProbabilitySampler(6, 0.0, 1.0)
    checked = 0
    for state in building_states(seed=5, count=40):
        acting = state.current_player()
        for seat in range(3):
            if seat == acting:
                continue
            world = state.resample_from_infostate(seat, sampler)
            assert world.current_player() == acting and world.legal_actions()
            assert world.information_state_string(seat) == state.information_state_string(seat)
            np.testing.assert_array_equal(world.engine.chosen, state.engine.chosen)
            assert world.engine.last_tile == state.engine.last_tile
            assert np.all(world.engine.racks[acting] >= world.engine.chosen)
            assert world.history()[-1] == state.history()[-1]  # the last tile added
            checked += 1
    assert checked == 80


def test_rummikub_resample_of_the_engine_keeps_the_play_finishable():
    """The same at the engine (``state.resample``), many worlds of a few states."""
    for state in building_states(seed=8, count=6):
        engine, acting = state.engine, state.current_player()
        for seat in (s for s in range(3) if s != acting):
            for k in range(15):
                world = engine.resample(seat, np.random.default_rng(k))
                assert world.legal_actions(), (str(engine), seat, k)
                np.testing.assert_array_equal(world.chosen, engine.chosen)
                np.testing.assert_array_equal(world.racks[seat], engine.racks[seat])


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_a_world_for_a_generator_that_is_not_one_is_refused_before_any_card_moves(variant):
    # while the deal was still being drawn, a RandomState (or an int) reached rng.permutation
    state = load(variant).new_initial_state()
    core = state._core
    for bad in (np.random.RandomState(0), 3):
        with pytest.raises(TypeError, match=f"^rng must be a numpy.random.Generator, got {type(bad).__name__}$"):
            core.resampled(0, bad)
    world, changes = core.resampled(0, np.random.default_rng(0))
    assert changes == {} and world is not core


def test_without_openspiel_the_import_names_the_extra():
    code = "import sys; sys.modules['pyspiel'] = None; import rummy_env.openspiel"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    said = "ModuleNotFoundError: rummy_env.openspiel needs OpenSpiel (import of pyspiel halted; None in sys.modules)"
    assert said in done.stderr and 'pip install -e ".[reference]"' in done.stderr

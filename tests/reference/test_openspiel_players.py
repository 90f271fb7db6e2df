"""The OpenSpiel states' and observers' player ids (``rummy_env.openspiel.players``):
which ids each method takes, how a bad one is refused (its value, the players allowed,
an error of the project's type and OpenSpiel's), and ``legal_actions(p)`` /
``legal_actions_mask(p)`` of any id, compared with OpenSpiel's C++ ``gin_rummy``."""

import re

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from rummy_env.openspiel.players import PlayerIdError, PlayerTypeError
from tests.helpers import whole
from tests.reference.openspiel_play import load, random_play
from tests.reference.test_openspiel_refusals import PARAMS, is_decision, positions, snapshot

PER_PLAYER = (
    "observation_string",
    "observation_tensor",
    "information_state_string",
    "information_state_tensor",
    "player_return",
    "player_reward",
)


@pytest.mark.parametrize("variant", ["gin_rummy", "rummikub"])
def test_a_bad_player_is_refused_with_its_value_and_the_players_allowed(variant, capfd):
    # out-of-range ids reached a C++ check ("python_games.cc:321 player < NumPlayers()",
    # printed to stderr too), a float or an int past int32 pybind11's TypeError printing the
    # whole state (hidden cards included), and True was player 1
    found = positions(variant, 1)
    observer = load(variant, **PARAMS[variant]).make_py_observer()
    for name in ("setup", "turn start", "over"):
        state = found[name]
        before, tensor = snapshot(state), observer.tensor.copy()
        for bad in (-1, 2, -4, 2**31, 2**70):
            said = f"^player {bad} is not a seat: players are 0..1$"
            for method in PER_PLAYER:
                with pytest.raises(PlayerIdError, match=said):
                    getattr(state, method)(bad)
            for read in (observer.set_from, observer.string_from):
                with pytest.raises(PlayerIdError, match=said):
                    read(state, bad)
        for bad in (2**31, -(2**31) - 1, 2**70):  # pyspiel's binding: a TypeError printing the state
            for method in ("legal_actions", "legal_actions_mask"):
                with pytest.raises(
                    PlayerTypeError,
                    match=f"^player {bad} does not fit OpenSpiel's player ids, int32: -2147483648..2147483647$",
                ):
                    getattr(state, method)(bad)
        # a bool (and a 0-d array of a dtype other than integer) is refused where pyspiel
        # takes True, np.True_ and np.array(1.5) as player 1
        for bad in (1.5, "0", True, np.True_, None, np.float64(0.0), np.array(1.5), np.array(True), np.array([0])):
            said = f"^player {re.escape(repr(bad))} has type {type(bad).__name__}: players are integer seats$"
            for method in (*PER_PLAYER, "legal_actions", "legal_actions_mask"):
                with pytest.raises(PlayerTypeError, match=said):
                    getattr(state, method)(bad)
            with pytest.raises(PlayerTypeError, match=said):
                observer.set_from(state, bad)
        with pytest.raises(TypeError, match="^observation_string takes \\(player\\) or no argument, got 2 arguments$"):
            state.observation_string(0, 1)
        for method in ("legal_actions", "legal_actions_mask"):
            with pytest.raises(TypeError, match=f"^{method} takes \\(player\\) or no argument, got 2 arguments$"):
                getattr(state, method)(0, 1)
        assert snapshot(state) == before and np.array_equal(observer.tensor, tensor), name
    assert "OpenSpiel exception" not in capfd.readouterr().err


def test_a_refused_player_is_a_value_error_and_the_type_openspiel_raises():
    state = load("gin_rummy").new_initial_state()
    with pytest.raises(pyspiel.SpielError):  # what OpenSpiel's C++ gin_rummy raises for player 5
        state.observation_string(5)
    with pytest.raises(ValueError):
        state.observation_string(5)
    for error in (TypeError, ValueError):
        with pytest.raises(error):
            state.observation_string(0.5)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    with pytest.raises(PlayerTypeError, match="^player 1.0 has type float: players are integer seats$"):
        state.resample_from_infostate(1.0, sampler)


def test_without_a_player_the_observations_are_the_acting_players():
    state = load("gin_rummy").new_initial_state()
    for method in ("observation_string", "information_state_string", "observation_tensor"):
        said = (
            f"^{method}\\(\\) without a player is the acting player's, and at a chance node no seat acts "
            "\\(current_player\\(\\) is -1\\): give a player 0..1$"
        )
        with pytest.raises(PlayerIdError, match=said):
            getattr(state, method)()
    state = random_play(state, np.random.default_rng(4), until=is_decision)
    seat = state.current_player()
    assert state.observation_string() == state.observation_string(np.int64(seat))
    assert state.information_state_tensor() == state.information_state_tensor(seat)
    state = random_play(state, np.random.default_rng(4))
    message = (
        "observation_tensor() without a player is the acting player's, and at a terminal state no seat acts"
        " (current_player() is -4): give a player 0..1"
    )
    with pytest.raises(PlayerIdError, match=whole(message)):
        state.observation_tensor()


def test_a_player_who_is_not_acting_has_no_legal_actions_as_in_openspiels_gin_rummy():
    # a seat at a chance node was given the chance outcomes, -1 at a decision stopped with
    # "Called LegalActions for pseudo-player -1"; OpenSpiel's C++ games give both none
    reference = pyspiel.load_game("gin_rummy").new_initial_state()
    state = load("gin_rummy").new_initial_state()
    assert reference.legal_actions(0) == [] and reference.legal_actions(-1) == list(range(52))  # the deal
    assert reference.legal_actions_mask(0) == [0] * 241
    assert state.legal_actions(0) == state.legal_actions(1) == [] and state.legal_actions(-1) == [0, 1]  # the dealer
    assert state.legal_actions_mask(-1) == state.legal_actions_mask() == [1, 1, *[0] * 50]
    assert state.legal_actions_mask(0) == [0] * 108
    state = random_play(state, np.random.default_rng(4), until=is_decision)
    seat = state.current_player()
    assert state.legal_actions(-1) == state.legal_actions(1 - seat) == [] and state.legal_actions(seat) == [105, 106]
    assert state.legal_actions_mask(-1) == [0] * 52 and state.legal_actions_mask(1 - seat) == [0] * 108
    assert [a for a, on in enumerate(state.legal_actions_mask(seat)) if on] == [105, 106]


def test_only_the_players_own_observation_types_are_provided():
    game = load("gin_rummy")
    own = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    assert game.make_py_observer(own).perfect_recall is True
    public = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError) as err:
        game.make_py_observer(public)
    assert str(err.value) == (
        "observation type (public_info=True, perfect_recall=False, private_info=PrivateInfoType.NONE) is not "
        "provided: only the player's own observation (public and single-player private information), with or "
        "without perfect recall"
    )


def test_a_0d_integer_array_is_a_player_as_in_pyspiel():
    game = load("gin_rummy")
    state = random_play(game.new_initial_state(), np.random.default_rng(4), until=is_decision)
    seat = state.current_player()
    for method in ("observation_string", "information_state_tensor", "player_return", "legal_actions"):
        assert getattr(state, method)(np.array(seat)) == getattr(state, method)(seat), method
    assert state.legal_actions_mask(np.array(seat, dtype=np.uint8)) == state.legal_actions_mask(seat)
    assert state.legal_actions(np.array(1 - seat)) == [] and state.legal_actions(np.array(-1)) == []
    observer = game.make_py_observer()
    assert observer.string_from(state, np.array(0)) == observer.string_from(state, 0)


IDS = (-(2**31), -5, -4, -3, -2, -1, 0, 1, 2, 7, 2**31 - 1)


def legal_by_id(state):
    """For each id of ``IDS``: whether it has legal actions, and its mask's length as
    "actions" (``num_distinct_actions()``) or "chance" (``max_chance_outcomes()``)."""
    game = state.get_game()
    size = {game.num_distinct_actions(): "actions", game.max_chance_outcomes(): "chance"}
    table = {}
    for player in IDS:
        legal, mask = state.legal_actions(player), state.legal_actions_mask(player)
        assert [a for a, on in enumerate(mask) if on] == legal, player
        table[player] = (len(legal) > 0, size[len(mask)])
    return table


def test_legal_actions_of_any_int32_id_are_those_of_openspiels_gin_rummy():
    # legal_actions(p) refused ids that are no player's (-2, 7), even current_player() at a
    # terminal state (-4); OpenSpiel's State::LegalActions(Player) gives them none
    reference = pyspiel.load_game("gin_rummy").new_initial_state()
    state = load("gin_rummy").new_initial_state()
    others = {p: (False, "chance" if p == -1 else "actions") for p in IDS}
    for node in ("chance", "decision", "terminal"):
        if node == "decision":
            reference = random_play(reference, np.random.default_rng(0), until=is_decision)
            state = random_play(state, np.random.default_rng(0), until=is_decision)
        if node == "terminal":
            reference = random_play(reference, np.random.default_rng(0))
            state = random_play(state, np.random.default_rng(0))
        acting = {"chance": -1, "decision": 0, "terminal": -4}[node]
        assert reference.current_player() == state.current_player() == acting
        want = {**others, acting: (node != "terminal", "chance" if acting == -1 else "actions")}
        assert legal_by_id(reference) == legal_by_id(state) == want, node
        for player in (2**31, -(2**31) - 1):
            for method in ("legal_actions", "legal_actions_mask"):
                with pytest.raises(TypeError):
                    getattr(reference, method)(player)
                with pytest.raises(TypeError):
                    getattr(state, method)(player)
    assert state.legal_actions(-4) == [] and state.legal_actions_mask(-4) == [0] * 108


def test_action_to_string_reads_an_id_by_the_player_given_as_openspiels_gin_rummy():
    # the player, not the state, says how an id reads: a seat (acting or not) a decision, -1 a
    # card, at a chance node, a decision and a terminal state alike; the texts are each game's
    # own (OpenSpiel's "Player: p Action: ..." over its ids, ours the env's).  Without a player a
    # terminal state read the id as player -4's, which was refused
    from rummy_env.games.gin_rummy import DRAW_UPCARD

    reference = pyspiel.load_game("gin_rummy").new_initial_state()
    state = load("gin_rummy").new_initial_state()
    assert state.action_to_string(-1, 1) == "dealer 1"  # a setup node (OpenSpiel's gin_rummy has none)
    state.apply_action(1)
    for node in ("chance", "decision", "terminal"):
        if node != "chance":
            until = is_decision if node == "decision" else None
            reference = random_play(reference, np.random.default_rng(0), until=until)
            state = random_play(state, np.random.default_rng(0), until=until)
        texts = [reference.action_to_string(p, a) for p, a in ((0, 52), (1, 52), (-1, 5))]
        assert texts == ["Player: 0 Action: Draw upcard", "Player: 1 Action: Draw upcard", "Chance outcome: 6s"]
        texts = [state.action_to_string(p, a) for p, a in ((0, DRAW_UPCARD), (1, DRAW_UPCARD), (-1, 5))]
        assert texts == ["draw upcard", "draw upcard", "6C"], node
        if node != "terminal":  # -4 is current_player() at a terminal state only
            with pytest.raises(PlayerIdError, match=r"^player -4 is neither a seat 0..1 nor -1 \(chance\)$"):
                state.action_to_string(-4, DRAW_UPCARD)
    assert reference.action_to_string(52) == reference.action_to_string(-4, 52) == "Player: -4 Action: Draw upcard"
    assert state.action_to_string(DRAW_UPCARD) == state.action_to_string(-4, DRAW_UPCARD) == "draw upcard"
    assert state.action_to_string(np.int64(-4), 0) == "discard AC"
    with pytest.raises(PlayerIdError, match=r"^player -2 is neither a seat 0..1 nor -1 \(chance\)$"):
        state.action_to_string(-2, DRAW_UPCARD)  # no player's id: refused, where OpenSpiel's formats it

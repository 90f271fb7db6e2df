"""The four variants as OpenSpiel games (``rummy_env.openspiel``): registration, game
type and info, the chance nodes of the deal and the draws, OpenSpiel's own random
simulation test, OpenSpiel's MCTS and IS-MCTS bots and ``rl_environment``."""

import base64
import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts

from rummy_env.core.cards import card_str
from rummy_env.games.errors import IllegalActionError
from rummy_env.games.gin_rummy import DRAW_STOCK, PASS
from tests.helpers import whole
from tests.reference.openspiel_play import NAMES, load, play_bot, random_play, sample_chance

#: what each game's first chance node picks
SETUP_CHANCE = {"rummy": "dealer", "gin_rummy": "dealer", "crazy_rummy": "dealer", "rummikub": "first player"}

GT = pyspiel.GameType


def test_importing_registers_the_four_games():
    registered = set(pyspiel.registered_names())
    assert set(NAMES.values()) <= registered
    game = pyspiel.load_game("python_rummy_env_rummy", {"num_players": 4})
    assert game.num_players() == 4 and game.get_parameters()["num_players"] == 4
    assert str(game).startswith("python_rummy_env_rummy(") and "num_players=4" in str(game)
    assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_game_type(variant):
    t = load(variant).get_type()
    assert t.short_name == NAMES[variant]
    assert t.dynamics == GT.Dynamics.SEQUENTIAL
    assert t.chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == GT.Information.IMPERFECT_INFORMATION
    assert t.utility == GT.Utility.ZERO_SUM
    assert t.reward_model == GT.RewardModel.TERMINAL
    assert t.provides_information_state_string and t.provides_information_state_tensor
    assert t.provides_observation_string and t.provides_observation_tensor
    scored_game = load(variant, episode="game", reward="score").get_type()
    assert scored_game.reward_model == GT.RewardModel.REWARDS and scored_game.utility == GT.Utility.ZERO_SUM


@pytest.mark.parametrize(
    "variant, params, actions, outcomes, players, low, high, length, obs",
    [
        ("rummy", {}, 579, 52, 2, -1.0, 1.0, 1000 * 13, 324),
        ("rummy", {"num_players": 4}, 579, 52, 4, -1 / 3, 1.0, 1000 * 10, 436),
        ("rummy", {"reward": "score", "max_turns": 50}, 579, 52, 2, -680.0, 680.0, 50 * 13, 324),
        ("rummy", {"episode": "game", "reward": "score", "target_score": 10}, 579, 52, 2, -19 * 680.0, 689.0,
         1000 * 13000, 324),
        ("gin_rummy", {}, 108, 52, 2, -1.0, 1.0, 2002, 485),
        ("gin_rummy", {"reward": "score"}, 108, 52, 2, -131.0, 131.0, 2002, 485),
        ("gin_rummy", {"episode": "game"}, 108, 52, 2, -1.0, 1.0, 1000 * 2002, 485),
        ("crazy_rummy", {}, 631, 52, 3, -1.0, 1.0, 1000 * 24, 654),
        ("crazy_rummy", {"episode": "game", "max_hands": 2}, 631, 52, 3, -1.0, 1.0, 2 * 1000 * 24, 654),
        ("crazy_rummy", {"num_players": 6, "episode": "game", "reward": "score"}, 631, 52, 6, -13 * 440.0,
         13 * 440.0, 13 * 24000, 52 * 15 + 42),
        ("rummikub", {}, 55, 53, 2, -1.0, 1.0, 1106, 223),
        ("rummikub", {"num_players": 3, "reward": "score"}, 55, 53, 3, -788.0, 788.0, 1106, 227),
    ],
)  # fmt: skip
def test_game_info(variant, params, actions, outcomes, players, low, high, length, obs):
    game = load(variant, **params)
    assert game.num_distinct_actions() == actions
    assert game.max_chance_outcomes() == outcomes
    assert game.num_players() == players
    assert game.min_utility() == pytest.approx(low) and game.max_utility() == pytest.approx(high)
    assert game.utility_sum() == 0.0
    assert game.max_game_length() == length
    assert game.observation_tensor_shape() == [obs] and game.information_state_tensor_shape() == [obs]


@pytest.mark.parametrize(
    "variant, params, message",
    [
        ("rummy", {"num_players": 7}, "option num_players=7 is out of range: num_players must be an int from 2 to 6"),
        ("gin_rummy", {"num_players": 3}, "parameter num_players=3 is not allowed: Gin Rummy has exactly 2 players"),
        (
            "crazy_rummy",
            {"wild_rank": 14},
            "option wild_rank=14 is out of range: wild_rank must be an int from 1 to 13 (or 0: drawn by chance,"
            " the default of the OpenSpiel game)",
        ),
        (
            "crazy_rummy",
            {"wild_rank": -1},
            "option wild_rank=-1 is out of range: wild_rank must be an int from 1 to 13 (or 0: drawn by chance,"
            " the default of the OpenSpiel game)",
        ),
        (
            "crazy_rummy",
            {"wild_rank": 5, "episode": "game"},
            "option wild_rank=5 does not go with episode='game': a game plays the wild ranks 1..13 in order"
            " (R-CRAZY-02); a wild rank is given only with episode='hand' (one round)",
        ),
        (
            "rummikub",
            {"reward": "points"},
            "option reward='points' is not allowed: reward must be one of 'win', 'score'",
        ),
    ],
)
def test_bad_parameters_are_refused(variant, params, message):
    with pytest.raises(ValueError, match=whole(message)):
        load(variant, **params)
    with pytest.raises(pyspiel.SpielError, match="^Unknown parameter 'knock'"):  # OpenSpiel's words: a fragment
        load(variant, knock=1)
    # the classes constructed directly (pyspiel.load_game checks names and types first)
    cls = type(load(variant))
    for bad, shown in [({"num_players": [2]}, "'num_players'=[2]"), ({1: 2}, "1=2")]:
        message = f"parameter {shown}: OpenSpiel game parameters are str names with bool, int, float or str values"
        with pytest.raises(ValueError, match=whole(message)):
            cls(bad)


@pytest.mark.parametrize(
    "name, good, bad, message",
    [
        ("ace_high", True, 1, "option ace_high=1 is not a bool: ace_high must be True or False"),
        (
            "max_turns",
            1,
            True,
            "option max_turns=True is not an integer: max_turns must be an int from 1 to 1000000000",
        ),
        ("num_players", 3, 3.0, "option num_players=3.0 is not an integer: num_players must be an int from 2 to 6"),
    ],
)
def test_a_wrongly_typed_parameter_is_refused_after_a_valid_equal_one(name, good, bad, message):
    # True == 1 == 1.0: the games' shared data must not be found by an equal value of another type
    cls = type(load("rummy"))
    kept = cls({name: good}).get_parameters()[name]
    assert kept == good and type(kept) is type(good)
    with pytest.raises(ValueError, match=whole(message)):
        cls({name: bad})


def test_the_deal_is_a_sequence_of_chance_outcomes():
    game = load("gin_rummy")
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "dealer 1"
    state.apply_action(1)
    for i in range(21):  # ten cards each from the non-dealer on, then the upcard (R-GIN-02)
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 52 - i and all(p == pytest.approx(1 / (52 - i)) for _, p in outcomes)
        assert [o for o, _ in outcomes] == [c for c in range(52) if c >= i]  # cards 0..i-1 are dealt
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, i) == card_str(i)
        state.apply_action(i)
    engine = state.engine
    assert not state.is_chance_node() and state.current_player() == 0  # the non-dealer is offered the upcard
    assert engine.hands[0] == sum(1 << c for c in range(0, 20, 2)) and engine.discard == [20]
    assert engine.initial_deck[:21] == list(range(21)) and engine.initial_dealer == 1
    assert sorted(engine.stock) == list(range(21, 52))


def test_a_stock_draw_is_a_decision_then_a_chance_node_over_the_unseen_cards():
    game = load("gin_rummy")
    state = game.new_initial_state()
    for outcome in [1, *range(21)]:
        state.apply_action(outcome)
    state.apply_action(PASS)
    assert state.current_player() == 1
    state.apply_action(PASS)  # both passed: the non-dealer draws from the stock (R-GIN-03)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(c, pytest.approx(1 / 31)) for c in range(21, 52)]
    state.apply_action(40)
    assert state.current_player() == 0 and state.engine.hands[0] >> 40 & 1
    assert state.engine.initial_deck[21] == 40  # the deck record holds the drawn card next after the upcard
    assert "draw " + card_str(40) in state.information_state_string(0)
    assert card_str(40) not in state.information_state_string(1)
    assert state.history() == [1, *range(21), PASS, PASS, 40]
    state.apply_action(40)  # discard it
    state.apply_action(DRAW_STOCK)
    assert [o for o, _ in state.chance_outcomes()] == [c for c in range(21, 52) if c != 40]


def _refused(state, outcome, message):
    """``outcome`` raises ``IllegalActionError`` with exactly ``message`` and leaves the state as it was."""
    before = (str(state), state.history(), state.chance_outcomes(), state.information_state_string(0))
    with pytest.raises(IllegalActionError, match=whole(message)):
        state.apply_action(outcome)
    assert (str(state), state.history(), state.chance_outcomes(), state.information_state_string(0)) == before


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_a_chance_outcome_not_offered_is_refused_and_changes_nothing(variant):
    state = load(variant).new_initial_state()
    seats = state.get_game().num_players()
    setup = SETUP_CHANCE[variant]
    _refused(state, 999, f"chance outcome 999 is not offered at this chance node: {setup} outcomes are 0..{seats - 1}")
    while state.chance_outcomes()[-1][0] < seats:  # the setup steps (dealer, wild rank)
        state.apply_action(0)
    state.apply_action(0)  # the first card or tile dealt
    outcomes = [o for o, _ in state.chance_outcomes()]
    gone = next(o for o in range(max(outcomes) + 2) if o not in outcomes)
    # the first 12 offered outcomes are named, the rest counted
    named = " ".join(f"{o} ({state.action_to_string(-1, o)})" for o in outcomes[:12])
    offered = f"{len(outcomes)} outcomes are offered: {named} and {len(outcomes) - 12} more"
    _refused(state, gone, f"chance outcome {gone} is not offered at this chance node: {offered}")
    _refused(state, 5000, f"chance outcome 5000 is not offered at this chance node: {offered}")
    state.apply_action(outcomes[0])  # the deal goes on
    assert state.history()[-2:] == [0, outcomes[0]]


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_decision_nodes_list_no_chance_outcomes_and_texts_refuse_unknown_ids(variant):
    # at a decision the stock is hidden: listing it would show the other hands by elimination
    state = load(variant).new_initial_state()
    seats = state.get_game().num_players()
    with pytest.raises(
        ValueError, match=whole(f"{SETUP_CHANCE[variant]} outcome 999 is not one of this chance node's 0..{seats - 1}")
    ):
        state.action_to_string(-1, 999)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    n = state.get_game().num_distinct_actions()
    for bad in (n, -2):
        with pytest.raises(ValueError, match=rf"^action {bad} is not an action id: ids are 0\.\.{n - 1}$"):
            state.action_to_string(state.current_player(), bad)
    only = "only chance nodes (current_player() == -1) have outcomes"
    with pytest.raises(ValueError, match=whole(f"chance_outcomes() at a decision node: {only}")):
        state.chance_outcomes()
    over = random_play(load(variant).new_initial_state(), np.random.default_rng(1))
    with pytest.raises(ValueError, match=whole(f"chance_outcomes() at a terminal state: {only}")):
        over.chance_outcomes()


def test_a_length_bound_beyond_int32_is_capped_as_openspiel_stores_it():
    # OpenSpiel adds decisions and chance nodes in an int32: each is capped at 2**30 - 1
    huge = load("rummy", max_turns=200_000_000)
    assert huge.max_game_length() == huge.max_chance_nodes_in_history() == 2**30 - 1
    assert huge.max_history_length() == huge.max_move_number() == 2**31 - 2
    assert load("rummy", max_turns=100).max_game_length() == 100 * (10 + 3)


@pytest.mark.parametrize(
    "variant, options, decisions, chance",
    [
        # a hand's deal outnumbers its decisions with a small max_turns: dealer + 21 cards, 4 decisions
        ("gin_rummy", {"max_turns": 1}, 2 + 2, 1 + 21 + 4),
        ("rummy", {"num_players": 6, "max_turns": 1}, 6 + 3, 1 + 6 * 6 + 1 + 9),  # six cards each with six players
        ("crazy_rummy", {"num_players": 6, "max_turns": 1}, 2 + 2 * 9 + 4, 2 + 6 * 7 + 1 + 24),
        ("rummikub", {"num_players": 4, "max_turns": 1}, 107, 1 + 4 * 14 + 107),
        ("gin_rummy", {"max_turns": 1, "episode": "game", "max_hands": 3}, 3 * 4, 3 * (1 + 21) + 3 * 4),
    ],
)
def test_every_history_stays_within_max_history_length(variant, options, decisions, chance):
    game = load(variant, **options)
    assert (game.max_game_length(), game.max_chance_nodes_in_history()) == (decisions, chance)
    assert game.max_history_length() == game.max_move_number() == decisions + chance
    longest = max(
        len(random_play(game.new_initial_state(), np.random.default_rng(seed)).history()) for seed in range(20)
    )
    assert longest <= game.max_history_length()


@pytest.mark.parametrize(
    "variant, bound, played",
    [("rummy", 40 * 13, 81), ("gin_rummy", 40 * (2 + 2), 102), ("rummikub", 40 * (1 + 106), 110)],
)
def test_a_game_of_hands_without_a_winner_stays_within_max_game_length(variant, bound, played):
    # every hand reaches max_turns=1 with no winner and the game goes on (R-RUMMY-13; Gin counts
    # it a dead hand, R-GIN-09; R-RK-13) until max_hands: the bound counts those hands too
    game = load(variant, episode="game", max_turns=1, max_hands=40)
    decisions = []
    state = random_play(
        game.new_initial_state(), np.random.default_rng(0), on_decision=lambda s, a: decisions.append(a)
    )
    assert state.is_terminal() and game.max_game_length() == bound and len(decisions) == played <= bound


def test_a_stock_draw_refuses_a_card_that_is_not_in_the_stock():
    game = load("gin_rummy")
    state = game.new_initial_state()
    for outcome in [1, *range(21), PASS, PASS]:
        state.apply_action(outcome)
    assert state.is_chance_node()
    offered = " ".join(f"{c} ({card_str(c)})" for c in range(21, 33))
    _refused(
        state, 0, f"chance outcome 0 is not offered at this chance node: 31 outcomes are offered: {offered} and 19 more"
    )
    state.apply_action(40)
    assert state.history() == [1, *range(21), PASS, PASS, 40]
    assert state.information_state_string(1).count("draw") == 0 and "draw AC" not in state.information_state_string(0)


def test_an_action_after_the_end_is_refused():
    state = random_play(load("gin_rummy").new_initial_state(), np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match=whole("action 0: the game is over")):
        state.apply_action(0)


def test_rummikub_outcomes_are_tile_types_as_likely_as_their_counts():
    state = load("rummikub").new_initial_state()
    state.apply_action(0)  # first player
    for t in [0, 0, 52]:  # two R1 and a joker to the racks
        state.apply_action(t)
    outcomes = dict(state.chance_outcomes())
    assert 0 not in outcomes and outcomes[52] == pytest.approx(1 / 103) and outcomes[1] == pytest.approx(2 / 103)
    assert sum(outcomes.values()) == pytest.approx(1.0)


def test_crazy_rummy_draws_its_wild_rank_by_chance_unless_fixed():
    state = load("crazy_rummy").new_initial_state()
    state.apply_action(2)  # dealer
    assert state.chance_outcomes() == [(r, pytest.approx(1 / 13)) for r in range(13)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 6) == "wild rank 7"
    state.apply_action(6)
    for card in range(22):
        state.apply_action(card)
    assert state.engine.round == 7 and state.engine.dealer == 2 and state.current_player() == 0
    fixed = load("crazy_rummy", wild_rank=3).new_initial_state()
    fixed.apply_action(0)
    assert len(fixed.chance_outcomes()) == 52  # the deal begins at once


def test_later_hands_of_a_game_are_dealt_by_chance_nodes():
    game = load("gin_rummy", episode="game", reward="score", target_score=30)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    random_play(state, rng, until=lambda s: s.engine is not None and s.engine.hands_played == 1)
    assert state.is_chance_node() and len(state.chance_outcomes()) == 52  # the next hand's first card
    dealer = state.engine.dealer
    for card in range(21):
        state.apply_action(card)
    engine = state.engine
    assert engine.hand_decks[-1][:21] == list(range(21)) and engine.dealer == dealer
    assert engine.hands[1 - dealer] == sum(1 << c for c in range(0, 20, 2))
    assert "hand 2" in state.information_state_string(0)


# ------------------------------------------------------------ OpenSpiel's tests
SIM_CONFIGS = [
    ("rummy", {}),
    *[("rummy", {"num_players": n, "max_turns": 60}) for n in (3, 4, 5, 6)],
    ("rummy", {"episode": "game", "reward": "score", "target_score": 15, "reshuffle": "whole_pile"}),
    ("gin_rummy", {}),
    ("gin_rummy", {"episode": "game", "reward": "score", "target_score": 20, "knock_limit": 40, "game_bonuses": True}),
    ("gin_rummy", {"oklahoma": True, "big_gin": False}),
    ("crazy_rummy", {}),
    *[("crazy_rummy", {"num_players": n, "max_turns": 40}) for n in (4, 5, 6)],
    ("crazy_rummy", {"num_players": 6, "episode": "game", "reward": "score", "max_turns": 20}),
    ("rummikub", {"max_turns": 200}),
    *[("rummikub", {"num_players": n, "max_turns": 60}) for n in (3, 4)],
    # random play seldom scores a Rummikub hand of 40 turns (a game took hundreds of hands); of 110
    # turns, most run the pool out and score (R-RK-11), and max_hands bounds the game
    ("rummikub", {"episode": "game", "reward": "score", "target_score": 40, "max_turns": 110, "max_hands": 6}),
]


@pytest.mark.parametrize("variant, params", SIM_CONFIGS)
def test_openspiel_random_sim_test(variant, params):
    pyspiel.random_sim_test(load(variant, **params), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_serialize_and_clone_continue_the_same_game(variant):
    game = load(variant, max_turns=40)
    state = random_play(game.new_initial_state(), np.random.default_rng(2), until=lambda s: len(s.history()) > 80)
    copies = [game.deserialize_state(state.serialize()), state.clone()]
    for other in copies:
        assert str(other) == str(state) and other.history() == state.history()
    ends = [random_play(s, np.random.default_rng(9)) for s in [state, *copies]]
    assert len({(str(s), tuple(s.history()), tuple(s.returns())) for s in ends}) == 1
    # another game (variant, or the same variant with other options) refuses the text
    others = [load(v, max_turns=40) for v in sorted(NAMES) if v != variant] + [load(variant, max_turns=41)]
    for other in others:
        with pytest.raises(ValueError, match=rf"^the state was serialized by {NAMES[variant]} with parameters"):
            other.deserialize_state(state.serialize())
    assert str(game.deserialize_state(state.serialize())) == str(state)


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_games_and_states_pickle_for_worker_processes(variant):
    game = load(variant, max_turns=40)
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is type(game) and str(again) == str(game)
    state = random_play(game.new_initial_state(), np.random.default_rng(2), until=lambda s: len(s.history()) > 80)
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state) and copy.history() == state.history() and str(copy.get_game()) == str(game)
    ends = [random_play(s, np.random.default_rng(9)) for s in (state, copy)]
    assert ends[0].history() == ends[1].history() and ends[0].returns() == ends[1].returns()


def test_a_game_unpickles_in_a_process_that_never_imported_the_adapter():
    blob = pickle.dumps(load("gin_rummy", knock_limit=5))
    code = "import pickle, sys; g = pickle.loads(sys.stdin.buffer.read()); print(g.get_parameters()['knock_limit'], g)"
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=True).stdout.decode()
    assert out == (
        "5 python_rummy_env_gin_rummy(big_gin=True,big_gin_bonus=31,episode=hand,game_bonuses=False,gin_bonus=25,"
        "knock_limit=5,max_hands=1000,max_turns=1000,num_players=2,oklahoma=False,reward=win,target_score=100,"
        "undercut_bonus=25)\n"
    )


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_a_damaged_or_edited_serialized_state_is_refused(variant):
    game = load(variant, max_turns=40)
    state = random_play(game.new_initial_state(), np.random.default_rng(2), until=lambda s: len(s.history()) > 80)
    text = state.serialize()
    head, _, _ = text.partition("__dict__=")
    moves = len(state.history())

    def contents_bytes(data):
        return head + "__dict__=" + base64.b64encode(data).decode()

    def contents(obj):
        return contents_bytes(pickle.dumps(obj))

    entries = [item.split(":") for item in head.split("\n")[0][len("history=") :].split(",")]
    decision = next(i for i, (p, _) in enumerate(entries) if p != "-1")
    player, action = entries[decision]

    def edited(i, new):  # history entry i replaced, the same number of entries
        items = [":".join(e) for e in entries]
        items[i] = new
        return text.replace(head.split("\n")[0], "history=" + ",".join(items), 1)

    p3, a3 = entries[3]
    without_actions = copy.deepcopy(state._core)  # as a rummy_env before Core.actions pickled it
    del without_actions.actions
    missing = "the text was edited or its contents are missing"
    cases = [
        # an entry edited (a card dealt twice, another seat's decision): the history no longer
        # replays the contents, though as long
        (
            edited(3, f"{p3}:{int(a3) + 1}"),
            f"^history entry 3 is {p3}:{int(a3) + 1} \\(player:action\\) but "
            f"the serialized contents applied {p3}:{a3} there: the text was edited$",
        ),
        (
            edited(decision, f"{1 - int(player)}:{action}"),
            f"^history entry {decision} is {1 - int(player)}:{action} \\(player:action\\) but "
            f"the serialized contents applied {player}:{action} there: the text was edited$",
        ),
        (
            text.replace(f"move_number={moves}", f"move_number={moves + 5}", 1),
            f"^move_number={moves + 5} but the serialized contents have {moves} moves applied: the text was edited$",
        ),
        (
            text.replace("history=", "history=0:999,", 1),
            f"^the serialized contents have {moves} moves applied but the history lists {moves + 1}: {missing}$",
        ),
        (  # the initial state's contents
            contents({}),
            f"^the serialized contents have 0 moves applied but the history lists {moves}: {missing}$",
        ),
        (contents({"_core": 5}), "^the serialized contents hold int as _core, not a state's Core$"),
        (
            contents({"_core": without_actions}),
            "^the serialized contents hold no action list: a rummy_env before 2026-12-07 serialized them; "
            r"load it with that version and apply its history\(\) to this version's new_initial_state\(\)$",
        ),
        # past the name: what pickle or OpenSpiel said (their words, a fragment)
        (text[: len(text) // 2], rf"^the text is not a serialized state of {NAMES[variant]}: "),
        (contents_bytes(b"\x80\x09N."), rf"^the text is not a serialized state of {NAMES[variant]}: ValueError: "),
        ("hello", rf"^the text is not a serialized state of {NAMES[variant]}: "),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            game.deserialize_state(bad)
    with pytest.raises(TypeError, match=whole("serialized must be the str of state.serialize(), got NoneType")):
        game.deserialize_state(None)
    assert game.deserialize_state(text).history() == state.history()


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_ismcts_and_mcts_bots_play_whole_games_against_random(variant):
    game = load(variant, max_turns=12)
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=rng),
        mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=rng),
    ]
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)  # the bot's own sampler is not seeded
    bots[0].set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    played = []
    for k, bot in enumerate(bots):
        state, decisions = play_bot(game, bot, seed=k, bot_seat=k % game.num_players())
        assert state.is_terminal()
        played.append((decisions, state.returns()))
    # 12 turns end every game (no one goes out): returns 0; the bots' decisions of the seeded games
    assert played == [(n, [0.0] * game.num_players()) for n in BOT_DECISIONS[variant]]


#: decisions of the ISMCTS and MCTS bots in the seeded games above
BOT_DECISIONS = {"crazy_rummy": (8, 8), "gin_rummy": (13, 12), "rummikub": (15, 12), "rummy": (13, 12)}


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_rl_environment_episodes_with_random_agents(variant):
    game = load(variant, max_turns=30, reward="score")
    env = rl_environment.Environment(game, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(2):
        step = env.reset()
        totals = np.zeros(game.num_players())
        while not step.last():
            player = step.observations["current_player"]
            assert len(step.observations["info_state"][player]) == game.information_state_tensor_size()
            legal = step.observations["legal_actions"][player]
            step = env.step([int(rng.choice(legal))])
            totals += step.rewards
        assert totals.tolist() == pytest.approx(env.get_state.returns())
        assert sum(totals) == pytest.approx(0.0)


def test_chance_sampling_is_the_same_game_for_the_same_seed():
    game = load("rummy", num_players=3, max_turns=30)
    ends = [random_play(game.new_initial_state(), np.random.default_rng(8)) for _ in range(2)]
    assert ends[0].history() == ends[1].history() and ends[0].returns() == ends[1].returns()
    other = random_play(game.new_initial_state(), np.random.default_rng(9))
    assert other.history() != ends[0].history()
    assert sample_chance(game.new_initial_state(), np.random.default_rng(0)) in range(3)


def test_score_rewards_are_those_since_the_last_decision_and_sum_to_the_returns_over_decisions():
    # a game of hands scored in points: the chance nodes that deal the next hand repeat the
    # last hand's rewards (what rl_environment reads after them); summed over the decision
    # nodes and the terminal state they give the returns
    game = load("rummy", reward="score", episode="game", target_score=30, max_turns=100)
    state, rng = game.new_initial_state(), np.random.default_rng(4)
    total, repeats = np.zeros(2), 0
    while not state.is_terminal():
        if state.is_chance_node():
            before = state.rewards()
            state.apply_action(sample_chance(state, rng))
            repeats += state.is_chance_node() and any(before) and state.rewards() == before
            continue
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
        total += state.rewards()
    assert total.tolist() == state.returns() == [19.0, -19.0] and repeats == 20

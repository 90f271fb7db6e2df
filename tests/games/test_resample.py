"""``state.resample(player, rng)`` on every engine and player count: a world the player
cannot tell from the true one, uniform over all such worlds, playable by the rules."""

import re

import numpy as np
import pytest
from scipy.stats import chi2

from rummy_env.core.cards import cards_of, parse_cards
from rummy_env.core.tiles import parse_tiles
from rummy_env.games.gin_rummy import GinRummyGame
from rummy_env.games.gin_rummy import stack_deck as gin_deck
from rummy_env.games.resample import rummy_public_holdings
from rummy_env.games.rummikub import RummikubGame, stack_pool
from rummy_env.games.rummy import RummyGame
from tests.games.resample_helpers import (
    CASES,
    assert_conserved,
    known_of,
    make_game,
    positions,
    random_steps,
    same_observation,
    state_key,
    swap_hidden,
)
from tests.helpers import whole

IDS = [f"{name}-{n}p" for name, _, n in CASES]


@pytest.mark.parametrize(("name", "factory", "n"), CASES, ids=IDS)
def test_resampled_worlds_look_the_same_and_keep_what_is_known(name, factory, n):
    rng = np.random.default_rng(11)
    for seed in (1, 2):
        for state in positions(factory, n, seed):
            before = state_key(state)
            for player in range(n):
                world = state.resample(player, rng)
                assert same_observation(world.observation(player), state.observation(player))
                assert world.current_player() == state.current_player()
                if state.current_player() == player:
                    assert world.legal_actions() == state.legal_actions()
                assert_conserved(world)
                if hasattr(state, "racks"):
                    assert world.racks[player].tolist() == state.racks[player].tolist()
                    assert [int(r.sum()) for r in world.racks] == [int(r.sum()) for r in state.racks]
                else:
                    for q, known in enumerate(known_of(state)):
                        assert world.hands[q] & known == known  # known cards stay with their holder
                    assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
                    assert world.discard == state.discard
                assert world.history == state.history and world.returns() == state.returns()
                assert world.initial_deck == [] and world.hand_decks == []  # no record of the true deal
                assert world.rng is not state.rng
            assert state_key(state) == before  # the true state is untouched


@pytest.mark.parametrize(("name", "factory", "n"), CASES, ids=IDS)
def test_same_information_gives_the_same_world(name, factory, n):
    swaps = 0
    for state in positions(factory, n, seed=3):
        for player in range(n):
            other = swap_hidden(state, player, np.random.default_rng(player))
            if other is None:
                continue
            swaps += 1
            assert state_key(other)[:-1] != state_key(state)[:-1]  # cards moved (the generator is reseeded too)
            a = state.resample(player, np.random.default_rng(5))
            b = other.resample(player, np.random.default_rng(5))
            assert state_key(a) == state_key(b)
    assert swaps >= n


@pytest.mark.parametrize(("name", "factory", "n"), CASES, ids=IDS)
def test_resampled_games_play_on_through_later_hands(name, factory, n):
    options = {"episode": "game"}
    if name != "crazy_rummy":
        options["target_score"] = 40 if name != "rummikub" else 20
    state = positions(factory, n, seed=4, steps=(30,), **options)[0]
    rng = np.random.default_rng(0)
    world = state.resample(0, rng)
    twin = state.resample(0, np.random.default_rng(0))
    hands = world.hands_played
    random_steps(world, np.random.default_rng(1), 3000)
    random_steps(twin, np.random.default_rng(1), 3000)
    assert world.hands_played > hands or world.is_terminal()
    assert state_key(world) == state_key(twin)  # the future is drawn from rng, the same twice
    assert_conserved(world)
    assert world.hand_decks == [] or world.hand_decks[0] != state.hand_decks[-1]


def test_bad_arguments_are_refused():
    state = RummyGame().new_initial_state(rng=0)
    with pytest.raises(ValueError, match=whole("player 2 is not a seat: resample needs an int seat from 0 to 1")):
        state.resample(2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=whole("player True is not a seat: resample needs an int seat from 0 to 1")):
        state.resample(True, np.random.default_rng(0))
    with pytest.raises(
        TypeError, match=whole("rng must be a numpy.random.Generator (np.random.default_rng(seed)), got int")
    ):
        state.resample(0, 7)


@pytest.mark.parametrize(("name", "factory", "n"), CASES, ids=IDS)
def test_an_observation_of_a_player_who_is_not_a_seat_is_refused(name, factory, n):
    # -1 used to give the last seat's private view (Python's negative index), n an IndexError
    state = make_game(factory, n).new_initial_state(rng=0)
    for player in (-1, n, True, 1.0, None, "0"):
        with pytest.raises(
            ValueError,
            match=rf"^player {re.escape(repr(player))} is not a seat: the player must be an int from 0 to {n - 1}$",
        ):
            state.observation(player)
    assert same_observation(state.observation(np.int64(n - 1)), state.observation(n - 1))


def _chi2_pvalue(counts, expected):
    counts, expected = np.asarray(counts, float), np.asarray(expected, float)
    assert counts.sum() == pytest.approx(expected.sum())
    return chi2.sf(((counts - expected) ** 2 / expected).sum(), len(counts) - 1)


def test_gin_unknown_cards_reach_every_place_uniformly():
    # player 0 (the dealer) sees its 10 cards and the upcard AS: 41 cards are unknown,
    # 10 in the opponent's hand and 31 in the stock, each place with chance 1/41
    deck = gin_deck(["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", dealer=0)
    state = GinRummyGame().new_initial_state(deck=parse_cards(deck), dealer=0)
    rng, samples = np.random.default_rng(2024), 4100
    watched = parse_cards("7C KH 2S")  # one in the opponent's hand, two in the stock
    counts = np.zeros((3, 32))  # [opponent's hand, stock positions 0..30]
    for _ in range(samples):
        world = state.resample(0, rng)
        for i, card in enumerate(watched):
            counts[i, 0 if world.hands[1] >> card & 1 else 1 + world.stock.index(card)] += 1
    expected = [samples * 10 / 41] + [samples / 41] * 31
    for row in counts:
        assert _chi2_pvalue(row, expected) > 1e-3


@pytest.mark.parametrize("n", [3, 4])
def test_rummy_unknown_cards_reach_every_hand_and_the_stock_top_uniformly(n):
    state = RummyGame(num_players=n).new_initial_state(rng=9)
    random_steps(state, np.random.default_rng(9), 6)
    player = state.current_player()
    view = state.observation(player)
    unknown = [
        c for c in range(52) if not (view.hand | view.table | view.discard_rest | 1 << view.top_discard) >> c & 1
    ]
    unknown = [c for c in unknown if not any(k >> c & 1 for k in view.known)]
    others = [(player + k) % n for k in range(1, n)]
    free = [state.hands[q].bit_count() - state.known[q].bit_count() for q in others]
    rng, samples, card = np.random.default_rng(1), 3000, unknown[len(unknown) // 2]
    counts = np.zeros(len(others) + 2)  # each other hand, the stock's top, the rest of the stock
    for _ in range(samples):
        world = state.resample(player, rng)
        holder = [i for i, q in enumerate(others) if world.hands[q] >> card & 1]
        counts[holder[0] if holder else (len(others) if world.stock[-1] == card else len(others) + 1)] += 1
    size = len(unknown)
    expected = [samples * f / size for f in free] + [samples / size, samples * (len(state.stock) - 1) / size]
    assert _chi2_pvalue(counts, expected) > 1e-3


def test_rummikub_unknown_tiles_are_dealt_as_a_shuffle_deals():
    racks = ["R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 JK", "B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 JK"]
    pool = stack_pool(racks)
    state = RummikubGame().new_initial_state(deck=parse_tiles(pool), first_player=0)
    # player 0 holds one of each red tile and a joker: 92 tiles are unknown, 14 of them
    # on the other rack and 78 in the pool; R5 has one unknown copy, K7 two, the joker one
    rng, samples = np.random.default_rng(7), 3000
    counts = {t: np.zeros(3) for t in parse_tiles("R5 K7 JK")}  # copies on the other rack: 0, 1, 2
    top = np.zeros(53)
    for _ in range(samples):
        world = state.resample(0, rng)
        for t, row in counts.items():
            row[world.racks[1][t]] += 1
        top[world.pool[-1]] += 1
    p_in = 14 / 92
    single = [1 - p_in, p_in, 0]
    double = [(78 / 92) * (77 / 91), 2 * (14 / 92) * (78 / 91), (14 / 92) * (13 / 91)]
    for t, row in counts.items():
        probs = double if t == parse_tiles("K7")[0] else single
        keep = [i for i, p in enumerate(probs) if p > 0]
        assert all(row[i] == 0 for i in range(3) if probs[i] == 0)
        assert _chi2_pvalue(row[keep], [samples * probs[i] for i in keep]) > 1e-3
    unknown_counts = np.full(53, 2) - state.racks[0] - state.table
    assert _chi2_pvalue(top[unknown_counts > 0], samples * unknown_counts[unknown_counts > 0] / 92) > 1e-3


def _rummy_with_rebuilt_stock(n):
    for seed in range(200):
        state = RummyGame(num_players=n).new_initial_state(rng=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            random_steps(state, rng, 1)
            if not state.is_terminal() and rummy_public_holdings(state)[1] and state.stock:
                return state
    raise AssertionError("no random hand rebuilt its stock")


@pytest.mark.parametrize("n", [2, 3])
def test_rummy_keeps_the_stock_once_it_is_public(n):
    # R-RUMMY-12: the pile is turned over without shuffling, so everyone knows the new
    # stock and every card drawn from it
    state = _rummy_with_rebuilt_stock(n)
    known, public, _ = rummy_public_holdings(state)
    assert public
    for q in range(n):
        assert state.hands[q] & known[q] == known[q] and known[q] & state.known[q] == state.known[q]
    # the first random hand (seed 0) that rebuilt its stock: seat 0 just drew a card from the
    # public stock, which everyone knows and state.known (the melds and picks) does not
    expected = {2: ([5, 1], [4, 1], 30), 3: ([6, 2, 4], [5, 2, 4], 29)}[n]
    assert ([k.bit_count() for k in known], [k.bit_count() for k in state.known], len(state.stock)) == expected
    world = state.resample(state.current_player(), np.random.default_rng(0))
    assert world.stock == state.stock
    for q in range(n):
        assert world.hands[q] & known[q] == known[q]
    again = world.resample(state.current_player(), np.random.default_rng(1))  # a world resamples like the truth
    assert again.stock == state.stock


def test_crazy_rummy_hidden_old_card_of_another_player_goes_to_one_of_its_unknown_cards():
    from rummy_env.games.crazy_rummy import CrazyRummyGame

    for seed in range(300):
        state = CrazyRummyGame(num_players=3).new_initial_state(rng=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            random_steps(state, rng, 1)
            acting = state.current_player()
            if acting >= 0 and state.must_discard >= 0 and not state.known[acting] >> state.must_discard & 1:
                player = (acting + 1) % 3
                world = state.resample(player, np.random.default_rng(3))
                hidden = world.hands[acting] & ~world.known[acting]
                assert hidden >> world.must_discard & 1
                assert world.legal_actions()  # the acting player can still end its turn
                assert cards_of(hidden)
                return
    raise AssertionError("no random round had a player bound to its old card")


def test_gin_opponent_hand_stays_after_a_showdown():
    deck = gin_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    state = GinRummyGame().new_initial_state(deck=parse_cards(deck), dealer=1)
    for move in ("pass", "pass", "knock KH"):
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == move))
    assert state.is_terminal()
    world = state.resample(0, np.random.default_rng(0))
    assert world.hands == state.hands and world.stock != state.stock


def test_a_world_depends_only_on_the_information_and_the_generator():
    state = make_game(RummyGame, 2).new_initial_state(rng=1)
    a = state.resample(0, np.random.default_rng(42))
    b = state.resample(0, np.random.default_rng(42))
    assert state_key(a) == state_key(b)
    assert state_key(a) != state_key(state.resample(0, np.random.default_rng(43)))

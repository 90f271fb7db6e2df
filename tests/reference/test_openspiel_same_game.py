"""The OpenSpiel games are the env's games: the same cards and actions give the same
observations, legal actions and returns as ``env()``; no observation or information
state holds what its player may not know (hidden cards swapped or resampled change
nothing); ``resample_from_infostate`` is the engine's ``resample``; the Gin game scores
as OpenSpiel's own ``gin_rummy`` where the rules agree."""

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from rummy_env.core.cards import card_str, cards_of
from rummy_env.core.deadwood import deadwood
from rummy_env.core.tiles import tile_str
from rummy_env.games.gin_rummy import DRAW_STOCK, DRAW_UPCARD, KNOCK, PASS
from tests.helpers import whole
from tests.reference.openspiel_play import ENVS, load, random_play, sample_chance
from tests.reference.test_gin_openspiel import Differs, our_points, replay_in_openspiel


def env_for(variant, params, engine):
    """``env()`` with the options of a pyspiel game, reset to its engine's first deal."""
    options = dict(params)
    if variant == "crazy_rummy" and not options.get("wild_rank"):
        options["wild_rank"] = engine.round  # the game drew it by chance
    env = ENVS[variant].env(**options)
    if variant == "rummikub":
        env.reset(
            options={"deck": [tile_str(t) for t in engine.initial_deck], "first_player": engine.initial_first_player}
        )
    else:
        env.reset(options={"deck": [card_str(c) for c in engine.initial_deck], "dealer": engine.initial_dealer})
    return env


@pytest.mark.parametrize(
    "variant, params, seed",
    [
        ("rummy", {}, 0),
        ("rummy", {"num_players": 4, "reward": "score"}, 1),
        ("gin_rummy", {}, 2),
        ("gin_rummy", {"reward": "score", "oklahoma": True}, 3),
        ("crazy_rummy", {}, 4),
        ("crazy_rummy", {"num_players": 5, "reward": "score", "wild_rank": 2}, 5),
        ("rummikub", {"max_turns": 120}, 6),
        ("rummikub", {"num_players": 3, "reward": "score", "max_turns": 90}, 7),
    ],
)
def test_the_same_cards_and_actions_give_the_env_observations_masks_texts_and_returns(variant, params, seed):
    game = load(variant, **params)
    n = game.num_players()
    record = []

    def remember(state, action):
        p = state.current_player()
        observations = [np.asarray(state.observation_tensor(q), dtype=np.float32) for q in range(n)]
        record.append((p, observations, state.legal_actions(), action, state.action_to_string(p, action)))

    state = random_play(game.new_initial_state(), np.random.default_rng(seed), on_decision=remember)
    env = env_for(variant, params, state.engine)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for p, observations, legal, action, text in record:
        agent = f"player_{p}"
        assert env.agent_selection == agent
        for q in range(n):
            np.testing.assert_array_equal(env.observe(f"player_{q}")["observation"], observations[q])
        assert np.flatnonzero(env.observe(agent)["action_mask"]).tolist() == legal
        assert env.unwrapped.action_to_string(action) == text
        env.step(action)
        for a in env.agents:
            totals[a] += env.rewards[a]
    assert len(record) > 20 and (all(env.terminations.values()) or all(env.truncations.values()))
    for q in range(n):
        np.testing.assert_array_equal(env.observe(f"player_{q}")["observation"], state.observation_tensor(q))
    assert [totals[a] for a in env.possible_agents] == pytest.approx(state.returns())


# ------------------------------------------------------------ no hidden information
def mirrored_play(variant, params, seed, swap_position):
    """Two games whose deals differ in one card (tile) of one opponent of the watched
    player (the card at ``swap_position`` of the deal is one the first game leaves in the
    stock), otherwise played alike: the same decisions (legal in both worlds), the same
    draws where both worlds allow them.  Stops when the watched player would draw a card
    that exists in one world only.

    Returns (pairs of states at each decision node, the watched seat)."""
    game = load(variant, **params)
    rng = np.random.default_rng(seed)
    a, b = game.new_initial_state(), game.new_initial_state()
    while a.engine is None:
        a.apply_action(sample_chance(a, rng))
    setup = len(a._core.steps)
    deal = a.history()[setup:]
    holder = a._core.data.variant.recipient(swap_position, a._core._lead(), a._core.data.cfg)
    watched = (holder + 1) % game.num_players()
    copies = 2 if a._core.data.variant.tiles else 1
    left = [o for o in range(a._core.data.variant.num_outcomes) if deal.count(o) < copies]
    x, y = deal[swap_position], int(rng.choice(left))
    swap = {x: y, y: x}
    for action in a.history()[:setup] + deal[:swap_position] + [y] + deal[swap_position + 1 :]:
        b.apply_action(action)
    pairs = []
    while not a.is_terminal():
        if a.is_chance_node():
            outcome = sample_chance(a, rng)
            choices = [o for o, _ in b.chance_outcomes()]
            receiver = a._core.data.variant.draw_receiver(a.engine, a._core.pending)
            mirrored = outcome if outcome in choices else swap.get(outcome)
            if mirrored not in choices or (receiver == watched and mirrored != outcome):
                break  # the watched player would draw a card that exists in one world only
            b.apply_action(mirrored)
            a.apply_action(outcome)
            continue
        pairs.append((a.clone(), b.clone()))
        both = sorted(set(a.legal_actions()) & set(b.legal_actions()))  # the changed card is not played
        if not both:
            break
        action = int(both[rng.integers(len(both))])
        a.apply_action(action)
        b.apply_action(action)
    return pairs, watched


@pytest.mark.parametrize(
    "variant, params, seed, position",
    [
        ("rummy", {"num_players": 3}, 10, 4),
        ("gin_rummy", {}, 11, 3),
        ("crazy_rummy", {"num_players": 4}, 12, 9),
        ("rummikub", {}, 13, 5),
    ],
)
def test_a_hidden_card_changes_nothing_the_player_sees(variant, params, seed, position):
    pairs, watched = mirrored_play(variant, params, seed, position)
    assert len(pairs) >= 10, len(pairs)
    differs = 0
    for a, b in pairs:
        assert a.information_state_string(watched) == b.information_state_string(watched)
        assert a.information_state_tensor(watched) == b.information_state_tensor(watched)
        assert a.observation_string(watched) == b.observation_string(watched)
        assert a.observation_tensor(watched) == b.observation_tensor(watched)
        differs += any(a.information_state_string(q) != b.information_state_string(q) for q in range(a.num_players()))
    assert differs == len(pairs)  # the card's holder sees it all along


@pytest.mark.parametrize(
    "variant, params, seed",
    [("rummy", {"num_players": 3}, 20), ("gin_rummy", {}, 21), ("crazy_rummy", {}, 22), ("rummikub", {}, 23)],
)
def test_resampled_states_keep_the_player_information(variant, params, seed):
    game = load(variant, max_turns=60, **params)
    rng = np.random.default_rng(seed)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    state, checked, changed = game.new_initial_state(), 0, 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        if len(state.history()) % 5 == 0:
            p = state.current_player()
            world = state.resample_from_infostate(p, sampler)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.information_state_tensor(p) == state.information_state_tensor(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert world.current_player() == p and world.legal_actions() == state.legal_actions()
            assert len(world.history()) == len(state.history())
            changed += str(world.engine) != str(state.engine)
            checked += 1
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked >= 20 and changed == checked  # the hidden cards are drawn again


@pytest.mark.parametrize("variant", ["rummy", "gin_rummy"])
def test_a_resampled_state_history_replays_its_cards(variant):
    game = load(variant, num_players=2, max_turns=60) if variant == "rummy" else load(variant, max_turns=60)
    state = random_play(game.new_initial_state(), np.random.default_rng(30), until=lambda s: len(s.history()) > 70)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    world = state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(30, 0.0, 1.0))
    replay = game.new_initial_state()
    for action in world.history():
        replay.apply_action(action)
    assert replay.engine.hands == world.engine.hands and replay.engine.hands != state.engine.hands
    assert sorted(replay.engine.stock) == sorted(world.engine.stock)
    for q in range(2):
        assert replay.information_state_string(q) == world.information_state_string(q)


def test_resampling_during_the_deal_deals_the_others_again():
    game = load("rummy", num_players=3)
    state = game.new_initial_state()
    for outcome in [0, *range(12)]:  # dealer 0: cards 0..11 go to seats 1, 2, 0, 1, 2, 0, ...
        state.apply_action(outcome)
    world = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(31, 0.0, 1.0))
    assert world.history()[:1] == [0] and world.history()[1::3] == state.history()[1::3]  # seat 1's own cards
    assert world.information_state_string(1) == state.information_state_string(1)
    assert world.history()[2:] != state.history()[2:] and len(set(world.history()[1:])) == 12
    for seat in (0, 2):
        dealt = [c for i, c in enumerate(world.history()[1:]) if (1 + i) % 3 == seat]
        assert world.information_state_string(seat).count("deal ") == 4
        assert all(f"deal {card_str(c)}" in world.information_state_string(seat) for c in dealt)


def test_resample_refuses_a_bad_seat():
    state = random_play(load("gin_rummy").new_initial_state(), np.random.default_rng(1), until=lambda s: s.engine)
    with pytest.raises(ValueError, match=whole("player 2 is not a seat: players are 0..1")):
        state.resample_from_infostate(2, pyspiel.UniformProbabilitySampler(32, 0.0, 1.0))
    for value in (-1.0, 2.5, 1.0, "0.5", True):
        with pytest.raises(
            ValueError, match=rf"^probability_sampler\(\) gave {value!r}: a sampler gives a float in \[0, 1\)$"
        ):
            state.resample_from_infostate(0, lambda v=value: v)
    with pytest.raises(
        TypeError, match=whole("probability_sampler must be a callable giving a float in [0, 1), got None")
    ):
        state.resample_from_infostate(0, None)


# -------------------------------------------------------- OpenSpiel's gin_rummy
def greedy_gin(state, rng, knock_at):
    """A simple Gin policy from the acting player's own cards: knock when it keeps at
    most ``knock_at`` deadwood (the least it can), else discard to keep the least
    deadwood, take the upcard when that lowers it; ``knock_at=None`` plays at random."""
    legal = state.legal_actions()
    if knock_at is None:
        return int(legal[rng.integers(len(legal))])
    hand = state.engine.hands[state.current_player()]
    if DRAW_STOCK in legal:  # draw (or the upcard offer)
        up = state.engine.discard[-1]
        with_up = min(deadwood(hand | 1 << up & ~(1 << c)) for c in cards_of(hand))
        if with_up < deadwood(hand):
            return DRAW_UPCARD
        return DRAW_STOCK if DRAW_STOCK in legal else PASS
    if PASS in legal:
        up = state.engine.discard[-1]
        with_up = min(deadwood(hand | 1 << up & ~(1 << c)) for c in cards_of(hand))
        return DRAW_UPCARD if with_up < deadwood(hand) else PASS
    kept = {a: deadwood(hand & ~(1 << (a % KNOCK))) for a in legal}
    knocks = [a for a in legal if KNOCK <= a < DRAW_STOCK and kept[a] <= knock_at]
    return min(knocks or [a for a in legal if a < KNOCK], key=kept.get)


def test_gin_returns_agree_with_openspiels_gin_rummy():
    """Hands of our game (score rewards, no big gin) replayed move for move in
    OpenSpiel's ``gin_rummy`` (``tests/reference/test_gin_openspiel.py``): the same
    returns wherever both rule sets apply, and a chance node for every stock draw."""
    options = {"big_gin": False, "knock_limit": 10}
    game = load("gin_rummy", reward="score", **options)
    reference = pyspiel.load_game("gin_rummy", {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25})
    rng = np.random.default_rng(40)
    compared = {"knock": 0, "gin": 0, "undercut": 0, "dead hand": 0}
    lineups = [(10, 10), (0, 10), (10, 0), (0, 0), (None, 10), (None, None)]
    for hand in range(72):
        lineup = lineups[hand % len(lineups)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(greedy_gin(state, rng, lineup[state.current_player()]))
        engine = state.engine
        chance_draws = sum(1 for item in state.full_history()[22:] if item.player == pyspiel.PlayerId.CHANCE)
        assert chance_draws == len(engine.initial_deck) - 21 - len(engine.stock)  # every stock draw
        try:
            theirs, last = replay_in_openspiel(
                reference, engine.initial_deck, engine.initial_dealer, engine.history, options
            )
        except Differs:
            continue
        assert theirs == our_points(last) == state.returns()
        compared[last["result"]] += 1
    assert sum(compared.values()) >= 60 and min(compared.values()) >= 4 and compared["knock"] >= 30, compared


def test_action_to_string_refuses_a_player_that_is_neither_a_seat_nor_chance():
    state = load("rummy").new_initial_state()
    assert state.action_to_string(-1, 0) == "dealer 0"
    state = random_play(state, np.random.default_rng(1), until=lambda s: s.engine)
    assert state.action_to_string(state.current_player(), 52) == "draw stock"
    for player in (2, 7, -2):
        with pytest.raises(ValueError, match=rf"^player {player} is neither a seat 0..1 nor -1 \(chance\)$"):
            state.action_to_string(player, 52)

"""``pimc``'s compiled playouts in whole games (``episode="game"``): a later hand of a game,
loaded into the one-hand kernel, plays out to the hand's end as the game's engine plays
it; a later hand of a game gets exactly the values of the same hand dealt alone; Gin's
opponent model reads the current hand's decisions only; basic Rummy's and Crazy Rummy's
champions keep their compiled playouts there (Gin's is the league model:
``test_champion``)."""

import warnings

import numpy as np
import pytest

from agents import make_agent
from agents.champion import champion_name
from agents.gin_heuristic import STYLES as GIN_STYLES
from agents.search import PIMCAgent, crazy_fast, gin_fast, rummy_fast
from agents.search.fast import (
    CRAZY_MARGIN_SCALE,
    GIN_MARGIN_SCALE,
    MIX_EPS,
    MIX_TRIES,
    RUMMY_MARGIN_SCALE,
    CompiledRollouts,
    playout_config,
)
from agents.search.gin_records import opponent_context, opponent_records
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.core.cards import card_str, parse_cards
from rummy_env.vector import crazy_kernel as ck
from rummy_env.vector import crazy_world, gin_world, rummy_world
from rummy_env.vector import gin_kernel as gk
from rummy_env.vector import rummy_kernel as rk

CASES = [
    (gin_rummy_v0, {}),
    (gin_rummy_v0, {"oklahoma": True}),
    (rummy_v0, {}),
    (rummy_v0, {"num_players": 3}),
    (crazy_rummy_v0, {"num_players": 3}),
]
IDS = ["gin", "gin-oklahoma", "rummy-2p", "rummy-3p", "crazy-3p"]


def _legal_ids(words):
    return [64 * w + a for w in range(words.shape[0]) for a in range(64) if int(words[w]) >> a & 1]


def _choose(state, rng):
    """A random legal action of ``state``, but half the time one that ends the hand if any
    does (a knock, going out): random play alone rarely ends a Gin hand but by the stock."""
    legal = state.legal_actions()
    if rng.random() < 0.5:
        ending = []
        for action in legal:
            after = state.clone()
            after.apply_action(action)
            if after.hands_played > state.hands_played or after.is_terminal():
                ending.append(action)
        if ending:
            return int(rng.choice(ending))
    return int(rng.choice(legal))


def _move(env, heuristic, rng):
    """The heuristic's move 80% of the time, else :func:`_choose`'s: hands that end with a
    winner and scores, and moves the heuristic would not make."""
    state = env.unwrapped.game_state
    return int(heuristic.act(env.observe(env.agent_selection))) if rng.random() < 0.8 else _choose(state, rng)


def _into_a_later_hand(env, seed, rng, extra, played=None):
    """``env`` reset with ``seed`` and played (:func:`_move`) into its second hand or later,
    then ``extra`` more steps; None if the game ended first.  ``played``, a list, gets the
    actions of the current hand."""
    env.reset(seed=seed)
    raw = env.unwrapped
    heuristic = make_agent("heuristic", env)
    played = [] if played is None else played
    while raw.game_state.hands_played == 0 or extra > 0:
        if raw.game_state.is_terminal():
            return None
        extra -= raw.game_state.hands_played > 0
        hands = raw.game_state.hands_played
        action = _move(env, heuristic, rng)
        env.step(action)
        played[:] = [] if raw.game_state.hands_played > hands else [*played, action]
    return None if raw.game_state.is_terminal() else raw.game_state


#: per variant: the world module, the kernel, and a kernel step (row 0, the action, the arrays, rewards, cfg)
KERNELS = {
    "gin_rummy_v0": (gin_world, gk, lambda a, arr, rw, cfg: gk.apply(0, a, arr[0], arr[1], arr[2], arr[4], rw, cfg)),
    "rummy_v0": (rummy_world, rk, lambda a, arr, rw, cfg: rk.apply(0, a, *arr[:4], rw, cfg)),
    "crazy_rummy_v0": (crazy_world, ck, lambda a, arr, rw, cfg: ck.apply(0, a, *arr[:4], cfg)),
}


@pytest.mark.parametrize(("module", "options"), CASES, ids=IDS)
def test_a_later_hand_of_a_whole_game_plays_out_in_the_kernel_as_in_the_engine(module, options):
    env = module.env(episode="game", **options)
    raw = env.unwrapped
    variant = raw.metadata["name"]
    config = playout_config(raw.game.config)
    assert config.episode == "hand" and config == type(config)(**{**vars(raw.game.config), "episode": "hand"})
    world_module, kernel, step = KERNELS[variant]
    cfg = world_module.config_vector(config)
    arrays = world_module.arrays(1) if variant == "crazy_rummy_v0" else world_module.arrays(1, config)
    ints, legal = arrays[0], arrays[3] if variant == "gin_rummy_v0" else arrays[4]
    n = raw.game.num_players
    rewards = np.zeros((1, n), np.float32)  # the search and batched engine use float32
    rng = np.random.default_rng(3)
    hands = steps = scored = decided = 0
    for seed in range(20):
        state = _into_a_later_hand(env, seed, rng, int(rng.integers(0, 30)))
        if state is None:
            continue
        start = state.hands_played
        assert start >= 1
        scored += any(state.scores)  # a game under way: scores the one-hand kernel must not mind
        world_module.load_state(state, 0, *arrays, cfg)
        rewards[:] = 0
        heuristic = make_agent("heuristic", env)
        while raw.game_state.hands_played == start and not raw.game_state.is_terminal():
            assert ints[0, kernel.ENDED] == kernel.LIVE
            assert _legal_ids(legal[0]) == raw.game_state.legal_actions()
            action = _move(env, heuristic, rng)
            env.step(action)
            step(action, arrays, rewards, cfg)
            kernel.compute_legal(0, *arrays[:2], legal, cfg)
            steps += 1
        # the hand ended in both, with the same result; the engine went on to the next hand or ended the game
        assert ints[0, kernel.ENDED] != kernel.LIVE
        last = raw.game_state.last_hand
        if variant == "crazy_rummy_v0":
            assert ints[0, ck.PENALTY : ck.PENALTY + n].tolist() == last["hand_scores"]
        else:
            winner = int(np.argmax(rewards[0])) if rewards[0].max() > 0 else -1
            assert winner == last["winner"]
        decided += last["winner"] >= 0
        hands += 1
    assert hands >= 16 and scored >= 15 and decided >= 15 and steps > 400


@pytest.mark.parametrize(("module", "options"), CASES, ids=IDS)
def test_a_later_hand_gets_exactly_the_values_of_the_same_hand_dealt_alone(module, options):
    """A hand of a game, and the same deck dealt as a single hand (Crazy Rummy: with the
    round's wild rank) and replayed to the same decision: the compiled values match to
    the last bit (valued as a whole game values a hand, by its points margin, on both: the
    game's scores so far do not count), Gin's with the champion's opponent model (the mixture over the
    styles, fitted on the hand's revealed decisions)."""
    game_env, played = module.env(episode="game", **options), []
    state = _into_a_later_hand(game_env, 4, np.random.default_rng(1), 8, played)
    assert state.hands_played >= 1 and len(played) == 8 and any(state.scores)
    deal = {"deck": [card_str(c) for c in state.hand_decks[-1]], "dealer": state.dealer}
    if module is crazy_rummy_v0:
        deal["wild_rank"] = state.wild_rank + 1
    alone = module.env(**options)
    alone.reset(options=deal)
    for action in played:
        alone.step(action)
    model = {}
    if module is gin_rummy_v0:
        assert len(state.history) > state.hand_start == len(state.history) - 8  # earlier hands before it
        model = {"model": MIX_EPS, "tries": MIX_TRIES, "prior": np.full(len(GIN_STYLES), 1.0 / len(GIN_STYLES))}
        records = [opponent_records(s, s.current_player()) for s in (state, alone.unwrapped.game_state)]
        assert all(np.array_equal(a, b) for a, b in zip(*records, strict=True)) and records[0][0].size >= 2
        contexts = [opponent_context(s, s.current_player()) for s in (state, alone.unwrapped.game_state)]
        assert all(np.array_equal(a, b) for a, b in zip(*contexts, strict=True))
    values = []
    compiled = [CompiledRollouts(env) for env in (game_env, alone)]
    margins = {crazy_rummy_v0: CRAZY_MARGIN_SCALE, rummy_v0: RUMMY_MARGIN_SCALE, gin_rummy_v0: GIN_MARGIN_SCALE}
    assert compiled[0].margin_scale == margins.get(module, 0.0)
    assert compiled[1].margin_scale == 0.0
    compiled[1].margin_scale = compiled[0].margin_scale  # the value a whole game gives a round, on both
    for env, rollouts in zip((game_env, alone), compiled, strict=True):
        s = env.unwrapped.game_state
        rng = np.random.default_rng(9)
        values.append(rollouts.action_values(s, s.current_player(), s.legal_actions(), 60, 400, rng, **model))
    assert len(values[0]) >= 2 and np.ptp(values[0]) > 0  # a decision with values that differ
    assert values[0].tolist() == values[1].tolist()


def test_crazy_rummys_whole_games_value_a_round_by_its_penalty_margin():
    """A finished round with penalties 10, 30 and 50: a single round's value is 1 for the
    lowest and 0 for the others (R-CRAZY-12); a whole game's is 1/3 plus the margin to the
    others' mean over the scale (R-CRAZY-13); a round cut by max_turns is 1/3 either way."""
    cfg = crazy_world.config_vector(crazy_rummy_v0.env(num_players=3).unwrapped.game.config)
    ints, masks = crazy_world.arrays(1)[:2]
    ints[0, ck.ENDED] = ck.TERMINATED
    ints[0, ck.PENALTY : ck.PENALTY + 3] = [10, 30, 50]
    assert [crazy_fast.seat_value(0, q, ints, masks, 10.0, cfg, 0.0) for q in range(3)] == [1.0, 0.0, 0.0]
    margins = [crazy_fast.seat_value(0, q, ints, masks, 10.0, cfg, 200.0) for q in range(3)]
    assert margins == pytest.approx([1 / 3 + 30 / 200, 1 / 3, 1 / 3 - 30 / 200], abs=1e-12)
    ints[0, ck.ENDED] = ck.TRUNCATED
    assert crazy_fast.seat_value(0, 0, ints, masks, 10.0, cfg, 200.0) == pytest.approx(1 / 3, abs=1e-12)


def _rummy_hands(*hands):
    cfg = rummy_world.config_vector(rummy_v0.env(num_players=len(hands)).unwrapped.game.config)
    ints, masks = rummy_world.arrays(1)[:2]
    for q, cards in enumerate(hands):
        masks[0, rk.HAND + q] = sum(1 << c for c in parse_cards(cards)) if cards else 0
    return cfg, ints, masks


def test_rummys_whole_games_value_a_hand_by_its_points_margin():
    """Three players, seat 1 out, seat 0 holding 15 points and seat 2 25 (R-RUMMY-14/15):
    a single hand's value is 1 for the winner and 0 for the others; a whole game's is 1/3
    plus the seat's score minus the others' mean over the scale (R-RUMMY-17): +40 for the
    winner, -20 for each other; going rummy doubles it (R-RUMMY-16); no winner gives 1/3."""
    cfg, ints, masks = _rummy_hands("5H KS", "", "KD 9C 6S")
    rewards = np.array([[-0.5, 1.0, -0.5]], np.float32)
    ints[0, rk.ENDED] = rk.TERMINATED
    ints[0, rk.MELDED + 1] = 1
    assert [rummy_fast.seat_value(0, q, ints, masks, rewards, 10.0, cfg, 0.0) for q in range(3)] == [0.0, 1.0, 0.0]
    margins = [rummy_fast.seat_value(0, q, ints, masks, rewards, 10.0, cfg, 200.0) for q in range(3)]
    assert margins == pytest.approx([1 / 3 - 20 / 200, 1 / 3 + 40 / 200, 1 / 3 - 20 / 200], abs=1e-12)
    ints[0, rk.MELDED + 1] = 0
    rummy = [rummy_fast.seat_value(0, q, ints, masks, rewards, 10.0, cfg, 200.0) for q in range(3)]
    assert rummy == pytest.approx([1 / 3 - 40 / 200, 1 / 3 + 80 / 200, 1 / 3 - 40 / 200], abs=1e-12)
    rewards[:] = 0.0  # the stock ran out: no winner (R-RUMMY-12)
    assert rummy_fast.seat_value(0, 2, ints, masks, rewards, 10.0, cfg, 200.0) == pytest.approx(1 / 3, abs=1e-12)


def test_rummys_whole_games_value_a_live_hand_by_its_expected_margin():
    """Two players cut off mid-hand, seat 0 holding KH (10 points of deadwood), seat 1 2C 3D
    (5): each wins with the softmax of minus its deadwood over 10 points, and a win scores
    the other's hand: seat 0's margin is 5 times its chance minus 10 times seat 1's."""
    cfg, ints, masks = _rummy_hands("KH", "2C 3D")
    rewards = np.zeros((1, 2), np.float32)
    chance = np.exp(-0.5) / (np.exp(-0.5) + 1.0)
    assert rummy_fast.seat_value(0, 0, ints, masks, rewards, 10.0, cfg, 0.0) == pytest.approx(chance, abs=1e-12)
    margin = 5 * chance - 10 * (1 - chance)
    value = rummy_fast.seat_value(0, 0, ints, masks, rewards, 10.0, cfg, 200.0)
    assert value == pytest.approx(0.5 + margin / 200, abs=1e-12)
    assert rummy_fast.seat_value(0, 1, ints, masks, rewards, 10.0, cfg, 200.0) == pytest.approx(0.5 - margin / 200)


def test_gins_whole_games_value_a_hand_by_its_points():
    """Gin's whole games (R-GIN-13: the first to 100 wins) value a hand by the points it adds
    to the winner's score since the playout began, over the scale: seat 0 knocks and scores
    25 (R-GIN-10; its score 15 to 40), seat 1 undercuts for 27 (R-GIN-11; 10 to 37), a dead
    hand is 0.5 (R-GIN-09);
    a live hand by the deadwood difference (KH against 2C 3D: 10 against 5)."""
    ints, masks = gin_world.arrays(1)[:2]
    before = np.array([15, 10], np.int32)
    ints[0, gk.ENDED] = gk.TERMINATED

    def values(rewards, scale):
        rows = np.array([rewards], np.float32)
        return [gin_fast.seat_value(0, q, ints, masks, rows, 10.0, scale, before) for q in (0, 1)]

    ints[0, gk.SCORE : gk.SCORE + 2] = [40, 10]
    assert values([1.0, -1.0], 0.0) == [1.0, 0.0]
    assert values([1.0, -1.0], 50.0) == pytest.approx([0.5 + 25 / 50, 0.5 - 25 / 50], abs=1e-12)
    ints[0, gk.SCORE : gk.SCORE + 2] = [15, 37]
    assert values([-1.0, 1.0], 50.0) == pytest.approx([0.5 - 27 / 50, 0.5 + 27 / 50], abs=1e-12)
    ints[0, gk.SCORE : gk.SCORE + 2] = [15, 10]
    assert values([0.0, 0.0], 50.0) == [0.5, 0.5]
    ints[0, gk.ENDED] = gk.LIVE
    masks[0, gk.HAND] = sum(1 << c for c in parse_cards("KH"))
    masks[0, gk.HAND + 1] = sum(1 << c for c in parse_cards("2C 3D"))
    assert values([0.0, 0.0], 0.0) == pytest.approx([1 / (1 + np.exp(0.5)), 1 / (1 + np.exp(-0.5))], abs=1e-12)
    assert values([0.0, 0.0], 50.0) == pytest.approx([0.5 - 5 / 50, 0.5 + 5 / 50], abs=1e-12)


def test_gins_guided_search_plays_a_later_hand_of_a_whole_game():
    """The single-hand champion's spec (the mixture opponent model, guided by the league
    model) builds and acts on a whole game, where it used to be refused (whole games'
    champion is the league model: ``test_champion``)."""
    env = gin_rummy_v0.env(episode="game")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = make_agent(champion_name("gin_rummy_v0"), env, seed=0)
    assert isinstance(agent, PIMCAgent) and agent.compiled is not None and agent.guide is not None
    state = _into_a_later_hand(env, 2, np.random.default_rng(0), 3)
    # the second hand: player_0 passed the upcard, the dealer took it and discarded 6S
    assert (state.hands_played, state.hand_start, state.current_player()) == (1, 36, 0)
    assert [env.unwrapped.action_to_string(a) for a in state.history[36:]] == ["pass", "draw upcard", "discard 6S"]
    action = agent.act(env.observe(env.agent_selection))
    assert env.unwrapped.action_to_string(action) == "draw upcard"  # seeded search: exact
    # the styles were weighed on the opponent's one decision: the offered card it took is not
    # known to the records (-1), so no style fits it better than another
    assert agent.posterior.tolist() == [0.25] * 4


@pytest.mark.parametrize(("module", "options"), CASES[2:], ids=IDS[2:])
def test_the_champion_of_a_whole_game_searches_with_compiled_playouts(module, options):
    env = module.env(episode="game", **options)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")  # no "compiled playouts are out", no dropped playout style
        agent = make_agent("champion", env, seed=0)
    assert isinstance(agent, PIMCAgent) and agent.compiled is not None
    if module is crazy_rummy_v0:  # whole games have their own champion (test_champion), and say so
        from agents.crazy_heuristic import STYLES

        assert agent.style_id == STYLES.index("shed_high") > 0
        assert [str(w.message).split(",")[0] for w in said] == [
            "champion on crazy_rummy_v0 with episode='game' plays pimc:playout_style=shed_high"
        ]
    else:
        assert said == []
    state = _into_a_later_hand(env, 2, np.random.default_rng(0), 3)
    assert state.hands_played == 1
    action = agent.act(env.observe(env.agent_selection))
    # the seeded search's exact choice
    expected = {rummy_v0: {2: "draw discard", 3: "discard 5S"}, crazy_rummy_v0: {3: "meld 8C 8H 8S"}}
    assert env.unwrapped.action_to_string(action) == expected[module][state.num_players]

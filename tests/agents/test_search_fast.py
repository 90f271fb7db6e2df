"""Compiled playouts (``pimc:rollout=fast``): the numba heuristics pick the Python
heuristics' actions, a loaded world steps as the reference engine, and the hidden
cards dealt again in the kernel keep the seat's information."""

import numpy as np
import pytest

from agents import make_agent
from agents.search import PIMCAgent, gin_fast
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.vector import gin_kernel as gk
from rummy_env.vector import gin_world
from tests.helpers import whole


def _legal_ids(words):
    return [64 * w + a for w in range(words.shape[0]) for a in range(64) if int(words[w]) >> a & 1]


def _gin_positions(games, seed, greedy=0.7):
    """(env, observation) at every decision of ``games`` Gin hands, the heuristic's move
    played with probability ``greedy`` and a random legal move otherwise."""
    env = gin_rummy_v0.env()
    heuristic = make_agent("heuristic", env)
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        while not env.terminations[env.agent_selection]:
            obs = env.observe(env.agent_selection)
            yield env, obs
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(heuristic.act(obs)) if rng.random() < greedy else int(rng.choice(legal)))


def test_compiled_gin_heuristic_picks_the_python_heuristics_actions():
    env = gin_rummy_v0.env()
    heuristic = make_agent("heuristic", env)
    cfg = gin_world.config_vector(env.unwrapped.game.config)
    arrays = gin_world.arrays(1)
    checked, kinds = 0, set()
    for env, obs in _gin_positions(12, seed=3):
        gin_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
        expected = int(heuristic.act(obs))
        # the style (0) given, as the searches do: numba compiles a call that leaves defaulted
        # arguments out as a version of its own
        assert gin_fast.heuristic_action(0, arrays[0], arrays[1], arrays[2], arrays[3], 0) == expected
        kinds.add("draw" if expected >= gk.DRAW_STOCK else "knock" if expected >= gk.KNOCK else "discard")
        checked += 1
    assert checked > 300 and kinds == {"draw", "knock", "discard"}


def test_a_loaded_gin_world_steps_as_the_reference_engine():
    env = gin_rummy_v0.env()
    raw = env.unwrapped
    cfg = gin_world.config_vector(raw.game.config)
    ints, masks, pile, legal, decks = arrays = gin_world.arrays(1)
    rewards = np.zeros((1, 2), np.float32)
    row = np.zeros(gk.OBS_SIZE, np.float32)
    rng = np.random.default_rng(0)
    compared = 0
    for seed in range(6):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 12))):  # a few moves before the world is taken
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        state = raw.game_state
        world = state.resample(state.current_player(), rng)
        gin_world.load_state(world, 0, *arrays, cfg)
        rewards[:] = 0
        while True:
            for seat in (0, 1):
                gk.write_observation(0, seat, ints, masks, pile, row)
                encoded = raw._encode(world.observation(seat))
                assert np.array_equal(row, encoded)
            if world.is_terminal():
                assert ints[0, gk.ENDED] == gk.TERMINATED and rewards[0].tolist() == world.returns()
                break
            assert _legal_ids(legal[0]) == world.legal_actions()
            action = int(rng.choice(world.legal_actions()))
            world.apply_action(action)
            gk.apply(0, action, ints, masks, pile, decks, rewards, cfg)
            gk.compute_legal(0, ints, masks, legal, cfg)
            compared += 1
    assert compared > 100


def test_hidden_gin_cards_dealt_again_keep_the_seats_information():
    env = gin_rummy_v0.env()
    raw = env.unwrapped
    cfg = gin_world.config_vector(raw.game.config)
    ints, masks, pile, legal, decks = arrays = gin_world.arrays(1)
    env.reset(seed=2)
    for move in ["pass", "draw upcard"]:  # the non-dealer passes, the dealer takes the upcard
        env.step(raw.string_to_action(move))
    state = raw.game_state
    taker = state.current
    taken, seat = state.taken, 1 - taker  # the card the dealer took is known to the other seat
    gin_world.load_state(state, 0, *arrays, cfg)
    before = masks[0].copy(), ints[0].copy(), decks[0].copy()
    row0, row1 = np.zeros(gk.OBS_SIZE, np.float32), np.zeros(gk.OBS_SIZE, np.float32)
    gk.write_observation(0, seat, ints, masks, pile, row0)
    kernel_rng = np.array([5], np.uint64)
    hands = set()
    for _ in range(20):
        gin_world.redeal_hidden(0, seat, ints, masks, decks, kernel_rng, 0)
        gk.write_observation(0, seat, ints, masks, pile, row1)
        assert np.array_equal(row0, row1)
        other = int(masks[0, gk.HAND + taker])
        assert other >> taken & 1 and other.bit_count() == 11
        assert int(masks[0, gk.HAND + seat]) == int(before[0][gk.HAND + seat])
        assert ints[0].tolist() == before[1].tolist()
        stock = decks[0, ints[0, gk.STOCK] :].tolist()
        old_stock = decks_before = before[2][before[1][gk.STOCK] :].tolist()
        assert len(stock) == len(decks_before) == 31
        assert set(stock) | {c for c in range(52) if other >> c & 1} == set(old_stock) | {
            c for c in range(52) if int(before[0][gk.HAND + taker]) >> c & 1
        }
        hands.add(other)
    assert len(hands) == 20


def test_fast_rollouts_are_the_gin_default_and_refused_elsewhere():
    from rummy_env import rummikub_v0

    agent = make_agent("pimc", gin_rummy_v0.env(), seed=0)
    assert isinstance(agent, PIMCAgent) and agent.compiled is not None
    assert make_agent("pimc:rollout=heuristic", gin_rummy_v0.env()).compiled is None
    with pytest.raises(
        ValueError,
        match=whole(
            "rollout=fast has compiled playouts for gin_rummy_v0, rummy_v0, crazy_rummy_v0 "
            "only, not rummikub_v0: use rollout=heuristic or rollout=random"
        ),
    ):
        make_agent("pimc:plan=steps,rollout=fast", rummikub_v0.env())
    with pytest.raises(
        ValueError, match=whole("rollout='fast' is not a Rummikub plan rollout: use one of heuristic, patient")
    ):
        make_agent("pimc:rollout=fast", rummikub_v0.env())  # the whole-play search has its own rollouts
    with pytest.raises(
        ValueError,
        match=whole(
            "rollout='fast' is not a rollout policy: use one of heuristic, random (pimc also "
            "takes fast, its compiled playouts, on Gin Rummy, basic Rummy and Crazy Rummy)"
        ),
    ):
        make_agent("ismcts:rollout=fast", gin_rummy_v0.env())


RUMMY_OPTIONS = [{}, {"num_players": 3, "ace_high": True}, {"num_players": 4, "reshuffle": "keep_top"}]


@pytest.mark.parametrize("options", RUMMY_OPTIONS, ids=["2p", "3p-ace-high", "4p-keep-top"])
def test_compiled_rummy_heuristic_picks_the_python_heuristics_actions(options):
    from agents.search import rummy_fast
    from rummy_env import rummy_v0
    from rummy_env.vector import rummy_world

    env = rummy_v0.env(**options)
    raw = env.unwrapped
    heuristic = make_agent("heuristic", env)
    cfg = rummy_world.config_vector(raw.game.config)
    ints, masks, stock, pile, legal = arrays = rummy_world.arrays(1)
    rng = np.random.default_rng(1)
    checked, kinds = 0, set()
    for seed in range(8):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection]:
            obs = env.observe(env.agent_selection)
            rummy_world.load_state(raw.game_state, 0, *arrays, cfg)
            expected = int(heuristic.act(obs))
            assert rummy_fast.heuristic_action(0, ints, masks, pile, legal, cfg, 0) == expected
            kinds.add(raw.action_to_string(expected).split()[0])
            checked += 1
            moves = np.flatnonzero(obs["action_mask"])
            env.step(expected if rng.random() < 0.8 else int(rng.choice(moves)))
    assert checked > 300 and {"draw", "meld", "discard"} <= kinds


@pytest.mark.parametrize("options", RUMMY_OPTIONS, ids=["2p", "3p-ace-high", "4p-keep-top"])
def test_a_loaded_rummy_world_steps_as_the_reference_engine(options):
    from rummy_env import rummy_v0
    from rummy_env.games.resample import rummy_public_holdings
    from rummy_env.vector import rummy_kernel as rk
    from rummy_env.vector import rummy_world

    env = rummy_v0.env(**options)
    raw = env.unwrapped
    cfg = rummy_world.config_vector(raw.game.config)
    ints, masks, stock, pile, legal = arrays = rummy_world.arrays(1)
    n = raw.game.num_players
    rewards = np.zeros((1, n), np.float32)
    row = np.zeros(raw.layout.size, np.float32)
    rng = np.random.default_rng(2)
    kernel_rng = np.array([3], np.uint64)
    compared = 0
    for seed in range(5):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 40))):
            if env.terminations[env.agent_selection]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        state = raw.game_state
        if state.is_terminal():
            continue
        seat = state.current_player()
        world = state.resample(seat, rng)
        rummy_world.load_state(world, 0, *arrays, cfg)
        known, public, _ = rummy_public_holdings(world)
        before = [world.observation(q) for q in range(n)]
        rummy_world.redeal_hidden(0, seat, ints, masks, stock, np.asarray(known, np.uint64), public, cfg, kernel_rng, 0)
        rk.write_observation(0, seat, ints, masks, pile, cfg, row)
        assert np.array_equal(row, raw._encode(before[seat]))  # the seat sees the same table
        sizes = [int(masks[0, rk.HAND + q]).bit_count() for q in range(n)]
        assert sizes == [world.hands[q].bit_count() for q in range(n)]
        world.hands = [int(masks[0, rk.HAND + q]) for q in range(n)]  # the dealt-again world, in the engine
        world.stock = stock[0, : ints[0, rk.STOCK_LEN]].tolist()
        world._legal = None
        rewards[:] = 0
        while True:
            for q in range(n):
                rk.write_observation(0, q, ints, masks, pile, cfg, row)
                assert np.array_equal(row, raw._encode(world.observation(q)))
            if world.is_terminal():
                assert rewards[0].tolist() == np.float32(world.returns()).tolist()  # -1/3 in float32
                break
            assert _legal_ids(legal[0]) == world.legal_actions()
            action = int(rng.choice(world.legal_actions()))
            world.apply_action(action)
            rk.apply(0, action, ints, masks, stock, pile, rewards, cfg)
            rk.compute_legal(0, ints, masks, legal, cfg)
            compared += 1
    assert compared > 100


def _gin_opponent_game():
    from rummy_env.games.gin_rummy import stack_deck

    # player_1 deals; both pass KH, player_0 draws 8D and discards QS; player_1 leaves QS,
    # draws 5S, discards JS; player_0 draws TD, discards JH; player_1 leaves JH, draws 4H
    # and discards TH: every move the heuristic's
    hands = ["2C 5C 9C KD 3H 7H JH 4S 8S QS", "AD 5D 9D 6C 2H 6S TH JS 3D KC"]
    deck = stack_deck(hands, upcard="KH", stock=["8D", "5S", "TD", "4H", "3C", "2S", "QC", "7D"], dealer=1)
    env = gin_rummy_v0.env()
    env.reset(options={"deck": deck, "dealer": 1})
    heuristic = make_agent("heuristic", env)
    for _ in range(9):
        env.step(int(heuristic.act(env.observe(env.agent_selection))))
    return env


def test_the_opponents_revealed_gin_decisions_weigh_the_worlds():
    from rummy_env.core.cards import parse_cards

    env = _gin_opponent_game()
    state = env.unwrapped.game_state
    assert state.current_player() == 0 and state.discard[-1] == parse_cards("TH")[0]
    ups, tooks, discards, seen = records = gin_fast.opponent_records(state, 0)
    kh, qs, js, jh, th = parse_cards("KH QS JS JH TH")
    assert ups.tolist() == [kh, qs, jh] and tooks.tolist() == [0, 0, 0] and discards.tolist() == [-1, js, th]
    assert seen.tolist() == [1 << kh, 1 << kh | 1 << qs, 1 << kh | 1 << qs | 1 << js | 1 << jh]
    rng = np.array([1], np.uint64)
    truth = np.uint64(state.hands[1])
    assert gin_fast.fit_weight(truth, records, state.knock_limit, True, 0.0, rng, 0) == 1.0
    # with 8H 9H it would have kept TH (a run): that world cannot be
    ad, h2, h8, h9 = parse_cards("AD 2H 8H 9H")
    other = np.uint64(state.hands[1] & ~(1 << ad | 1 << h2) | 1 << h8 | 1 << h9)
    assert gin_fast.fit_weight(other, records, state.knock_limit, True, 0.0, rng, 0) == 0.0
    # eps = 0.5: the factors of the decisions that do not fit times the stock draws' shares (seeded draws)
    assert gin_fast.fit_weight(other, records, state.knock_limit, True, 0.5, rng, 0) == pytest.approx(1 / 11)
    assert int(rng[0]) == 1663341875487337578  # the generator moved on by the same draws


def test_gin_worlds_of_the_opponent_model_do_not_peek():
    from tests.games.resample_helpers import swap_hidden

    env = _gin_opponent_game()
    raw = env.unwrapped
    obs = env.observe(env.agent_selection)
    before = make_agent("pimc:worlds=30,model=0", env, seed=4).act(obs)
    values = make_agent("pimc:worlds=30,model=0", env, seed=4).action_values(raw.game_state, 0, [104, 105])
    for k in range(3):
        raw.game_state = swap_hidden(raw.game_state, 0, np.random.default_rng(k))
        assert make_agent("pimc:worlds=30,model=0", env, seed=4).act(obs) == before
        again = make_agent("pimc:worlds=30,model=0", env, seed=4).action_values(raw.game_state, 0, [104, 105])
        assert again.tolist() == values.tolist()
    with pytest.raises(
        ValueError, match=whole("model=0.5 weighs the worlds of rollout=fast only (rollout='heuristic')")
    ):
        make_agent("pimc:model=0.5,rollout=heuristic", env)
    with pytest.raises(
        ValueError,
        match=whole(
            "agent 'pimc:model=2': model=2 is out of range (counts 1..10,000,000, c >= 0, "
            "time in (0, 86400] s, model 0..1)"
        ),
    ):
        make_agent("pimc:model=2", env)


def test_a_time_budget_plays_whole_chunks_of_compiled_worlds(monkeypatch):
    import agents.search.pimc as pimc_module
    from agents.search.worlds import Budget

    class ThreeChunks(Budget):  # the clock allows exactly three chunks
        def more(self) -> bool:
            return self.used < 3

    monkeypatch.setattr(pimc_module, "Budget", ThreeChunks)
    env = _gin_opponent_game()
    obs = env.observe(env.agent_selection)
    agent = make_agent("pimc:time=0.001", env, seed=0)
    chunks, real = [], agent.compiled.action_values

    def spy(state, seat, legal, worlds, *rest):
        values = real(state, seat, legal, worlds, *rest)
        chunks.append((worlds, values.copy()))
        return values

    monkeypatch.setattr(agent.compiled, "action_values", spy)
    values = agent.action_values(env.unwrapped.game_state, 0, [104, 105])
    assert [w for w, _ in chunks] == [pimc_module.FAST_CHUNK] * 3  # whole chunks of 32 worlds
    np.testing.assert_allclose(values, np.mean([v for _, v in chunks], axis=0), rtol=1e-12)
    assert agent.act(obs) in np.flatnonzero(obs["action_mask"]).tolist()


#: the action after three chunks of 32 worlds (seed 0)
EXPECTED_TIMED = {rummy_v0.__name__: (52, "draw stock"), crazy_rummy_v0.__name__: (112, "meld QD QH QS")}


@pytest.mark.parametrize("module", [rummy_v0, crazy_rummy_v0], ids=["rummy", "crazy_rummy"])
def test_a_time_budget_plays_compiled_worlds_where_no_styles_are_weighed(module, monkeypatch):
    # these kernels report no styles' weights (evidence None): the time loop must not add them
    import agents.search.pimc as pimc_module
    from agents.search.worlds import Budget

    class ThreeChunks(Budget):  # the clock allows exactly three chunks (a real clock varies)
        def more(self) -> bool:
            return self.used < 3

    monkeypatch.setattr(pimc_module, "Budget", ThreeChunks)
    env = module.env()
    env.reset(seed=1)
    heuristic = make_agent("heuristic", env)
    while env.observe(env.agent_selection)["action_mask"].sum() < 2:
        env.step(heuristic.act(env.observe(env.agent_selection)))
    obs = env.observe(env.agent_selection)
    agent = make_agent("pimc:time=0.001", env, seed=0)
    assert agent.compiled is not None and agent.posterior is None
    chunks, real = [], agent.compiled.action_values

    def spy(state, seat, legal, worlds, *rest):
        chunks.append(worlds)
        return real(state, seat, legal, worlds, *rest)

    monkeypatch.setattr(agent.compiled, "action_values", spy)
    action = agent.act(obs)
    assert chunks == [pimc_module.FAST_CHUNK] * 3 and agent.posterior is None
    assert (action, env.unwrapped.action_to_string(action)) == EXPECTED_TIMED[module.__name__]

"""``pimc``'s compiled playouts in whole games (``episode="game"``) of basic Rummy and
Crazy Rummy: a later hand of a game, loaded into the one-hand kernel, plays out to the
hand's end as the game's engine plays it; a game's first hand gets exactly the values of
the same hand dealt alone; the champions keep their compiled playouts there; Gin Rummy's
refuse whole games."""

import warnings

import numpy as np
import pytest

from agents import make_agent
from agents.search import PIMCAgent
from agents.search.fast import CompiledRollouts, playout_config
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.vector import crazy_kernel as ck
from rummy_env.vector import crazy_world, rummy_world
from rummy_env.vector import rummy_kernel as rk

CASES = [(rummy_v0, {}), (rummy_v0, {"num_players": 3}), (crazy_rummy_v0, {"num_players": 3})]
IDS = ["rummy-2p", "rummy-3p", "crazy-3p"]


def _legal_ids(words):
    return [64 * w + a for w in range(words.shape[0]) for a in range(64) if int(words[w]) >> a & 1]


def _into_a_later_hand(env, seed, rng, extra):
    """``env`` reset with ``seed`` and played at random into its second hand or later, then
    ``extra`` more random steps; None if the game ended first."""
    env.reset(seed=seed)
    raw = env.unwrapped
    while raw.game_state.hands_played == 0 or extra > 0:
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            return None
        extra -= raw.game_state.hands_played > 0
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return None if raw.game_state.is_terminal() else raw.game_state


@pytest.mark.parametrize(("module", "options"), CASES, ids=IDS)
def test_a_later_hand_of_a_whole_game_plays_out_in_the_kernel_as_in_the_engine(module, options):
    env = module.env(episode="game", **options)
    raw = env.unwrapped
    variant = raw.metadata["name"]
    config = playout_config(variant, raw.game.config)
    assert config.episode == "hand" and config.num_players == raw.game.config.num_players
    crazy = variant == "crazy_rummy_v0"
    world_module, kernel = (crazy_world, ck) if crazy else (rummy_world, rk)
    cfg = world_module.config_vector(config)
    ints, masks, stock, pile, legal = arrays = world_module.arrays(1) if crazy else world_module.arrays(1, config)
    n = config.num_players
    rewards = np.zeros((1, n))
    rng = np.random.default_rng(3)
    hands = steps = scored = 0
    for seed in range(12):
        state = _into_a_later_hand(env, seed, rng, int(rng.integers(0, 30)))
        if state is None:
            continue
        world = state.clone()
        start = world.hands_played
        assert start >= 1
        scored += any(world.scores)  # a game under way, its scores in the loaded row
        world_module.load_state(world, 0, *arrays, cfg)
        rewards[:] = 0
        while world.hands_played == start and not world.is_terminal():
            assert ints[0, kernel.ENDED] == kernel.LIVE
            assert _legal_ids(legal[0]) == world.legal_actions()
            action = int(rng.choice(world.legal_actions()))
            world.apply_action(action)
            if crazy:
                ck.apply(0, action, ints, masks, stock, pile, cfg)
                ck.compute_legal(0, ints, masks, legal, cfg)
            else:
                rk.apply(0, action, ints, masks, stock, pile, rewards, cfg)
                rk.compute_legal(0, ints, masks, legal, cfg)
            steps += 1
        # the hand ended in both, with the same result; the engine went on to the next hand or ended the game
        assert ints[0, kernel.ENDED] != kernel.LIVE
        last = world.last_hand
        if crazy:
            assert ints[0, ck.PENALTY : ck.PENALTY + n].tolist() == last["hand_scores"]
        else:
            winner = int(np.argmax(rewards[0])) if rewards[0].max() > 0 else -1
            assert winner == last["winner"]
        hands += 1
    assert hands >= 6 and scored >= 4 and steps > 300


@pytest.mark.parametrize(
    ("module", "alone"), [(rummy_v0, {}), (crazy_rummy_v0, {"wild_rank": 1})], ids=["rummy", "crazy"]
)
def test_a_whole_games_first_hand_gets_the_values_of_the_same_hand_dealt_alone(module, alone):
    """The game's first hand and a single hand (Crazy Rummy: round one's wild rank, aces)
    from the same seed are the same deal: the compiled values match to the last bit."""
    players = {"num_players": 3} if module is crazy_rummy_v0 else {}
    envs = [module.env(episode="game", **players), module.env(**players, **alone)]
    heuristic = make_agent("heuristic", envs[0])
    for env in envs:
        env.reset(seed=5)
    for _ in range(6):
        obs = [env.observe(env.agent_selection) for env in envs]
        assert np.array_equal(obs[0]["action_mask"], obs[1]["action_mask"])
        action = int(heuristic.act(obs[0]))
        for env in envs:
            env.step(action)
    values = []
    for env in envs:
        state = env.unwrapped.game_state
        seat = state.current_player()
        legal = state.legal_actions()
        values.append(CompiledRollouts(env).action_values(state, seat, legal, 60, 400, np.random.default_rng(9)))
    assert len(legal) >= 3 and np.ptp(values[0]) > 0  # a decision with values that differ
    assert values[0].tolist() == values[1].tolist()


@pytest.mark.parametrize(("module", "options"), CASES, ids=IDS)
def test_the_champion_of_a_whole_game_searches_with_compiled_playouts(module, options):
    env = module.env(episode="game", **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "compiled playouts are out", no dropped playout style
        agent = make_agent("champion", env, seed=0)
    assert isinstance(agent, PIMCAgent) and agent.compiled is not None
    if module is crazy_rummy_v0:
        from agents.crazy_heuristic import STYLES

        assert agent.style_id == STYLES.index("hold_wilds") > 0
    state = _into_a_later_hand(env, 2, np.random.default_rng(0), 3)
    assert state is not None and state.hands_played >= 1
    action = agent.act(env.observe(env.agent_selection))
    assert action in state.legal_actions()


def test_gins_compiled_playouts_refuse_whole_games():
    env = gin_rummy_v0.env(episode="game")
    with pytest.raises(ValueError) as err:
        make_agent("pimc:rollout=fast", env)
    assert str(err.value) == (
        "rollout=fast on gin_rummy_v0 plays single hands (episode='hand'), not episode='game': "
        "whole games have compiled playouts on rummy_v0, crazy_rummy_v0"
    )
    with pytest.raises(ValueError, match="episode='game' has none"):
        make_agent("pimc:rollout=heuristic,model=0.5", env)

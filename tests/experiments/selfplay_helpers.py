"""One rollout of a self-play run built from its settings, as ``experiments.selfplay.run`` starts one;
a committed model's episodes in ``env()``."""

from pathlib import Path

import numpy as np

from experiments import selfplay
from experiments.common import load_variant
from experiments.selfplay.opponents import Opponents
from experiments.selfplay.returns import per_seat_gae
from experiments.selfplay.rollout import RECENT, collect
from experiments.selfplay.run import make_vec


def first_rollout(cfg: selfplay.Config, learner: selfplay.Learner | None = None):
    """``(learner, opponents, vec, buffer, last batch)`` after the first rollout of a run of ``cfg``
    (or of ``learner``, e.g. restored from a checkpoint)."""
    learner = learner or selfplay.Learner(cfg)
    opponents = Opponents(learner, load_variant(learner.cfg.variant).env(**learner.cfg.env_options))
    vec = make_vec(learner.cfg, learner.updates)
    opponents.bind(vec)
    buf, last = collect(learner, opponents, vec, vec.reset(), dict.fromkeys(RECENT, 0))
    return learner, opponents, vec, buf, last


def policy_episodes(path, env, seeds) -> list[tuple[list[float], int]]:
    """``(each seat's summed reward, the policy's decisions)`` of one episode per seed of
    ``env`` with the model at ``path`` in every seat; every action it takes is asserted legal."""
    from agents.policy import PolicyAgent

    agent = PolicyAgent(path)
    assert agent.model.observation_space.shape == (env.unwrapped.layout.size,)
    episodes = []
    for seed in seeds:
        env.reset(seed=seed)
        returns, steps = dict.fromkeys(env.possible_agents, 0.0), 0
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            returns[name] += reward
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs)
            assert obs["action_mask"][action] == 1
            env.step(action)
            steps += 1
        episodes.append(([returns[a] for a in env.possible_agents], steps))
    return episodes


def committed_model_returns(folder: str, env, seeds) -> list[list[float]]:
    """:func:`policy_episodes`' returns with the committed model ``docs/results/<folder>/model.pt``."""
    path = Path(__file__).parents[2] / "docs" / "results" / folder / "model.pt"
    return [returns for returns, _ in policy_episodes(path, env, seeds)]


def one_game_gae(players: np.ndarray, rewards: np.ndarray, dones: np.ndarray, value: float = 0.25):
    """``per_seat_gae`` of one game's steps (``players`` (T,), ``rewards`` (T, seats),
    ``dones`` (T,)) with every value ``value``, gamma = lambda = 1, no shaping and nothing
    before or after: ``(advantages (T, 1), valid (T, 1))``."""
    T = len(players)
    return per_seat_gae(
        np.full((T, 1), value), rewards[:, None, :], dones[:, None], players[:, None], np.ones((T, 1), bool),
        np.zeros((T, 1)), np.zeros(1), np.zeros(1, np.int64), np.zeros(1, bool), np.zeros(1), 1.0, 1.0, 0.0,
    )  # fmt: skip

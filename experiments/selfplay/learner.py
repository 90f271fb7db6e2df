"""What a self-play run learns and counts: the network, its optimizer, the optional
privileged critic, the input features, the snapshot pool, the counters and the generators.

A :class:`Learner` is built from a :class:`~experiments.selfplay.config.Config`; its
:meth:`Learner.state` is what ``checkpoint.pt`` holds and :meth:`Learner.load_state`
restores it (``--resume``).  The rollout (:mod:`~experiments.selfplay.rollout`) and the
update (:mod:`~experiments.selfplay.update`) read and change it.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common import load_variant
from experiments.selfplay.config import Config, check_config, make_plain
from experiments.selfplay.opponents import check_agent_names
from experiments.selfplay.returns import potential_fn

#: the parts of a run's time, in seconds (``scalars.csv``'s shares, ``summary.json``)
TIMERS = ("sim", "features", "inference", "heuristic", "update", "eval", "checkpoint")
#: the timers that are no training: their seconds are taken off the training minutes (the
#: ``--minutes`` budget) and off the training time of ``summary.json``'s steps per second
NOT_TRAINING = ("eval", "checkpoint")


def resolve_device(name: str) -> str:
    """``"auto"`` -> ``"cuda"`` when torch sees a GPU, else ``"cpu"``; ``"cpu"`` / ``"cuda"`` as given.

    Raises:
        ValueError: another name, or ``"cuda"`` without a GPU.
    """
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name not in ("cpu", "cuda"):
        raise ValueError(f"device={name!r}: use auto, cpu or cuda")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda', but torch sees no GPU (torch.cuda.is_available() is False): use cpu or auto")
    return name


#: the network input features of ``features="auto"`` per variant (``agents.policy_features``)
AUTO_FEATURES = {
    "gin_rummy_v0": "gin_opp",
    "rummy_v0": "meld_opp",
    "crazy_rummy_v0": "meld_opp",
    "rummikub_v0": "rk_out",
}


class Learner:
    """The learning side of a run.

    Args:
        config: the run's settings (checked here: :func:`~experiments.selfplay.config.check_config`).

    Attributes:
        cfg: the settings; ``cfg.features`` is resolved from ``"auto"``.
        device: the torch device of the network and the update (``cfg.device`` resolved).
        net: the policy :class:`agents.torch_policy.ActorCritic` (what ``model.pt`` saves).
        critic: the privileged critic (``cfg.critic == "privileged"``) or None.
        optimizer: Adam over the network's (and the critic's) parameters.
        featurize: raw observations float32 ``(n, obs_size)`` -> network inputs ``(n, input_size)``.
        origin: where the starting weights come from (``init_model``, widened or not, or
            scratch), the run's first line of output.
        pool: state dicts of past snapshots of ``net`` (the pool opponents).
        steps: env steps so far (every seat's decisions); ``learner_steps``: the learner
            decisions used in updates; ``updates``, ``episodes``: counts.
        timers: seconds spent per part of the run (:data:`TIMERS`), over every session;
            those of :data:`NOT_TRAINING` (evaluations, checkpoints) are no training time.
        rng: numpy generator (pool draws, minibatch order, random seats); ``gen``: torch
            generator (action sampling).

    Raises:
        ValueError: a setting out of range or contradicting another, one the variant refuses,
            an ``init_model`` of another variant or number of players, or a setting that is no
            plain value (NumPy scalars and arrays are converted: ``config.make_plain``).
    """

    def __init__(self, config: Config):
        import torch

        from agents.policy_features import Featurizer
        from agents.torch_policy import ActorCritic

        make_plain(config)  # before anything reads it: the files the run writes must load back
        self.cfg = config
        self.device = resolve_device(config.device)
        env = load_variant(config.variant).env(**config.env_options)
        self.layout = env.unwrapped.layout
        self.rules = asdict(env.unwrapped.game.config)  # recorded in model.pt (save_model)
        self.obs_size = self.layout.size
        self.num_actions = int(env.action_space(env.possible_agents[0]).n)
        self.num_players = len(env.possible_agents)
        check_config(config, self.num_players)
        # seeded once the seed is checked (torch refuses one past 64 bits with its own words);
        # nothing above draws from these generators, and the agents built below draw after
        # the seeding, as they always did (a policy's network draws its initial weights)
        torch.manual_seed(config.seed)  # the initial weights
        torch.set_num_threads(config.torch_threads)
        self.rng = np.random.default_rng(config.seed)
        self.gen = torch.Generator().manual_seed(config.seed)
        check_agent_names(config, env)
        init = None
        self.origin = "starting from scratch"
        if config.init_model:
            from agents.torch_policy import load_model

            init = load_model(config.init_model)
            if init.extra.get("variant") != config.variant or init.obs_size != self.obs_size:
                raise ValueError(
                    f"init_model={config.init_model!r} is a model of {init.extra.get('variant')} "
                    f"(options {init.extra.get('env_options', {})}, observations of size {init.obs_size}), "
                    f"the run trains {config.variant} ({self.num_players} players, {self.obs_size}): "
                    "start from a model of the same variant and number of players, or from scratch"
                )
            # the network takes the model's shape: its hidden sizes and input features, or
            # features that extend the model's (new inputs with zero weights: widen_inputs)
            config.hidden = tuple(init.hidden)
            self.origin = f"starting from {config.init_model} ({init.features} features)"
            if config.features not in ("auto", init.features):
                from agents.torch_policy import widen_inputs

                self.origin = f"{self.origin[:-1]}, widened to {config.features}: zero weights on the new inputs)"
                init = widen_inputs(init, config.features)
            config.features = init.features
        if config.features == "auto":
            config.features = AUTO_FEATURES.get(config.variant, "none")
        self.featurize = Featurizer(config.features, config.variant, self.layout)
        self.input_size = self.obs_size + self.featurize.extra
        self.net = ActorCritic(self.obs_size, self.num_actions, config.hidden, config.features)
        if init is not None:
            self.net.load_state_dict(init.state_dict())
        self.net = self.net.to(self.device)
        params = list(self.net.parameters())
        self.critic = None
        if config.critic == "privileged":
            from experiments.selfplay.critic import privileged_size

            size = self.input_size + privileged_size(self.num_players)
            self.critic = ActorCritic(size, 1, config.hidden).to(self.device)
            params += list(self.critic.parameters())
        self.suit_index = None  # --suit-augment: (inputs, actions) column indices of the 24 relabellings
        if config.suit_augment:
            from agents.suit_symmetry import relabelling_index

            self.suit_index = relabelling_index(self.layout, config.features, self.num_actions)
        self.optimizer = torch.optim.Adam(params, lr=config.lr, eps=1e-5)
        self.phi = potential_fn(config.variant, config.env_options)
        self.teacher = None
        if config.teacher_labels:
            from experiments.selfplay.teacher import TeacherLabels

            paths = [p for p in config.teacher_labels.split(",") if p]
            self.teacher = TeacherLabels(
                paths,
                config.variant,
                self.featurize,
                self.num_actions,
                config.teacher_margin,
                self.rng,
                observation_size=self.obs_size,
                env_options=config.env_options,
            )
        self.pool: list[dict] = []
        self.steps = self.learner_steps = self.updates = self.episodes = 0
        self.timers = dict.fromkeys(TIMERS, 0.0)
        self._elapsed = 0.0  # seconds of earlier sessions (resume)
        self._session_start = time.perf_counter()
        self._trained: float | None = None  # the run's training seconds once stop_clock stopped the clock

    # --- time and schedules -------------------------------------------------------------
    def start_session(self) -> None:
        """Start counting this session's time (at the start of the loop)."""
        self._session_start = time.perf_counter()

    def stop_clock(self) -> None:
        """Stop counting training time (training is over): the checkpoint, ``model.pt``
        and the curve written next are no training, so ``summary.json``'s minutes stay those
        of the last update (``scalars.csv``'s); evaluations and checkpoints still add their
        own time (:data:`NOT_TRAINING`), which :meth:`training_minutes` takes off again.  A run
        stops its clock once, at its end."""
        self._trained = self.elapsed() - self.untimed()

    def untimed(self) -> float:
        """Seconds of this run, over every session, that are no training (:data:`NOT_TRAINING`)."""
        return sum(self.timers[k] for k in NOT_TRAINING)

    def elapsed(self) -> float:
        """Seconds of this run so far over every session, the evaluations and checkpoints included."""
        if self._trained is not None:  # stopped: only evaluations and checkpoints add time
            return self._trained + self.untimed()
        return self._elapsed + time.perf_counter() - self._session_start

    def training_minutes(self) -> float:
        """Minutes of this run spent training, over every session: the evaluations and the
        checkpoints are not counted (``--minutes`` is a budget of these; ``eval.csv`` and the
        curves count them)."""
        return (self.elapsed() - self.untimed()) / 60

    def progress(self) -> float:
        """Share of the run done, by steps or by training minutes, whichever is further."""
        done = self.steps / self.cfg.timesteps
        if self.cfg.minutes:
            done = max(done, self.training_minutes() / self.cfg.minutes)
        return min(1.0, done)

    def finished(self) -> bool:
        """Whether the step or time budget is spent."""
        return self.steps >= self.cfg.timesteps or bool(
            self.cfg.minutes and self.training_minutes() >= self.cfg.minutes
        )

    def kickstart_weight(self) -> float:
        """The kickstarting weight now: ``kickstart`` decaying linearly to ``kickstart_floor``
        over the first ``kickstart_anneal`` of the run (Schmitt et al. 2018); 0 without a teacher
        and when ``kickstart`` or ``kickstart_anneal`` is 0 (kickstarting off: ``check_config``
        refuses a ``kickstart_floor`` then)."""
        cfg = self.cfg
        has_teacher = self.teacher is not None or cfg.heuristic_share or cfg.kickstart_share
        if not cfg.kickstart or not cfg.kickstart_anneal or not has_teacher:
            return 0.0
        return max(cfg.kickstart_floor, cfg.kickstart * max(0.0, 1.0 - self.progress() / cfg.kickstart_anneal))

    # --- saving ---------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything a resumed run needs (tensors, numbers, lists: ``torch.save``-able)."""
        return {
            "config": asdict(self.cfg),
            "net": self.net.state_dict(),
            "critic": self.critic.state_dict() if self.critic is not None else None,
            "optimizer": self.optimizer.state_dict(),
            "pool": self.pool,
            "counters": {
                "steps": self.steps,
                "learner_steps": self.learner_steps,
                "updates": self.updates,
                "episodes": self.episodes,
                "elapsed": self.elapsed(),
                "timers": dict(self.timers),
            },
            "numpy_rng": self.rng.bit_generator.state,
            "torch_rng": self.gen.get_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state` (the settings are the caller's business:
        :func:`~experiments.selfplay.checkpoint.resumed_config`)."""
        self.net.load_state_dict(state["net"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.pool = list(state["pool"])
        c = state["counters"]
        self.steps, self.learner_steps, self.updates = c["steps"], c["learner_steps"], c["updates"]
        self.episodes, self.timers = c["episodes"], {**dict.fromkeys(TIMERS, 0.0), **c["timers"]}
        self._elapsed = c["elapsed"]
        self._session_start = time.perf_counter()
        self.rng.bit_generator.state = state["numpy_rng"]
        self.gen.set_state(state["torch_rng"])

    def save_model(self, path: Path) -> Path:
        """The current policy as a ``PolicyAgent`` ``.pt`` file (on the CPU)."""
        import copy

        from agents.torch_policy import save_model

        net = self.net if self.device == "cpu" else copy.deepcopy(self.net).to("cpu")
        # every rule as the run played it, defaults included: agents.policy.check_trained_on
        # then tells a default changed since training from the same rules
        save_model(path, net, variant=self.cfg.variant, env_options=dict(self.cfg.env_options), env_config=self.rules)
        return path

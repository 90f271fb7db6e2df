"""What a self-play run's ``checkpoint.pt`` holds, and how ``--resume`` continues from it.

:class:`Checkpoints` is a mixin of ``experiments.selfplay.Trainer``: it reads the trainer's
``cfg``, ``out``, ``net``, ``critic``, ``optimizer``, ``pool``, counters and generators.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from experiments.selfplay.config import Config


class Checkpoints:
    """The run's state as a ``torch.save``-able dict, and the saved policy."""

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
                # the training seconds so far, the running session's included
                "elapsed": self.elapsed_now() if hasattr(self, "session_start") else self.elapsed,
                "timers": dict(self.timers),
            },
            "numpy_rng": self.rng.bit_generator.state,
            "torch_rng": self.gen.get_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state` (the config is the caller's business)."""

        self.net.load_state_dict(state["net"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.pool = list(state["pool"])
        c = state["counters"]
        self.steps, self.learner_steps, self.updates = c["steps"], c["learner_steps"], c["updates"]
        self.episodes, self.elapsed, self.timers = c["episodes"], c["elapsed"], dict(c["timers"])
        self.rng.bit_generator.state = state["numpy_rng"]
        self.gen.set_state(state["torch_rng"])

    def save_checkpoint(self) -> Path:
        """``checkpoint.pt`` in the output folder, written atomically."""
        import torch

        path = self.out / "checkpoint.pt"
        tmp = path.with_suffix(".tmp")
        torch.save(self.state(), tmp)
        tmp.replace(path)
        return path

    def save_model(self, path: Path) -> Path:
        """The current policy as a ``PolicyAgent`` ``.pt`` file."""
        from agents.torch_policy import save_model

        save_model(path, self.net, variant=self.cfg.variant, env_options=dict(self.cfg.env_options))
        return path


def resumed_config(saved: dict, given_config: Config, given: set[str]) -> Config:
    """The settings of a resumed run.

    Args:
        saved: the checkpoint's ``config`` (``asdict`` of the run's :class:`Config`).
        given_config: the settings parsed from the command line now.
        given: the names of the settings given on the command line now.

    Returns:
        the saved run's settings, except the limits and threads and the settings given now;
        never those that shape the network or the games (variant, options, hidden sizes,
        features, number of games, seed).
    """
    keep = {"timesteps", "minutes", "sim_threads", "torch_threads", "eval_workers"}
    keep |= given - {"variant", "env_options", "hidden", "features", "num_envs", "seed"}
    return Config(**{**saved, "hidden": tuple(saved["hidden"]), **{k: getattr(given_config, k) for k in keep}})

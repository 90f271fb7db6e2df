"""A policy trained with RLlib (``python -m experiments.train --backend rllib``) as an agent.

The glue RLlib needs for this package's envs lives here and in
``experiments.train.rllib``, not in the user's code:

- :func:`rllib_observation`: RLlib's action-masking convention (its new API stack's
  masking RLModules) reads the observation under ``"observations"`` and a float mask
  under ``"action_mask"``; the envs give ``"observation"`` and an int8 mask.
- :class:`MaskedPPOTorchRLModule`: RLlib's PPO torch module with the illegal actions'
  logits pushed to the float minimum, so they are never sampled nor chosen.
- :class:`RLlibAgent`: plays the shared policy of a checkpoint (``--agents rllib:PATH``).

Needs the ``rllib`` extra (``ray[rllib]``, torch); ``agents.make_agent`` imports this
module only for ``rllib:`` names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.base import Agent

#: The module id of the one policy every seat shares (self-play).
SHARED_POLICY = "shared"


def rllib_observation(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """An env observation in RLlib's masking convention.

    Args:
        observation: ``{"observation": float32 (n,), "action_mask": int8 (a,)}``.

    Returns:
        ``{"observations": float32 (n,), "action_mask": float32 (a,)}`` (new arrays).
    """
    return {
        "observations": np.array(observation["observation"], dtype=np.float32),
        "action_mask": np.array(observation["action_mask"], dtype=np.float32),
    }


def rllib_observation_space(space: Any) -> Any:
    """The ``gymnasium.spaces.Dict`` of :func:`rllib_observation` for an env's observation space."""
    box = space["observation"]
    n = space["action_mask"].shape[0]
    return spaces.Dict(
        {
            "observations": box,
            "action_mask": spaces.Box(low=0.0, high=1.0, shape=(n,), dtype=np.float32),
        }
    )


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's PPO torch RLModule over ``observations``, with the logits of the actions
    whose ``action_mask`` entry is 0 set to the float minimum, so they are never sampled
    nor chosen (RLlib's action-masking example, kept in this package; its observation
    space is :func:`rllib_observation_space`)."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any):
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict) -> tuple[Any, dict]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or set(obs) != {"observations", "action_mask"}:
            raise ValueError(
                "MaskedPPOTorchRLModule needs observations {'observations', 'action_mask'} "
                "(agents.rllib_policy.rllib_observation)"
            )
        batch = dict(batch)
        batch[Columns.OBS] = obs["observations"]
        return obs["action_mask"], batch

    @staticmethod
    def _mask(outs: dict, mask: Any) -> dict:
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return outs

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def module_path(checkpoint: Path) -> Path:
    """The shared policy's RLModule folder inside an algorithm checkpoint (or ``checkpoint``
    itself when it is that folder)."""
    nested = checkpoint / "learner_group" / "learner" / "rl_module" / SHARED_POLICY
    return nested if nested.is_dir() else checkpoint


_MODULES: dict[str, Any] = {}


def load_module(checkpoint: str | Path) -> Any:
    """The shared RLModule of a checkpoint written by ``experiments.train --backend rllib``,
    loaded once per process.

    Raises:
        ValueError: the folder does not exist or holds no RLModule.
        ImportError: ray[rllib] is not installed.
    """
    path = Path(checkpoint)
    if not path.is_dir():
        raise ValueError(
            f"rllib checkpoint {str(path)!r} is not a folder: pass the checkpoint folder that "
            "experiments.train --backend rllib wrote (<out>/checkpoint)"
        )
    key = str(module_path(path).resolve())
    if key not in _MODULES:
        from ray.rllib.core.rl_module.rl_module import RLModule

        try:
            _MODULES[key] = RLModule.from_checkpoint(key)
        except Exception as err:  # noqa: BLE001 - any load failure means it is not a module checkpoint
            raise ValueError(f"rllib checkpoint {str(path)!r} holds no RLModule: {err}") from None
    return _MODULES[key]


class RLlibAgent(Agent):
    """Plays the shared policy of an RLlib checkpoint: the most likely legal action
    (``deterministic=True``) or one sampled from the masked logits (from ``self.rng``).

    Args:
        checkpoint: the checkpoint folder (``<out>/checkpoint`` of the training job).
        deterministic: argmax (default) or sampling.
        seed: seed of the sampling.

    Raises:
        ValueError: no RLModule checkpoint there.
    """

    name = "rllib"

    def __init__(self, checkpoint: str | Path, deterministic: bool = True, seed: int | None = None):
        super().__init__(seed)
        self.module = load_module(checkpoint)
        self.deterministic = deterministic
        space = getattr(self.module, "observation_space_with_mask", None) or self.module.observation_space
        self.observation_shape = tuple(space["observations"].shape)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The RLlib module's action id for ``observation``: the most likely legal action, or
        one sampled with ``deterministic=False`` (the class docstring).

        Raises:
            ValueError: the observation's shape is not the module's.
        """
        obs = observation["observation"]
        if obs.shape != self.observation_shape:
            raise ValueError(
                f"observation of shape {obs.shape} does not fit this policy, trained on {self.observation_shape}: "
                "play it on the variant and options it was trained with"
            )
        converted = rllib_observation(observation)
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in converted.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy().astype(np.float64)
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("the action mask has no legal action: this agent is not acting now")
        if self.deterministic:
            return int(legal[np.argmax(logits[legal])])
        z = logits[legal] - logits[legal].max()
        p = np.exp(z) / np.exp(z).sum()
        return int(legal[self.rng.choice(legal.size, p=p)])

"""A trained policy as an agent: an sb3-contrib ``MaskablePPO`` ``.zip`` (``experiments.train``)
or a ``.pt`` network of ``experiments.selfplay`` (``agents.torch_policy``)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import TRAIN_EXTRA, Agent, legal_ids, variant_env

_MODELS: dict[tuple[str, float], Any] = {}  # loaded models by (path, modification time)
#: the words of the error for a model built for other observations (another variant or number
#: of players); ``experiments.evaluate`` leaves such panel members out instead of failing
SHAPE_MISMATCH = "was trained on observations of shape"
#: options that leave a hand's play and scoring as they are (where an episode ends, which
#: reward is given, and whole-game scoring a model of single hands never saw): a model plays
#: under other values of these without a warning; any other (a hand's bonuses included) warns
NOT_HAND_RULES = frozenset(
    {"episode", "reward", "max_turns", "max_hands", "target_score", "game_bonuses", "two_player_winner_deals"}
)


def load_model(path: Path) -> Any:
    """A model from a file, loaded once per file and process: a ``MaskablePPO`` ``.zip``,
    or a self-play ``.pt`` (then a :class:`agents.torch_policy.TorchPolicy`).

    Raises:
        ValueError: the file is not such a model, or the library that reads it (torch for
            ``.pt``, sb3-contrib for ``.zip``) is not installed (the message gives the
            install command).
    """
    key = (str(path.resolve()), path.stat().st_mtime)
    model = _MODELS.get(key)
    try:  # a job's agent names are checked before any game: a missing library is a usage error there
        if model is None and path.suffix == ".pt":
            from agents.torch_policy import TorchPolicy
            from agents.torch_policy import load_model as load_torch_model
        elif model is None:
            from agents.sb3_model import load_maskable_ppo
    except ImportError as err:
        raise ValueError(f"policy file {str(path)!r} needs the train extra ({err}): {TRAIN_EXTRA}") from None
    if model is None and path.suffix == ".pt":
        model = _MODELS[key] = TorchPolicy(load_torch_model(path))
    if model is None:
        try:
            model = load_maskable_ppo(path)
        except Exception as err:  # noqa: BLE001 - any load failure means the file is not a model
            raise ValueError(
                f"policy file {str(path)!r} is not a MaskablePPO model ({err}); a file not ending in .pt is "
                "read as the model.zip of experiments.train"
            ) from None
        _MODELS[key] = model
    return model


def trained_extra(model: Any) -> dict[str, Any]:
    """What a self-play ``.pt`` records of its training (``variant``, ``env_options``,
    ``env_config``): the ``extra`` of a network (:class:`agents.torch_policy.ActorCritic`)
    or of a :class:`agents.torch_policy.TorchPolicy`'s network; ``{}`` for other models."""
    return getattr(model, "extra", None) or getattr(getattr(model, "net", None), "extra", None) or {}


def check_fits(model: Any, env: Any, what: str) -> None:
    """Refuse a model whose observations or actions are not ``env``'s (another variant or
    number of players): it could not play there.

    Args:
        model: a loaded model (:func:`load_model`, with ``observation_space`` and
            ``action_space``) or a self-play network (``obs_size``, ``num_actions``).
        env: the env the model is to play.
        what: how messages name the model (``"policy 'policy:PATH'"``).

    Raises:
        ValueError: the observation shape (the message holds :data:`SHAPE_MISMATCH`) or the
            number of actions differs from ``env``'s.
    """
    variant, expected = env.unwrapped.metadata["name"], env.unwrapped.layout.size
    space = getattr(model, "observation_space", None)
    shape = space.shape if space is not None else (model.obs_size,)
    if shape != (expected,):
        trained = trained_extra(model)
        where = f" ({trained['variant']}, options {trained.get('env_options', {})})" if "variant" in trained else ""
        raise ValueError(
            f"{what} {SHAPE_MISMATCH} {shape}{where}, this env's are ({expected},) "
            f"({variant}, {len(env.possible_agents)} players): a model plays the "
            "variant and number of players it was trained on"
        )
    actions = env.action_space(env.possible_agents[0]).n
    space = getattr(model, "action_space", None)
    theirs = getattr(space, "n", actions) if space is not None else model.num_actions
    if theirs != actions:
        raise ValueError(
            f"{what} has {theirs} actions, this env {actions} ({variant}): a model plays the variant it was trained on"
        )


def check_trained_on(model: Any, env: Any, what: str) -> None:
    """Refuse a model recorded as trained on another variant than ``env``'s, and warn when
    it was trained under other rules of a hand than ``env`` plays (its observations and
    actions fit, but what it learned may not hold).

    Only a self-play ``.pt`` records its variant and ``env_options``; other models pass.

    Args:
        model: a loaded model (:func:`load_model`) or a self-play network
            (:class:`agents.torch_policy.ActorCritic`, its ``extra``).
        env: the env the model is to play (``env.unwrapped.game.config``, a dataclass).
        what: how messages name the model (``"policy 'policy:PATH'"``).

    Raises:
        ValueError: the recorded variant is not ``env``'s.

    Warns:
        UserWarning: the recorded options or rules are ones this env no longer takes, or an option
            outside :data:`NOT_HAND_RULES` (``knock_limit``,
            ``wild_rank``, ``initial_meld_points``, ...) has another value in ``env`` than
            in the model's training env, naming each such option with both values (not
            when the training env's value was None: Crazy Rummy's ``wild_rank`` drawn per
            hand covers every rank).
    """
    import dataclasses

    trained = trained_extra(model)
    variant = env.unwrapped.metadata["name"]
    if "variant" not in trained:
        return
    if trained["variant"] != variant:
        raise ValueError(f"{what} is a policy of {trained['variant']}, this env is {variant}")
    config = env.unwrapped.game.config
    theirs = trained.get("env_config")  # every rule, defaults included (models saved since 2026-12-07)
    if not isinstance(theirs, dict):
        options = trained.get("env_options", {})
        try:  # older models: the options given, read with today's defaults
            made = variant_env(variant, options).unwrapped.game.config
        except (TypeError, ValueError) as err:  # an option renamed or removed since the model was trained
            warnings.warn(
                f"{what} was trained on {variant} with options {options!r}, which this env does not take ({err}): "
                "it plays, but whether under the rules it learned cannot be told",
                UserWarning,
                stacklevel=3,
            )
            return
        theirs = dataclasses.asdict(made)
    differ = [
        f"{f.name}={theirs[f.name]!r} (this env {getattr(config, f.name)!r})"
        for f in dataclasses.fields(config)
        # an option added since the model was trained is not recorded: nothing to compare (a
        # new option's default keeps the old rules); None in training (Crazy Rummy's
        # wild_rank: drawn per hand) covers every value
        if f.name not in NOT_HAND_RULES and f.name in theirs and theirs[f.name] not in (None, getattr(config, f.name))
    ]
    known = {f.name for f in dataclasses.fields(config)}
    gone = sorted(k for k in theirs if k not in known and k not in NOT_HAND_RULES)
    if gone:  # a rule removed since training: the env cannot play it, the model may count on it
        differ.append(f"{', '.join(f'{k}={theirs[k]!r}' for k in gone)} (rules this env no longer has)")
    if differ:
        warnings.warn(
            f"{what} was trained on {variant} with {', '.join(differ)}: it plays, but under rules it did not learn",
            UserWarning,
            stacklevel=3,
        )


class PolicyAgent(Agent):
    """Plays a saved model: the model's action for the observation, among the legal
    actions of the mask.

    Args:
        path: the model's file: a ``.zip`` (``experiments.train`` writes ``model.zip``)
            or a ``.pt`` (``experiments.selfplay`` writes ``model.pt``).
        deterministic: take the most likely legal action (default) or sample one from
            the policy's masked distribution.
        seed: the sampling's generator (``self.rng``; the same seed plays the same
            actions); unused with ``deterministic=True``.
        model: an already loaded model instead of ``path`` (e.g. a frozen self-play copy).

    Raises:
        ValueError: the file does not exist or is not a model, or sb3-contrib (``.zip``)
            or torch (``.pt``) is not installed (the message gives the install command).
    """

    name = "policy"

    def __init__(
        self, path: str | Path | None = None, deterministic: bool = True, seed: int | None = None, model: Any = None
    ):
        super().__init__(seed)
        self.deterministic = deterministic
        if model is None:
            path = Path(path) if path is not None and str(path) else None
            if path is None or not path.is_file():
                why = "is a folder" if path is not None and path.is_dir() else "does not exist"
                what = "no policy file given" if path is None else f"policy file {str(path)!r} {why}"
                raise ValueError(
                    f"{what}: pass the model.zip that experiments.train wrote or the model.pt of experiments.selfplay"
                )
            model = load_model(path)
        self.model = model

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The model's action id for ``observation``: the most likely legal action, or one
        sampled with ``deterministic=False``.

        Raises:
            TypeError: not the env's observation dict (:func:`agents.base.legal_ids`).
            ValueError: the observation's shape is not the one the model was trained on,
                it holds NaN or an infinity, or the mask is not one entry per action.
        """
        legal_ids(observation)  # not an observation dict, or a mask with no legal action
        obs = observation.get("observation")
        expected = self.model.observation_space.shape
        if not isinstance(obs, np.ndarray) or obs.shape != expected:
            shape = obs.shape if isinstance(obs, np.ndarray) else type(obs).__name__
            raise ValueError(
                f"observation of shape {shape} does not fit this policy, trained on {expected}: "
                "play it on the variant and options it was trained with"
            )
        if not np.isfinite(obs).all():
            raise ValueError("the observation holds NaN or an infinity: it is not one an env wrote")
        mask = np.asarray(observation["action_mask"])
        actions = self.model.action_space.n
        if mask.shape != (actions,):
            raise ValueError(f"action mask of shape {mask.shape}, but this policy has {actions} actions")
        mask = mask.astype(bool)
        if not self.deterministic:
            p = policy_probabilities(self.model, obs, mask)
            return int(self.rng.choice(p.size, p=p))
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)


def policy_probabilities(model: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The masked action distribution of a loaded model (:func:`load_model`) for one observation.

    Args:
        model: a :class:`agents.torch_policy.TorchPolicy` or an sb3-contrib ``MaskablePPO``.
        obs: float32 ``(obs_size,)``.
        mask: bool ``(num_actions,)``, at least one True.

    Returns:
        float64 ``(num_actions,)``, 0 on illegal actions, summing to 1, so that the caller
        samples with its own generator (torch's global one would tie the play to whatever
        else used it).
    """
    if hasattr(model, "probabilities"):
        return model.probabilities(obs, mask)
    import torch

    with torch.no_grad():
        tensor, _ = model.policy.obs_to_tensor(obs)
        dist = model.policy.get_distribution(tensor, action_masks=mask)
        p = dist.distribution.probs[0].double().cpu().numpy() * mask
    return p / p.sum()

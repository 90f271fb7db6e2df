"""The masked actor-critic network of ``experiments.selfplay`` and its ``.pt`` file format.

A model file is a ``torch.save`` dict ``{"format": FORMAT, "config": {...}, "state_dict":
{...}}``; ``config`` holds everything needed to rebuild the network (``obs_size``,
``num_actions``, ``hidden``, ``variant``, ``env_options``; since 2026-12-07 also
``env_config``, every rule of the training env with its defaults, which
``agents.policy.check_trained_on`` compares with the env a model plays), so that
``agents.PolicyAgent("model.pt")`` plays it without the trainer.  The file holds tensors
and plain Python values only, and loads with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from torch import nn

FORMAT = "rummy_env.selfplay/1"

try:  # the first layer from the input's nonzeros (the fast extra); the dense layer otherwise
    from agents.sparse_input import MIN_ROWS as _SPARSE_MIN_ROWS
    from agents.sparse_input import first_layer as _sparse_first_layer
except ImportError:  # pragma: no cover - numba missing
    _sparse_first_layer, _SPARSE_MIN_ROWS = None, 0

#: The logit of an illegal action: its softmax probability underflows to exactly 0 in
#: float32 (exp(-1e9) == 0), and a finite value keeps a row's log-softmax free of NaN.
ILLEGAL_LOGIT = -1e9


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the illegal entries (``mask`` False/0) set to :data:`ILLEGAL_LOGIT`.

    Args:
        logits: float ``(batch, num_actions)``.
        mask: bool or int ``(batch, num_actions)``; every row needs one legal action.
    """
    return torch.where(mask.bool(), logits, torch.full_like(logits, ILLEGAL_LOGIT))


class ActorCritic(nn.Module):
    """An MLP trunk with a policy head (one logit per action id) and a value head.

    The input is standardized by running statistics held as buffers (``obs_mean``,
    ``obs_var``, ``obs_count`` and ``obs_scale = 1 / sqrt(obs_var + 1e-6)``), updated by
    :meth:`update_normalizer` during training and saved with the weights: the
    observations hold counts (stock size, deadwood points, turn) next to 0/1 planes.

    Args:
        obs_size: length of the env's flat observation.
        num_actions: size of the action space.
        hidden: widths of the hidden layers (ReLU).
        features: input features appended to the observation (``agents.policy_features``:
            ``"none"``, ``"meld"``, ``"gin"``); the network's input is
            ``obs_size + FEATURES[features]`` wide and the caller appends them.

    Raises:
        ValueError: unknown ``features``, or a size (``obs_size``, ``num_actions``, a
            hidden width) not positive.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = (256, 256), features: str = "none"):
        super().__init__()
        from agents.policy_features import FEATURES

        if features != "none" and features not in FEATURES:
            raise ValueError(f"unknown features {features!r}: use none, {', '.join(FEATURES)}")
        self.features = features
        input_size = obs_size + (FEATURES[features] if features != "none" else 0)
        if obs_size <= 0 or num_actions <= 0 or not hidden or min(hidden) <= 0:
            raise ValueError(
                f"ActorCritic needs positive sizes, got obs_size={obs_size}, num_actions={num_actions}, "
                f"hidden={list(hidden)}"
            )
        self.obs_size, self.num_actions, self.hidden = int(obs_size), int(num_actions), [int(h) for h in hidden]
        layers: list[nn.Module] = []
        width = input_size
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, num_actions)
        self.value_head = nn.Linear(width, 1)
        # small policy logits at the start: a near-uniform policy over the legal actions
        nn.init.orthogonal_(self.policy_head.weight, gain=0.01)
        nn.init.zeros_(self.policy_head.bias)
        self.register_buffer("obs_mean", torch.zeros(input_size))
        self.register_buffer("obs_var", torch.ones(input_size))
        self.register_buffer("obs_count", torch.zeros((), dtype=torch.float64))
        self.register_buffer("obs_scale", torch.ones(input_size))

    def config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            "hidden": list(self.hidden),
            "features": self.features,
        }

    @torch.no_grad()
    def update_normalizer(self, obs: torch.Tensor) -> None:
        """Fold a batch ``(n, obs_size)`` into the running mean and variance (Chan et al.)."""
        n = obs.shape[0]
        if n == 0:
            return
        if obs.is_cuda:
            mean, var = obs.mean(0), obs.var(0, unbiased=False)
        else:  # numpy's sums are ~10x faster than torch's single-threaded var on the CPU
            x = obs.detach().numpy()
            s1 = x.sum(0, dtype=np.float64)
            s2 = np.einsum("ij,ij->j", x, x, dtype=np.float64)
            mean64 = s1 / n
            mean = torch.from_numpy(mean64.astype(np.float32))
            var = torch.from_numpy(np.maximum(s2 / n - mean64 * mean64, 0.0).astype(np.float32))
        total = self.obs_count + n
        delta = mean - self.obs_mean
        w = float(n / total)
        self.obs_mean += delta * w
        self.obs_var.copy_(
            (self.obs_var * float(self.obs_count) + var * n + delta**2 * float(self.obs_count) * w) / float(total)
        )
        self.obs_count.fill_(float(total))
        # kept rather than computed per call: a sqrt per forward cost ms in single-sample play
        self.obs_scale.copy_(1.0 / torch.sqrt(self.obs_var + 1e-6))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw (unmasked) logits ``(batch, num_actions)`` and values ``(batch,)``.

        Batches of ``agents.sparse_input.MIN_ROWS`` rows or more on the CPU compute the first
        layer from the input's nonzero entries (exact up to float rounding; numba)."""
        if _sparse_first_layer is not None and obs.dim() == 2 and obs.shape[0] >= _SPARSE_MIN_ROWS and not obs.is_cuda:
            z = self.trunk[1:](_sparse_first_layer(self.trunk[0], obs, self.obs_mean, self.obs_scale))
        else:
            z = self.trunk(((obs - self.obs_mean) * self.obs_scale).clamp(-10.0, 10.0))
        return self.policy_head(z), self.value_head(z).squeeze(-1)

    @torch.no_grad()
    def act(self, obs: torch.Tensor, mask: torch.Tensor, deterministic: bool = False) -> torch.Tensor:
        """Legal actions ``(batch,)`` int64: sampled from the masked softmax, or its argmax."""
        logits = masked_logits(self(obs)[0], mask)
        return logits.argmax(-1) if deterministic else sample_masked(logits)[0]


def sample_masked(logits: torch.Tensor, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one action per row of masked logits, with its log-probability.

    Gumbel-max: ``argmax(logits + G)``, ``G = -log(-log(U))``, ``U`` uniform in (0, 1),
    is a draw from ``softmax(logits)`` (and several times faster than
    ``torch.distributions.Categorical`` on small batches).  An illegal entry
    (:data:`ILLEGAL_LOGIT`) plus a Gumbel noise below ~40 in float32 never wins against
    a legal one, so illegal actions are never drawn.

    Returns:
        ``(actions int64 (batch,), log_probs float32 (batch,))``.
    """
    u = torch.rand(logits.shape, generator=generator).clamp_(1e-10, 1.0 - 1e-7)
    actions = (logits - torch.log(-torch.log(u))).argmax(-1)
    logp = torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)
    return actions, logp


def save_model(path: str | Path, model: ActorCritic, **extra: Any) -> None:
    """Write ``model`` (weights, normalizer, config) to ``path``; ``extra`` (plain values,
    e.g. ``variant``, ``env_options``) goes into the config."""
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    # written beside the file, then renamed: a job quit while it writes keeps the previous model whole
    path = Path(path)
    part = path.with_name(path.name + ".part")
    torch.save({"format": FORMAT, "config": {**model.config(), **extra}, "state_dict": state}, part)
    os.replace(part, path)


def _zip_of_another_kind(path: str | Path) -> bool:
    """Whether ``path`` is a zip archive that is no torch file (torch's are zips too, each
    with a ``<name>/data.pkl``; an SB3 ``model.zip`` has none): torch's own error then
    says nothing useful, while for a torch file (a newer version, say) it does."""
    try:
        with zipfile.ZipFile(path) as z:
            return not any(n.endswith("/data.pkl") for n in z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def load_model(path: str | Path) -> ActorCritic:
    """The network saved by :func:`save_model` (in eval mode, on the CPU).

    Raises:
        ValueError: the file does not exist, is a folder, or is not such a model (an SB3
            ``model.zip`` among them).
    """
    if Path(path).is_dir():
        raise ValueError(f"policy file {str(path)!r} is a folder, not a model file")
    if not Path(path).exists():
        raise ValueError(f"policy file {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any load failure means the file is not a model
        first = (str(err).strip().splitlines() or [""])[0][:200]  # torch's first line, not its advice
        if "Weights only load failed" in first:  # a pickle of objects, which a model file never holds
            first = "it holds objects, not only tensors and plain data"
        elif _zip_of_another_kind(path):
            first = "a zip archive of another kind (an SB3 model.zip?), not the model.pt of experiments.selfplay"
        raise ValueError(
            f"policy file {str(path)!r} is not a torch model file (torch.load: {type(err).__name__}: {first})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"policy file {str(path)!r} is not a {FORMAT} model (experiments.selfplay writes them)")
    try:
        cfg = data["config"]
        model = ActorCritic(cfg["obs_size"], cfg["num_actions"], cfg["hidden"], cfg.get("features", "none"))
        model.load_state_dict(data["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, ImportError) as err:
        # a field missing or of another type: the file was edited or written by other code
        raise ValueError(
            f"policy file {str(path)!r} does not hold a complete {FORMAT} model: {type(err).__name__}: {err}"
        ) from None
    bad = [k for k, v in model.state_dict().items() if v.is_floating_point() and not torch.isfinite(v).all()]
    if bad:
        raise ValueError(f"policy file {str(path)!r} holds NaN or infinite values in {', '.join(bad)}: a damaged model")
    model.extra = {k: v for k, v in cfg.items() if k not in ("obs_size", "num_actions", "hidden", "features")}
    model.eval()
    return model


def widen_inputs(model: ActorCritic, features: str) -> ActorCritic:
    """``model`` with the input features ``features``, a feature set that extends its own
    (``agents.policy_features.EXTENDS``: the same entries first, more after them).

    The new inputs get zero weights in the first layer (and a normalizer of mean 0,
    variance 1), so the widened network computes exactly what ``model`` does until
    training moves those weights (Net2Net-style function-preserving growth: Chen,
    Goodfellow and Shlens 2016).

    Raises:
        ValueError: ``features`` does not extend ``model.features``.
    """
    from agents.policy_features import EXTENDS

    base = features
    while base in EXTENDS and base != model.features:
        base = EXTENDS[base]
    if base != model.features or features == model.features:
        raise ValueError(
            f"features {features!r} do not extend the model's {model.features!r} "
            f"(extensions: {', '.join(f'{k} of {v}' for k, v in EXTENDS.items())})"
        )
    wide = ActorCritic(model.obs_size, model.num_actions, model.hidden, features)
    state = model.state_dict()
    old = state["obs_mean"].numel()
    for key, value in wide.state_dict().items():
        if key == "trunk.0.weight":
            value.zero_()
            value[:, :old] = state[key]
        elif key in ("obs_mean", "obs_var", "obs_scale"):
            value[:old] = state[key]
        else:
            value.copy_(state[key])
    wide.extra = dict(getattr(model, "extra", {}))
    return wide


class TorchPolicy:
    """A loaded :class:`ActorCritic` with the few attributes ``agents.PolicyAgent`` and the
    registry read from SB3 models (``observation_space``, ``action_space``, ``predict``)."""

    def __init__(self, net: ActorCritic):
        self.net = net
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (net.obs_size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(net.num_actions)
        self.featurize = lambda x: x
        if net.features != "none":
            from agents.base import variant_env
            from agents.policy_features import Featurizer

            variant, options = net.extra["variant"], net.extra.get("env_options", {})
            layout = variant_env(variant, options).unwrapped.layout
            self.featurize = Featurizer(net.features, variant, layout)

    def probabilities(self, obs: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's distribution over the legal actions of one observation.

        Args:
            obs: float32 ``(obs_size,)``, the env's flat observation.
            action_masks: int8 or bool ``(num_actions,)``, at least one legal action.

        Returns:
            float64 ``(num_actions,)``: the masked softmax, 0 on illegal actions, summing to 1.
        """
        with torch.no_grad():
            x = torch.from_numpy(self.featurize(np.array(obs, dtype=np.float32).reshape(1, -1)))
            m = torch.as_tensor(np.asarray(action_masks, dtype=bool)).reshape(1, -1)
            logits = masked_logits(self.net(x)[0], m)[0].double()
        p = torch.softmax(logits, -1).numpy() * m[0].numpy()  # illegal logits are finite: zero them exactly
        return p / p.sum()

    def predict(self, obs: np.ndarray, action_masks: np.ndarray, deterministic: bool = True) -> tuple[np.ndarray, None]:
        """The action for one observation (like SB3's ``predict``): an int64 scalar array.

        Args:
            obs: float32 ``(obs_size,)``, the env's flat observation (features appended here).
            action_masks: int8 or bool ``(num_actions,)``, at least one legal action.
            deterministic: the most likely legal action, else one drawn from the policy.
        """
        with torch.no_grad():
            x = torch.from_numpy(self.featurize(np.array(obs, dtype=np.float32).reshape(1, -1)))
            m = torch.as_tensor(np.asarray(action_masks, dtype=bool)).reshape(1, -1)
            return self.net.act(x, m, deterministic=deterministic).numpy()[0], None

"""A search as self-play's teacher (``--teacher-labels``): expert iteration's imitation step.

Kickstarting (Schmitt et al. 2018) with the heuristic as teacher brings the policy to the
heuristic's level and no further: its targets are the heuristic's actions.  With
``--teacher-labels`` the targets are instead the decisions of a search that beats the
heuristic (``experiments.pimc_labels``: ``pimc`` against the heuristic), the imitation
step of expert iteration (Anthony, Tian and Barber 2017).  Each minibatch of the PPO
update adds the cross-entropy to the search's choice on a minibatch of labelled
positions, with the kickstarting weight and its schedule (``--kickstart``,
``--kickstart-anneal``, ``--kickstart-floor``); the PPO terms are unchanged.

``--teacher-margin m``: a label is the search's best action only where its value (on
single hands 0..1, a win probability over the search's worlds; on labels of whole games a
points margin, see ``experiments.pimc_labels``) beats that of the heuristic's own choice by
more than ``m``, and the heuristic's choice elsewhere: the search's near-ties are noise
of its sampled worlds, and the heuristic breaks them as the policy's other teacher did.
A share of the positions (whole games, :data:`HOLDOUT_SHARE`) is held out: the trainer
logs how often the policy's most likely action is the label there (``teacher_acc``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: share of the label files' games kept out of training, to measure agreement on
HOLDOUT_SHARE = 0.05


def teacher_targets(values: np.ndarray, search: np.ndarray, heuristic: np.ndarray, margin: float) -> np.ndarray:
    """Each labelled position's target action.

    Args:
        values: float32 ``(N, num_actions)``: the search's value of each action, NaN for
            illegal ones.
        search: int64 ``(N,)``: the search's choice (its best value).
        heuristic: int64 ``(N,)``: the heuristic's choice.
        margin: the lead over the heuristic's choice's value (0..1) that the search's
            choice needs to be the target; 0: always the search's choice.

    Returns:
        int64 ``(N,)``: ``search`` where ``values[search] - values[heuristic] > margin``
        (or ``margin`` is 0), else ``heuristic``.

    Raises:
        ValueError: a margin outside [0, 1], or a heuristic choice that is illegal.
    """
    if not 0.0 <= margin <= 1.0:
        raise ValueError(f"teacher_margin={margin}: a value lead in [0, 1] (0: always the search's choice)")
    rows = np.arange(len(search))
    mine = values[rows, heuristic]
    if np.isnan(mine).any():
        raise ValueError(f"{int(np.isnan(mine).sum())} labels' heuristic choice has no value (an illegal action)")
    if margin == 0.0:
        return search.astype(np.int64)
    lead = values[rows, search] - mine
    return np.where(lead > margin, search, heuristic).astype(np.int64)


def _same_rules(variant: str, a: dict, b: dict) -> bool:
    """Whether two ``env()`` option sets give the same game (the defaults spelled out or
    left out alike): their engines' configs compared, the dicts where one is refused."""
    from experiments.common import load_variant

    try:
        module = load_variant(variant)
        return module.raw_env(**a).game.config == module.raw_env(**b).game.config
    except (TypeError, ValueError):
        return a == b


class TeacherLabels:
    """The labelled positions of one or more ``pimc_labels`` files, featurized for the net.

    Args:
        paths: the ``.npz`` files.
        variant: the run's variant (every file must be of it).
        featurize: the run's ``Featurizer`` (raw observations -> network input).
        num_actions: the env's action count.
        margin: ``--teacher-margin`` (:func:`teacher_targets`).
        rng: draws the held-out games and the minibatches.
        observation_size: the env's observation size (it differs with the number of
            players); None: not checked.
        env_options: the run's ``env()`` options: labels made under others are used with
            a warning (the search chose under their rules); None: not compared.

    Raises:
        ValueError: no file, a file of another variant, action count or observation size
            (labels made with another number of players), or no position left to train on.
    """

    def __init__(
        self,
        paths: Sequence[str],
        variant: str,
        featurize: Callable[[np.ndarray], np.ndarray],
        num_actions: int,
        margin: float,
        rng: np.random.Generator,
        observation_size: int | None = None,
        env_options: dict | None = None,
    ):
        import warnings

        import torch

        from experiments.pimc_labels import load_labels

        if not paths:
            raise ValueError("teacher_labels: no file given")
        xs, masks, ys, games, offset = [], [], [], [], 0
        for path in paths:
            d = load_labels(path)
            if d["meta"]["variant"] != variant:
                raise ValueError(f"{path}: labels of {d['meta']['variant']}, but the run trains {variant}")
            if d["mask"].shape[1] != num_actions:
                raise ValueError(f"{path}: {d['mask'].shape[1]} actions per label, the env has {num_actions}")
            width = d["observation"].shape[1]
            if observation_size is not None and width != observation_size:
                made = d["meta"].get("env_options", {})
                raise ValueError(
                    f"{path}: observations of size {width} (labels made with env options {made}), but the run's "
                    f"env has {observation_size}: make labels with the run's --env-option (num_players)"
                )
            made = d["meta"].get("env_options", {})
            if env_options is not None and not _same_rules(variant, made, env_options):
                warnings.warn(
                    f"{path}: labels made with env options {made}, the run uses {env_options}: the search "
                    "chose its moves under the labels' rules",
                    UserWarning,
                    stacklevel=2,
                )
            xs.append(featurize(d["observation"]))
            masks.append(d["mask"])
            ys.append(teacher_targets(d["values"], d["search"], d["heuristic"], margin))
            games.append(d["game"] + offset)
            offset += int(d["meta"]["games"])
        game = np.concatenate(games)
        held = rng.random(offset) < HOLDOUT_SHARE
        test = held[game]
        x, m, y = np.concatenate(xs), np.concatenate(masks), np.concatenate(ys)
        if (~test).sum() == 0:
            raise ValueError(f"teacher_labels: no labelled position to train on in {', '.join(paths)}")
        self.x, self.mask, self.y = (torch.from_numpy(a[~test]) for a in (x, m, y))
        self.test = tuple(torch.from_numpy(a[test]) for a in (x, m, y))
        self.rng = rng

    def __len__(self) -> int:
        return len(self.y)

    def sample(self, size: int):
        """A minibatch of ``size`` training positions (with replacement): inputs float32
        ``(size, input_size)``, masks bool ``(size, num_actions)``, targets int64 ``(size,)``."""
        import torch

        j = torch.from_numpy(self.rng.integers(len(self.y), size=size))
        return self.x[j], self.mask[j], self.y[j]

    def agreement(self, net) -> float:
        """Share of the held-out positions where ``net``'s most likely legal action is the
        target (NaN without held-out positions)."""
        import torch

        from agents.torch_policy import masked_logits

        device = next(net.parameters()).device
        x, m, y = (t.to(device) for t in self.test)
        if len(y) == 0:
            return float("nan")
        with torch.inference_mode():
            return float((masked_logits(net(x)[0], m).argmax(1) == y).float().mean())

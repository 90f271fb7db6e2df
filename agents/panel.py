"""The opponent panel of each variant: a fixed, versioned list of agents to measure against.

A strength figure against one opponent says little when the agent was built around that
opponent (issue 25).  The panel of a variant is a documented list of agent names, the
same for everyone, that :func:`agents.make_agent` builds: diverse on purpose.

Members, in this order:

- ``random``: uniformly random legal moves;
- ``heuristic``: the variant's heuristic (its default style);
- ``heuristic:style=NAME``: three or more other styles of play of that heuristic (their
  docstrings: ``agents.gin_heuristic``, ``rummy_heuristic``, ``crazy_heuristic``,
  ``rummikub_heuristic``; Rummikub's ``patient`` is
  ``agents.rummikub_patient.PatientAgent``);
- ``pimc:model=1``: determinized search (``agents.search``) with uniform worlds, no
  opponent model fitted to the heuristic (on basic Rummy, Crazy Rummy and Rummikub that
  is ``pimc``'s default; on Gin Rummy plain ``pimc`` weighs its worlds by the heuristic,
  ``model=0``);
- ``policy:PATH``: the variant's committed learned models (``docs/results/``; Gin Rummy
  has two: the self-play model and its league fine-tuning; Crazy Rummy two: the first
  self-play model and the ``crazy_discard`` one; Rummikub two: the ``rk_out`` model and
  the ``rk_plan`` one).  Not members: the Stable-Baselines3 models (``sb3-gin/``,
  ``sb3-rummy/``: ten minutes of training each, a demonstration of that integration,
  weaker than the self-play models) and the Crazy Rummy steps between the first model
  and ``crazy_discard`` (``selfplay-crazy-out/``, ``selfplay-crazy-safe/``: the same recipe
  family, a member each side of them already);
- ``openspiel_gin_bot`` (Gin Rummy only): OpenSpiel's simple Gin Rummy bot as an agent
  of ours (it needs the ``reference`` extra, open_spiel).

A change of any list is a new :data:`PANEL_VERSION` (figures measured against different
panels do not compare): version 2 added the learned models committed after version 1
(``docs/results/selfplay-crazy/``, ``selfplay-rummikub/`` and ``selfplay-gin-league/``;
Crazy Rummy's is the model of 2026-12-03); version 3 (2026-12-05) gave Rummikub a
third style of its own besides ``patient`` (``big_plays``), and Crazy Rummy and
Rummikub their strongest learned models (``selfplay-crazy-discard/``,
``selfplay-rummikub-plan/``); the Gin and Rummy lists are unchanged.  A member's
model file is part of the panel: a new model under a member's path is a new version too.

    from agents.panel import panel
    panel("gin_rummy")                       # every member, model paths made absolute
    panel("gin_rummy", available_only=True)  # without the members this install cannot build
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

from agents.base import TRAIN_EXTRA, env_name

#: Version of :data:`PANELS`: bump it whenever a list changes.
PANEL_VERSION = 3

#: The repository (``docs/results/...`` model paths of the panels are relative to it).
ROOT = Path(__file__).resolve().parents[1]

#: The panel of each variant (env name), version :data:`PANEL_VERSION`, as written: model
#: paths relative to :data:`ROOT` (:func:`panel` makes them absolute).
PANELS: dict[str, tuple[str, ...]] = {
    "gin_rummy_v0": (
        "random",
        "heuristic",
        "heuristic:style=gin_hunter",
        "heuristic:style=defensive",
        "heuristic:style=upcard_meld_only",
        "pimc:model=1",
        "policy:docs/results/selfplay-gin/model.pt",
        "policy:docs/results/selfplay-gin-league/model.pt",
        "openspiel_gin_bot",
    ),
    "rummy_v0": (
        "random",
        "heuristic",
        "heuristic:style=go_rummy",
        "heuristic:style=defensive",
        "heuristic:style=shed_high",
        "pimc:model=1",
        "policy:docs/results/selfplay-rummy/model.pt",
    ),
    "crazy_rummy_v0": (
        "random",
        "heuristic",
        "heuristic:style=hold_wilds",
        "heuristic:style=shed_high",
        "heuristic:style=defensive",
        "pimc:model=1",
        "policy:docs/results/selfplay-crazy/model.pt",
        "policy:docs/results/selfplay-crazy-discard/model.pt",
    ),
    "rummikub_v0": (
        "random",
        "heuristic",
        "heuristic:style=patient",
        "heuristic:style=hold_jokers",
        "heuristic:style=most_tiles",
        "heuristic:style=big_plays",
        "pimc:model=1",
        "policy:docs/results/selfplay-rummikub/model.pt",
        "policy:docs/results/selfplay-rummikub-plan/model.pt",
    ),
}

#: What a member needs beyond the base install: (importable module, extra, install hint).
_NEEDS = {
    "openspiel_gin_bot": ("pyspiel", "reference", 'pip install -e ".[reference]"'),
    "policy:": ("torch", "train", TRAIN_EXTRA),
}
POLICY_PREFIX = "policy:"


def panel_variant(variant: str) -> str:
    """``"gin_rummy"`` or ``"gin_rummy_v0"`` -> ``"gin_rummy_v0"``.

    Raises:
        ValueError: not a variant with a panel (the message lists them).
    """
    full = env_name(variant, PANELS)
    if not isinstance(variant, str) or full not in PANELS:
        raise ValueError(
            f"no opponent panel for variant {variant!r}: panels exist for {', '.join(PANELS)} "
            "(or the names without _v0)"
        )
    return full


def resolve(name: str) -> str:
    """A panel member's agent name usable from any working directory: ``policy:PATH``
    with a relative ``PATH`` becomes ``policy:`` + the absolute path under :data:`ROOT`;
    other names are returned as they are."""
    if name.startswith(POLICY_PREFIX):
        path = Path(name[len(POLICY_PREFIX) :])
        if not path.is_absolute():
            return POLICY_PREFIX + str(ROOT / path)
    return name


def missing(name: str) -> str | None:
    """Why this install cannot build the panel member ``name`` (a resolved or written
    name), or None when it can: an optional extra that is not installed, or a model
    file that is not there."""
    key = POLICY_PREFIX if name.startswith(POLICY_PREFIX) else name
    if key in _NEEDS:
        module, extra, hint = _NEEDS[key]
        if importlib.util.find_spec(module) is None:
            return f"it needs the {extra} extra ({module} is not installed: {hint})"
    if key == POLICY_PREFIX:
        path = Path(resolve(name)[len(POLICY_PREFIX) :])
        if not path.is_file():
            return f"its model file {str(path)!r} does not exist"
    return None


def panel(variant: str, available_only: bool = False) -> list[str]:
    """The opponent panel of ``variant`` (version :data:`PANEL_VERSION`): agent names
    for :func:`agents.make_agent`, in the documented order, model paths absolute
    (:func:`resolve`).

    Args:
        variant: ``"gin_rummy_v0"`` or ``"gin_rummy"`` (likewise for each variant).
        available_only: drop the members this install cannot build (:func:`missing`:
            OpenSpiel's bot without the ``reference`` extra, a ``policy:`` without
            torch), each with a ``UserWarning`` saying why and what to install.  Without
            it every member is listed, and building one that cannot be built fails then.

    Returns:
        list of agent names (str).

    Raises:
        ValueError: a variant without a panel (the message lists them).
    """
    full = panel_variant(variant)
    names = [resolve(name) for name in PANELS[full]]
    if not available_only:
        return names
    kept = []
    for name in names:
        reason = missing(name)
        if reason is None:
            kept.append(name)
        else:
            warnings.warn(
                f"opponent panel v{PANEL_VERSION} of {full} without {name!r}: {reason}", UserWarning, stacklevel=2
            )
    return kept

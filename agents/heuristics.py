"""The heuristic agent of each variant and its styles of play, by name: ``heuristic`` and
``heuristic:style=NAME`` (each agent's docstring says how its styles play)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent
from agents.crazy_heuristic import STYLES as CRAZY_STYLES
from agents.crazy_heuristic import CrazyRummyHeuristicAgent
from agents.gin_heuristic import STYLES as GIN_STYLES
from agents.gin_heuristic import GinHeuristicAgent
from agents.rummikub_heuristic import STYLES as RUMMIKUB_STYLES
from agents.rummikub_heuristic import RummikubMaxPlayAgent
from agents.rummikub_patient import PatientAgent
from agents.rummy_heuristic import STYLES as RUMMY_STYLES
from agents.rummy_heuristic import RummyHeuristicAgent
from agents.styles import check_style


def _rummy_heuristic(env: Any, seed: int | None, style: str = "default") -> Agent:
    raw = env.unwrapped
    return RummyHeuristicAgent(raw.layout, ace_high=raw.game.config.ace_high, seed=seed, style=style)


def _rummikub_heuristic(env: Any, seed: int | None, style: str = "default") -> Agent:
    if style == "patient":
        return PatientAgent(env, seed)
    config = env.unwrapped.game.config
    return RummikubMaxPlayAgent(
        env.unwrapped.layout, config.initial_meld_points, config.initial_meld_table_play, seed=seed, style=style
    )


#: Heuristic factories per variant (env ``metadata["name"]``), called as
#: ``factory(env, seed)`` for the default style or ``factory(env, seed, style)``.
HEURISTICS: dict[str, Callable[..., Agent]] = {
    "rummy_v0": _rummy_heuristic,
    "crazy_rummy_v0": lambda env, seed, style="default": CrazyRummyHeuristicAgent(
        env.unwrapped.layout, seed=seed, style=style
    ),
    "gin_rummy_v0": lambda env, seed, style="default": GinHeuristicAgent(env.unwrapped.layout, seed=seed, style=style),
    "rummikub_v0": _rummikub_heuristic,
}

#: Styles of play of each variant's heuristic, ``heuristic:style=NAME`` (``default``
#: first: the plain ``heuristic``).  Each agent's docstring says how its styles play;
#: Rummikub's ``patient`` is :class:`agents.rummikub_patient.PatientAgent`.
STYLES: dict[str, tuple[str, ...]] = {
    "rummy_v0": RUMMY_STYLES,
    "crazy_rummy_v0": CRAZY_STYLES,
    "gin_rummy_v0": GIN_STYLES,
    "rummikub_v0": (*RUMMIKUB_STYLES, "patient"),
}


def heuristic_styles(variant: str) -> tuple[str, ...]:
    """The styles of ``variant``'s heuristic (e.g. ``"gin_rummy_v0"``), ``"default"`` first.

    Raises:
        ValueError: a variant without a heuristic (the message lists the variants).
    """
    if variant not in STYLES:
        raise ValueError(f"no heuristic for {variant!r}: variants with one are {', '.join(STYLES)}")
    return STYLES[variant]


def style_id(variant: str, style: str) -> int:
    """The style id of ``style`` (its index in :func:`heuristic_styles`): what the
    compiled heuristics take (``agents.search.gin_fast`` / ``rummy_fast``,
    ``experiments.selfplay.opponents.compiled_heuristic``).

    Raises:
        ValueError: a variant without a heuristic, or not one of its styles.
    """
    return check_style(style, heuristic_styles(variant), variant)


def heuristic_style(name: str, variant: str) -> str:
    """The style named by ``"heuristic"`` (``"default"``) or ``"heuristic:style=NAME"``.

    Raises:
        ValueError: another option than ``style``, an option given twice, or a style the
            variant's heuristic does not have (the messages list its styles).
    """
    styles = heuristic_styles(variant)
    _, _, rest = name.partition(":")
    style = "default"
    items = rest.split(",") if rest else []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key != "style" or len(items) > 1:
            raise ValueError(
                f"agent {name!r}: heuristic takes one option, style; write heuristic:style=NAME "
                f"with a style of {variant}: {', '.join(styles)}"
            )
        style = value
    try:
        check_style(style, styles, variant)
    except ValueError as err:
        raise ValueError(f"agent {name!r}: {err}") from None
    return style

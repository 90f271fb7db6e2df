"""Which options a command line gives: a resumed run (``selfplay --resume``, ``train
--resume``) takes the options given again and keeps its own for the others."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def given_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The destinations (``dest``) of the options that ``argv`` gives, however written:
    abbreviated (``--time`` for ``--timesteps``, which argparse takes), with ``=`` or not.
    ``argv`` is parsed again into a namespace whose every destination holds a mark, which
    argparse keeps where no option is given (it sets a default only where the namespace has
    none); the parser is not changed.

    Raises:
        SystemExit: ``argv`` is not a valid command line of ``parser`` (parse it first).
    """
    unset = object()
    # an append option adds to what the namespace holds: None is its empty list
    appends = {a.dest for a in parser._actions if isinstance(a, argparse._AppendAction)}
    marks = {a.dest: None if a.dest in appends else unset for a in parser._actions if a.dest != argparse.SUPPRESS}
    parsed = vars(parser.parse_args(list(argv), namespace=argparse.Namespace(**marks)))
    return {k for k, v in parsed.items() if v is not unset and not (k in appends and v is None)}


def given_settings(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """:func:`given_options` named as the jobs' settings: ``env_options`` for ``--env-option``
    (the option appends one ``NAME=VALUE`` at a time to what the setting holds parsed).

    Raises:
        SystemExit: as :func:`given_options`.
    """
    return {"env_options" if k == "env_option" else k for k in given_options(parser, argv)}


def seed_refusal(name: str, value: int, high: int | None = None, why: str = "") -> str | None:
    """The one message by which the jobs refuse a seed, or None when ``value`` is one: an int
    from 0 to ``high`` (``high=None``: no upper bound).  ``name`` is the flag (``--seed``) or
    the setting (``seed``); ``why`` says what bounds it (who takes the seed).  Every job words
    the refusal alike: ``"--seed must be an int from 0 to 4294967295 (why), got 4294967296"``;
    without an upper bound ``"--seed must be an int >= 0, got -1"``.
    """
    if value >= 0 and (high is None or value <= high):
        return None
    allowed = ">= 0" if high is None else f"from 0 to {high}"
    return f"{name} must be an int {allowed}{f' ({why})' if why else ''}, got {value}"

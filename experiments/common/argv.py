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

"""The public counts that close the observation of the draw-and-discard variants (basic
and Crazy Rummy): the phase, the acting seat, the stock, the hands' sizes, who has
melded, the totals and the turn.  One place defines the fields and fills them."""

from __future__ import annotations

import numpy as np

from rummy_env.encoding.layout import Field


def single(card: int) -> int:
    """Bitmask of one card id, or 0 for -1 (no card)."""
    return 1 << card if card >= 0 else 0


def count_fields(num_players: int, melded: str, totals: Field, turn: str, max_turns: int) -> list[Field]:
    """The fields, in vector order: ``phase`` (2), ``acting`` (n), ``stock_size`` (1),
    ``hand_sizes`` (n), ``melded`` (n), the totals field given, ``turn`` (1).

    Args:
        num_players: n.
        melded: meaning of the ``melded`` field.
        totals: the totals field (its name, size n, bound and meaning are the variant's).
        turn: meaning of the ``turn`` field.
        max_turns: bound of ``turn``.
    """
    n = num_players
    return [
        Field("phase", 2, 1, "one-hot phase of the acting player: draw, play (all 0 when the episode is over)"),
        Field("acting", n, 1, "one-hot relative seat of the acting player (0 = observer)"),
        Field("stock_size", 1, 52, "cards in the stock"),
        Field("hand_sizes", n, 52, "cards in each hand, relative seats"),
        Field("melded", n, 1, melded),
        totals,
        Field("turn", 1, max_turns, turn),
    ]


def fill_counts(obs: np.ndarray, i: int, view, totals) -> None:
    """Write the fields of :func:`count_fields` into ``obs`` from index ``i``.

    ``view`` has ``phase``, ``acting`` (-1 when over), ``stock_size``, ``hand_sizes``,
    ``melded`` and ``turn``; ``totals`` is the per-seat totals tuple.
    """
    n = len(view.hand_sizes)
    if view.phase >= 0:
        obs[i + view.phase] = 1
    i += 2
    if view.acting >= 0:
        obs[i + view.acting] = 1
    i += n
    obs[i] = view.stock_size
    i += 1
    obs[i : i + n] = view.hand_sizes
    i += n
    obs[i : i + n] = view.melded
    i += n
    obs[i : i + n] = totals
    obs[i + n] = view.turn

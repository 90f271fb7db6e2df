"""``crazy_out`` and ``crazy_discard``: the Crazy Rummy heuristic's go-out look-ahead and
``hold_wilds_safe``'s discard rule as network inputs.

``crazy_out``.  Why: a policy distilled from ``heuristic:style=hold_wilds`` agreed with it on 93% of its
decisions, and most of the rest were melds and lay-offs that come from the heuristic's
go-out planner (a depth-first search over melds, lay-offs and swaps,
``agents.crazy_planner``), which an MLP over card planes has to infer
(``docs/results/selfplay-crazy``).  These inputs hand it the planner's answer, computed
from the acting player's own observation only (the compiled planner,
``agents.search.crazy_plan.first_move``, with the lay-off spots guessed from the table
planes as ``crazy_planner.layoff_spots`` guesses them: the observation holds no mask).

Per observation, 59 entries (float32), all 0 when the phase planes are 0 (episode over):

* 0 ``go_out``: the player can go out this turn.  Play phase (R-CRAZY-07..09): some
  sequence of melds, lay-offs and swaps leaves one card that may be discarded (not the
  ``forbidden`` card).  Draw phase: taking the top discard would allow that (the top
  discard is then the card that may not be discarded).
* 1 ``top_useful``: draw phase only, the heuristic's reason to take the top discard: a
  wild card, a card making a meld with at least two natural cards and the hand's wild
  cards, or, once melded, one that looks like it extends a table meld
  (``CrazyRummyHeuristicAgent._useful``).
* 2..6 the kind of the plan's first move (play phase, a plan found): put down a meld, lay
  off a held card, lay off a wild card for a card, swap a card for a table wild card,
  discard the last card.
* 7..58 the cards that move names (a meld's cards, the card laid off, stood for or
  swapped, the card discarded).

``crazy_discard``: the terms of ``heuristic:style=hold_wilds_safe``'s discard rule
(:func:`crazy_discard_features`), which a policy taught by it copied on 92% of its
discards where it copied 96% of all its decisions (``docs/results/selfplay-crazy-safe``).
Per observation, 156 entries (float32), all 0 when the play-phase plane is 0 (the phase
planes are the acting player's: another seat's observation during that player's play
phase has them too, as with ``crazy_out``):

* 0..51 per card held: its partial-meld partners among the hand's natural cards (cards
  not of the wild rank; a partner is of the same rank, or of the same suit at most two
  ranks away: ``agents.styles.PARTNERS``), over 7 (at most 3 + 4): in [0, 1].
* 52..103 per card held: its danger for the next player (``agents.styles.danger``: +2
  per partner among the cards that player took from the discard pile or by a swap and
  still holds, -1 per partner on the discard pile, +2 more when the card looks like a
  lay-off on the table once that player has melded, R-CRAZY-07), over 8: in [-7/8, 2].
* 104..155 the card the rule sheds from the legal discards (R-CRAZY-08 not the card just
  taken, R-CRAZY-10 the card that must go), one-hot (all 0 with no legal discard): not a
  wild card while another may go, the fewest partners, then the least danger, then the
  highest penalty (R-CRAZY-12), then the highest id (``crazy_fast.discard_pool`` and
  ``defensive_discard``).
"""

from __future__ import annotations

import numpy as np

#: entries of :func:`crazy_out_features`
CRAZY_OUT_SIZE = 59
#: entries of :func:`crazy_discard_features`
CRAZY_DISCARD_SIZE = 156


def _kernels():
    """The compiled loops ``(crazy_out, crazy_discard)`` of ``agents.feature_kernels``
    (numba is imported there, on first use: like the compiled planner, only these
    features need it).  Each takes the float32 observations, the offsets of the planes it
    reads (its function's ``at``) and the float32 output, zeroed."""
    from agents import feature_kernels

    return feature_kernels.crazy_out, feature_kernels.crazy_discard


def _offsets(layout, fields) -> tuple[int, ...]:
    """The offsets of ``fields`` in ``layout``, in order (the kernels' ``at``).

    Raises:
        ValueError: the layout's ``wild_C`` .. ``wild_S`` planes do not follow each other.
    """
    if layout.offset("wild_S") != layout.offset("wild_C") + 3 * 52:
        raise ValueError("the layout's wild_C..wild_S planes must follow each other")
    return tuple(layout.offset(f) for f in fields)


def _run(which: int, size: int, obs: np.ndarray, layout, fields: tuple[str, ...]) -> np.ndarray:
    """float32 ``(n, size)``: compiled kernel ``which`` of :func:`_kernels` on ``obs``, reading
    the layout's ``fields`` at their offsets (:func:`_offsets`)."""
    out = np.zeros((obs.shape[0], size), np.float32)
    _kernels()[which](np.ascontiguousarray(obs, np.float32), _offsets(layout, fields), out)
    return out


def crazy_out_features(obs: np.ndarray, layout) -> np.ndarray:
    """The ``crazy_out`` entries (module docstring) of a batch of ``crazy_rummy_v0``
    observations.

    Args:
        obs: float ``(n, layout.size)``, observations of ``crazy_rummy_v0`` (any player count).
        layout: that env's observation layout (``env.unwrapped.layout``).

    Returns:
        float32 ``(n, 59)``.

    Raises:
        ValueError: the layout's ``wild_C`` .. ``wild_S`` planes do not follow each other.
    """
    fields = ("hand", "top_discard", "table_natural", "wild_C", "forbidden", "wild_rank", "phase", "melded")
    return _run(0, CRAZY_OUT_SIZE, obs, layout, fields)


def crazy_discard_features(obs: np.ndarray, layout) -> np.ndarray:
    """The ``crazy_discard`` entries (module docstring) of a batch of ``crazy_rummy_v0``
    observations: ``hold_wilds_safe``'s discard rule, from the acting player's own view
    (its hand, the next player's known cards and melded flag, the discard pile, the table).

    Args:
        obs: float ``(n, layout.size)``, observations of ``crazy_rummy_v0`` (any player count).
        layout: that env's observation layout (``env.unwrapped.layout``).

    Returns:
        float32 ``(n, 156)``.

    Raises:
        ValueError: the layout's ``wild_C`` .. ``wild_S`` planes do not follow each other.
    """
    fields = ("hand", "top_discard", "discard_rest", "table_natural", "wild_C", "known_1", "forbidden")
    fields += ("must_discard", "wild_rank", "phase", "melded")
    return _run(1, CRAZY_DISCARD_SIZE, obs, layout, fields)

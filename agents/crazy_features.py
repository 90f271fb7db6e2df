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
_KIND_MELD, _KIND_LAYOFF, _KIND_WILD, _KIND_SWAP, _KIND_OUT = 2, 3, 4, 5, 6
_CARDS = 7

_KERNELS: list = []


def _kernels():
    """The compiled loops ``(crazy_out, crazy_discard)``, built once (numba is imported
    here: like the compiled planner, only these features need it).  Each takes the float32
    observations, the offsets of the planes it reads (its function's ``at``) and the
    float32 output, zeroed."""
    if not _KERNELS:
        from numba import njit

        from agents.search import crazy_fast
        from agents.search import crazy_plan as plan
        from rummy_env.vector.bits import U0, U1, bit, ctz, popcount
        from rummy_env.vector.deadwood_kernel import MELD_MASK

        @njit(cache=True)
        def plane(row, start):
            """The 52-card plane of ``row`` at ``start`` as a bitmask."""
            m = U0
            for c in range(52):
                if row[start + c] > 0:
                    m |= bit(c)
            return m

        @njit(cache=True)
        def wild_cards(row, rank_at):
            """``(wild_rank, the four wild cards)`` from the one-hot ``wild_rank`` plane."""
            wild_rank = 0
            for r in range(13):
                if row[rank_at + r] > 0:
                    wild_rank = r
            wilds = U0
            for s in range(4):
                wilds |= bit(13 * s + wild_rank)
            return wild_rank, wilds

        @njit(cache=True)
        def table(row, natural_at, wild_at, wild_rank, stands):
            """``(rep, occupied)``: the cards the table represents (as themselves or by a wild
            card) and the cards on it; ``stands[s]``: the card suit ``s``'s wild card stands
            for, -1 for none."""
            rep = plane(row, natural_at)
            occupied = rep
            for s in range(4):
                stands[s] = -1
                for c in range(52):
                    if row[wild_at + 52 * s + c] > 0:
                        stands[s] = c
                        rep |= bit(c)
                        occupied |= bit(c) | bit(13 * s + wild_rank)
                        break
            return rep, occupied

        @njit(cache=True)
        def out_kernel(obs, at, out):
            keys, results = plan.memo_arrays()
            gen = np.uint64(0)
            stands = np.empty(4, np.int64)
            hand_at, top_at, natural_at, wild_at, forbidden_at, rank_at, phase_at, melded_at = at
            for i in range(obs.shape[0]):
                row = obs[i]
                draw, play = row[phase_at] > 0, row[phase_at + 1] > 0
                if not (draw or play):
                    continue
                hand = plane(row, hand_at)
                wild_rank, wilds = wild_cards(row, rank_at)
                rep, occupied = table(row, natural_at, wild_at, wild_rank, stands)
                melded = row[melded_at] > 0
                gen += np.uint64(1)
                if draw:
                    top = plane(row, top_at)
                    if top == U0:
                        continue
                    move = plan.first_move(
                        hand | top, melded, top, wilds, rep, occupied, stands, U0, False, keys, results, gen
                    )
                    out[i, 0] = 1.0 if move != plan.NO_PLAN else 0.0
                    spots = plan.guess_spots(rep, occupied)
                    out[i, 1] = 1.0 if crazy_fast.useful(ctz(top), hand, wilds, melded, spots) else 0.0
                    continue
                keep_out = plane(row, forbidden_at)
                move = plan.first_move(
                    hand, melded, keep_out, wilds, rep, occupied, stands, U0, False, keys, results, gen
                )
                if move == plan.NO_PLAN:
                    continue
                out[i, 0] = 1
                if move == plan.EMPTY_PLAN:
                    out[i, _KIND_OUT] = 1
                    cards = hand
                elif move >= plan.MELD_MOVE:
                    out[i, _KIND_MELD] = 1
                    cards = MELD_MASK[move - plan.MELD_MOVE]
                elif move >= plan.SWAP_MOVE:
                    out[i, _KIND_SWAP] = 1
                    cards = bit(move - plan.SWAP_MOVE)
                elif move >= plan.WILD_MOVE:
                    out[i, _KIND_WILD] = 1
                    cards = bit(move - plan.WILD_MOVE)
                else:
                    out[i, _KIND_LAYOFF] = 1
                    cards = bit(move - plan.LAYOFF_MOVE)
                while cards:
                    c = ctz(cards)
                    out[i, _CARDS + c] = 1
                    cards &= cards - np.uint64(1)

        @njit(cache=True)
        def discard_kernel(obs, at, out):
            stands = np.empty(4, np.int64)
            (
                hand_at,
                top_at,
                rest_at,
                natural_at,
                wild_at,
                next_at,
                forbidden_at,
                must_at,
                rank_at,
                phase_at,
                melded_at,
            ) = at
            for i in range(obs.shape[0]):
                row = obs[i]
                if row[phase_at + 1] <= 0:
                    continue
                hand = plane(row, hand_at)
                wild_rank, wilds = wild_cards(row, rank_at)
                naturals = hand & ~wilds
                known = plane(row, next_at)
                pile = plane(row, top_at) | plane(row, rest_at)
                spots = U0
                if row[melded_at + 1] > 0:  # the next player has melded: it may lay off
                    rep, occupied = table(row, natural_at, wild_at, wild_rank, stands)
                    spots = plan.guess_spots(rep, occupied)
                m = hand
                while m:
                    c = ctz(m)
                    m &= m - U1
                    out[i, c] = popcount(crazy_fast.PARTNERS[c] & naturals) / 7.0
                    out[i, 52 + c] = crazy_fast.discard_risk(c, known, pile, spots) / 8.0
                discards = hand & ~plane(row, forbidden_at)
                must = plane(row, must_at) & hand
                if must:
                    discards = must
                pool = crazy_fast.discard_pool(discards, wilds, naturals, wild_rank)
                if pool:
                    pick = crazy_fast.defensive_discard(pool, known, pile, spots, wild_rank, naturals)
                    out[i, 104 + pick] = 1.0

        _KERNELS.extend((out_kernel, discard_kernel))
    return _KERNELS


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

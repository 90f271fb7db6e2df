"""Exact Rummikub meld solvers: partition check, legal-play mask, best play.

All inputs are tile *count vectors* (see ``rummy_env.core.tiles``): ``np.ndarray`` of shape
``(53,)``, any integer dtype, entry ``t`` = number of tiles of type ``t`` (0..2 each;
index 52 = jokers, 0..2).  Melds (R-RK-03, R-RK-04, R-RK-05):

* group: 3 or 4 tiles of one number, all of different colours;
* run: 3..13 tiles of one colour with consecutive numbers, 1 always low (no 12-13-1);
* a joker stands for any tile that makes its meld valid (it may stand for a tile whose
  two copies are both in play), and two identical melds may lie on the table.

Algorithm (value sweep, after den Hertog & Hulshof, "A dynamic programming approach to
solving Rummikub"): numbers are processed 1..13.  Between two numbers the state is, for
each colour, how many *open runs* it has of length 1, 2 and "3 or more" (a run of 3+ may be
closed at any time, so longer lengths need not be told apart), plus how many jokers were
used so far.  At number ``v`` each colour's ``v``-tiles in use (between a lower and an
upper bound) are split between its runs (every open run of length 1 or 2 must be
extended, a 3+ run is extended or closed, new runs may start) and groups; the tiles left
for groups at ``v`` must pack exactly into groups of 3-4 distinct colours, jokers filling
any slot.  A run's length is capped at 3 and a run that closes while another run of its
colour starts at the same number is merged with it (same tiles, same validity), which
keeps the state small.  Jokers never need their own tile id: a joker at number ``v`` is
worth ``v`` points wherever it sits, so meld points add up number by number (R-RK-07).

The legal-tile mask comes from one *labelled* forward sweep: every reachable state carries
the set of tile types that some path reaching it uses above their lower bound (the
tiles already chosen, and the table's tiles, which must all be used).  Labels are OR-ed
when paths meet, so at the end the union of the labels of the accepting states is exactly
the set of tile types that some legal play can add: all 53 answers in one pass, no
backward pass.  States are pruned by dominance: a state whose open runs are those of
another state of the same layer with some made longer or some extra 3+ runs (same jokers
used), and whose label is contained in that state's label, can be dropped, because the
stronger state can copy any completion with the same tiles.  The same sweep without labels
answers ``can_partition``/``is_legal_play``; with the points so far (capped at the
threshold) in the state it handles the initial meld (R-RK-07); ``best_play`` is the
max-plus version with back pointers.  The initial-meld option with table play runs two
sweeps in lockstep (the initial meld P1 and table + P, with P1 <= P tile by tile).

Sizes: without jokers a layer holds a handful of states; two jokers on a dense table give
thousands, which is why the hot sweep also exists as an optional numba kernel (same moves,
same pruning, identical answers; used when numba is importable, see ``_kernel``).

Public functions: ``partition``, ``can_partition``, ``partition_points``,
``extension_mask``, ``ordered_extension_mask``, ``is_legal_play``, ``best_play``,
``play_points``, ``is_valid_meld``, ``meld_points``.
The simple reference solvers used as test oracles live in ``experiments.rummikub_oracle``.
"""

from __future__ import annotations

from rummy_env.core.rummikub_solver.api import (
    best_play,
    can_partition,
    extension_mask,
    is_legal_play,
    is_valid_meld,
    meld_points,
    ordered_extension_mask,
    partition,
    partition_points,
    play_points,
)
from rummy_env.core.rummikub_solver.memo import cache_budget_mb, cache_info, clear_caches, set_cache_budget

__all__ = [
    "best_play",
    "cache_budget_mb",
    "cache_info",
    "clear_caches",
    "can_partition",
    "extension_mask",
    "is_legal_play",
    "is_valid_meld",
    "meld_points",
    "ordered_extension_mask",
    "partition",
    "partition_points",
    "play_points",
    "set_cache_budget",
]

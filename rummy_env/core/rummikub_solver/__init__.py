"""Exact Rummikub meld solvers: partition check, legal-play masks, legal check, best play.

Inputs are tile *count vectors* (see ``rummy_env.core.tiles``): ``np.ndarray`` of shape
``(53,)``, any integer dtype, entry ``t`` = number of tiles of type ``t`` (``t = colour * 13
+ number - 1`` for R B K Y and 1..13, 0..2 each; index 52 = jokers, 0..2).  Melds
(R-RK-03, R-RK-04, R-RK-05): a *group* is 3 or 4 tiles of one number in distinct colours;
a *run* is 3..13 tiles of one colour with consecutive numbers, 1 always low; a joker
stands for any tile that makes its meld valid, and two identical melds may lie together.

**What is swept.**  The numbers 1..13, in order (den Hertog & Hulshof, "A dynamic
programming approach to solving Rummikub").  At number ``v`` the sweep decides, for each
colour, how many of its ``v``-tiles are used (between a lower and an upper bound: the
table's tiles must all be used, the rack's may be) and how they split between the runs
of that colour and the groups of number ``v``.

**What a state is.**  Between two numbers: for each colour, how many *open runs* it has of
length 1, 2 and "3 or more" (``(n1, n2, n3)``, at most 4 runs: two copies plus two jokers),
and how many jokers are used so far.  A run of 3+ may close at any time, so longer lengths
need not be told apart; a run that closes while another of its colour starts at the same
number is merged with it (same tiles, same validity).  A move at ``v`` must extend every
open run of length 1 or 2, extends or closes each 3+ run, may start runs, and sends the
tiles left to groups, which must pack exactly into groups of 3-4 distinct colours with
jokers filling slots (a table of which (ones, twos) colour patterns pack with 0, 1 or 2
jokers).  After 13 the accepting states are those with no open run of length 1 or 2.

**Why it is exact.**  Every arrangement into melds is one path of moves (runs are cut
at their numbers, groups at theirs), and every path is an arrangement: the state holds
everything the rest of the sweep can see, so paths that reach the same state are
interchangeable.  Jokers need no tile id: a joker at number ``v`` is worth ``v`` points
wherever it sits, so points add up number by number (R-RK-07).  Pruning leans on states
of the same layer that can copy each completion of a state with the same tiles (some runs
longer, more 3+ runs, fewer jokers): a label is a set of independent tokens, so the
tokens such a dominator holds are taken out of the state's label, and the state is
dropped once none is left (dominators one or two steps up by look-ups, then any number
of steps up on big layers: ``dominance``).

**Masks in one pass.**  Each state carries a *label*: the set of tile types some path
reaching it uses above their lower bound.  Labels are OR-ed where paths meet, so the union
over accepting states is exactly the set of tile types some legal play can add: all 53
answers in one forward sweep.  ``ordered_extension_mask`` labels states instead with the
set of "lowest added type" values of their paths; the env builds plays in non-decreasing
type order, and this mask allows ``t`` iff some legal play adds ``t`` as its lowest new
type (in stages on growing bounds, stopping once every possible bit is found:
``sweeps._ordered_sweep``).  The rules are symmetric in the numbers, so a label sweep whose
types to add are low runs over 13 down to 1 instead (``sweeps._mirror_pays``): same answer,
but its label values are made in the last numbers swept, and fewer states stay apart.
**It never dead-ends**: if ``t`` is allowed, a legal play ``P`` adds ``t`` and otherwise
only types ``>= t``; after adding ``t`` either ``P`` is the play (COMMIT is
legal) or the lowest type ``P`` still adds is ``>= t`` and is allowed by the next mask.

Before the initial meld (R-RK-07) the points so far, capped at the threshold, join the
state.  With ``initial_meld_table_play=True`` a fixed play needs two independent sweeps
(table + P partitions; some P1 <= P of rack melds scores the threshold).  For the masks,
the mask after the initial meld is an upper bound; it is the answer when the chosen tiles
already hold an initial meld, and plays built on one fixed initial meld P1 (the best rack
meld; for the ordered mask the one whose lowest tile is as high as possible) give a lower
bound: equal bounds settle the mask, each bit still open is tried with its own P1, and
only then the two sides are swept in lockstep (P1 <= P tile by tile, the product sweep).
``best_play`` is the max-plus version with back pointers (ties broken canonically, so the
compiled and the Python sweeps return the same play).  The sweeps also exist as numba
kernels (``kernel``: masks, existence, points-capped masks; ``kernel_best``: best play;
``kernel_product``: the product sweep; same moves, same answers), used when numba is
importable unless ``RUMMY_ENV_NO_NUMBA=1``.
Memo caches share a memory budget (``memo``: ``RUMMY_ENV_SOLVER_CACHE_MB``, default 32 MB).

**Worked example.**  Table ``R1 R2 R3 R4``, rack ``B1 K1 JK R5 Y9``, initial meld made.
At number 1 the table's R1 either starts a red run or joins B1 and K1 in a group; B1 and
K1 cannot start runs (no B2, K2), so a path using them sends them and R1 to a group, and
the red run then starts at R2 and is open with length 3+ after R4, where R5 or the joker
may extend it.  Y9 fits nowhere, so it is in no label:

```pycon
>>> import numpy as np
>>> from rummy_env.core.tiles import parse_counts, counts_str, tile_str
>>> from rummy_env.core.rummikub_solver import (
...     best_play, extension_mask, is_legal_play, ordered_extension_mask, partition, play_points)
>>> table, rack = parse_counts("R1 R2 R3 R4"), parse_counts("B1 K1 JK R5 Y9")
>>> nothing = np.zeros(53, dtype=np.int64)
>>> [tile_str(t) for t in np.flatnonzero(extension_mask(table, rack, nothing, True))]
['R5', 'B1', 'K1', 'JK']
>>> chosen = parse_counts("B1")  # the env added B1: K1 or the joker completes R1 B1 _
>>> [tile_str(t) for t in np.flatnonzero(ordered_extension_mask(table, rack, chosen, True))]
['K1', 'JK']
>>> is_legal_play(table, rack, chosen, True), is_legal_play(table, rack, parse_counts("B1 K1"), True)
(False, True)
>>> [[tile_str(t) for t in meld] for meld in partition(table + parse_counts("B1 K1 JK"))]
[['R1', 'B1', 'K1'], ['R2', 'R3', 'R4', 'JK']]
>>> play = best_play(table, rack, True)  # the joker after R5 stands for R6: 1 + 1 + 5 + 6
>>> counts_str(play), play_points(table, play)
('R5 B1 K1 JK', 13)

```

Public functions: ``partition``, ``can_partition``, ``partition_points``,
``extension_mask``, ``ordered_extension_mask``, ``is_legal_play``, ``best_play``,
``play_points``, ``is_valid_meld``, ``meld_points``; the cache budget:
``set_cache_budget``, ``cache_budget_mb``, ``cache_info``, ``clear_caches``.  Modules:
``tables`` (colour states, group table, colour moves), ``transitions`` (joint moves of one
number), ``merged_moves`` (those moves reduced to what the Python label sweeps and best
play read), ``sweeps`` (the Python sweeps and the staged ordered sweep), ``dominance`` (their
pruning), ``kernel`` (the numba label sweep), ``kernel_bounds`` (its entries on tile counts,
the per-number bounds built compiled), ``kernel_skyline`` (its pruning against every
stronger state), ``kernel_best`` (the numba best-play sweep), ``kernel_product`` (the numba
product sweep of table play), ``kernel_tables`` (the flat tables the kernels read),
``table_play`` (the initial meld with table play), ``best`` (best play), ``certificate`` (one
arrangement), ``checks`` (input checks), ``memo`` (caches and budget), ``api``.
The simple reference solvers used as test oracles live in ``experiments.dev.rummikub_oracle``.
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

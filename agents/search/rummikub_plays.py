"""Whole Rummikub plays for a search: candidate plays from the solver, and fast playouts
of whole turns.

A Rummikub turn is built in the env one tile at a time (``docs/rules/rummikub.md``,
environment conventions), but the choice that matters is the whole play (R-RK-06/08):
which tiles leave the rack this turn.  :func:`candidate_plays` lists a few plays from the
exact solver (``core.rummikub_solver.best_play`` with several objectives and rack
restrictions, its "neighbours"), and :func:`playout` plays a world on from a chosen play
with the max-play policy (the heuristic's play each turn, a draw when it has none),
turn by turn on count vectors, without the env's per-tile masks: the same rules
(R-RK-06 draw or pass, R-RK-10 going out, R-RK-11 pool exhaustion, R-RK-13 move limit)
at a fraction of the cost.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver import best_play, can_partition
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, TILE_VALUES

#: Objectives of the rollout policy's plays (``best_play``'s objectives).
OBJECTIVES = ("points", "tiles")


class Rules:
    """The options of a game that the playouts need (``RummikubConfig`` fields).

    Args:
        config: the env's ``RummikubConfig``.
    """

    def __init__(self, config):
        self.points = config.initial_meld_points
        self.table_play = config.initial_meld_table_play
        self.max_turns = config.max_turns

    def play(self, table: np.ndarray, rack: np.ndarray, melded: bool, objective: str = "points") -> np.ndarray:
        """The solver's best play (count vector (53,), int64; zeros: no legal play)."""
        return best_play(table, rack, melded, objective, self.points, self.table_play)


def _key(play: np.ndarray) -> bytes:
    return play.astype(np.int8).tobytes()


def candidate_plays(
    rules: Rules, table: np.ndarray, rack: np.ndarray, melded: bool, limit: int, can_draw: bool = True
) -> list[np.ndarray]:
    """Up to ``limit`` distinct legal plays for a player's turn, the max-play heuristic's
    first, then the ones a player may prefer to it.

    In order: the most points (the heuristic's, ties most tiles); the most tiles; holding
    the jokers back (the best play of the rack without them); drawing (all zeros, when
    ``can_draw``: R-RK-06 allows it even when a play exists); then the best play
    without each tile type of the first play in turn, highest value first (a play that
    keeps that tile on the rack).  Each is legal by the solver's exactness (R-RK-07 before
    the initial meld, R-RK-08 after).

    Args:
        rules: the game's options.
        table, rack: count vectors (53,), the player's own rack.
        melded: whether the player has made the initial meld.
        limit: most plays returned (>= 1).
        can_draw: whether drawing (or passing) is among the candidates.

    Returns:
        list of count vectors (53,), int64; the empty play (draw) appears at most once.
        With no legal play, just the empty play.
    """
    first = rules.play(table, rack, melded, "points")
    if not first.any():
        return [first]
    out, seen = [first], {_key(first)}

    def add(play: np.ndarray) -> None:
        if len(out) < limit and (play.any() or can_draw) and _key(play) not in seen:
            seen.add(_key(play))
            out.append(play)

    add(rules.play(table, rack, melded, "tiles"))
    if rack[JOKER]:
        kept = rack.copy()
        kept[JOKER] = 0
        add(rules.play(table, kept, melded, "points"))
    add(np.zeros(NUM_TILE_TYPES, dtype=np.int64))
    order = sorted(np.flatnonzero(first), key=lambda t: -int(TILE_VALUES[t]))
    for t in order:
        if len(out) >= limit:
            break
        without = rack.copy()
        without[t] = 0
        add(rules.play(table, without, melded, "points"))
    return out


class World:
    """A full state as count vectors, played turn by turn (a playout's board).

    Attributes:
        racks: per seat, count vectors (53,), int64.
        table: count vector.
        pool: tile types, next drawn last.
        melded: per seat, initial meld made.
        current: seat to play; passes: passes in a row (pool empty); turn: turns played.
        winners: seats that won once the hand is over (empty: none, or not over); over.
    """

    def __init__(self, state) -> None:
        self.racks = [r.copy() for r in state.racks]
        self.table = state.table.copy()
        self.pool = list(state.pool)
        self.melded = list(state.initial_meld)
        self.current, self.passes, self.turn = state.current, state.passes, state.turn
        self.n = len(self.racks)
        self.over = False
        self.winners: list[int] = []

    def copy(self) -> World:
        other = object.__new__(World)
        other.racks = [r.copy() for r in self.racks]
        other.table = self.table.copy()
        other.pool = list(self.pool)
        other.melded = list(self.melded)
        other.current, other.passes, other.turn, other.n = self.current, self.passes, self.turn, self.n
        other.over, other.winners = self.over, list(self.winners)
        return other

    def apply(self, play: np.ndarray, max_turns: int) -> None:
        """Play the acting seat's whole turn: ``play`` (count vector; zeros = draw or pass).

        Scoring as the engine (``RummikubState._end_hand``): going out wins (R-RK-10);
        every seat passing in a row ends the hand, lowest rack total wins, ties share
        (R-RK-11, a joker counts 30); ``max_turns`` turns end it with no winner (R-RK-13).
        """
        p = self.current
        if play.any():
            self.racks[p] -= play
            self.table += play
            self.melded[p] = True
            self.passes = 0
            if not self.racks[p].any():
                self.over, self.winners = True, [p]
                return
        elif self.pool:
            self.racks[p][self.pool.pop()] += 1
            self.passes = 0
        else:
            self.passes += 1
            if self.passes == self.n:
                values = [int(TILE_VALUES @ r) for r in self.racks]
                best = min(values)
                self.over = True
                self.winners = [q for q in range(self.n) if values[q] == best]
                return
        self.turn += 1
        if self.turn >= max_turns:
            self.over, self.winners = True, []
            return
        self.current = (p + 1) % self.n


#: Tiles of rack difference that make a seat e (2.7) times likelier to be ahead in
#: :func:`position_value` (a race to empty the rack: each turn plays tiles or draws one).
TILE_TEMPERATURE = 3.0


def position_value(world: World, seat: int) -> float:
    """``seat``'s share (0..1) of a world: exact when the hand is over (1 for the only
    winner, 1/k for k joint winners, 1/n when no one won), else a softmax of minus the
    tiles left on each rack over :data:`TILE_TEMPERATURE` (a guess of who wins the race;
    a seat without its initial meld counts 3 tiles more)."""
    n = world.n
    if world.over:
        if not world.winners:
            return 1.0 / n
        return 1.0 / len(world.winners) if seat in world.winners else 0.0
    sizes = [int(r.sum()) + (0 if world.melded[q] else 3) for q, r in enumerate(world.racks)]
    low = min(sizes)
    weights = [np.exp((low - s) / TILE_TEMPERATURE) for s in sizes]
    return float(weights[seat] / sum(weights))


def _has_stray_tile(counts: np.ndarray) -> bool:
    """Whether some coloured tile of ``counts`` fits no meld at all, even with every joker
    of ``counts``: no group of its number (R-RK-03, other colours + jokers < 2) and no
    3-tile window of its colour around it (R-RK-04, missing numbers > jokers).  Then
    ``counts`` cannot be split into melds (a necessary test, far cheaper than the solver)."""
    jokers = int(counts[JOKER])
    present = (counts[:JOKER] > 0).reshape(4, 13)
    group_ok = (present.sum(axis=0) - 1 + jokers >= 2)[None, :]
    padded = np.zeros((4, 17), dtype=np.int64)
    padded[:, 2:15] = present
    inside = np.zeros(17, dtype=bool)
    inside[2:15] = True
    run_ok = np.zeros((4, 13), dtype=bool)
    for start in (0, 1, 2):  # windows v-2..v, v-1..v+1, v..v+2 (padded indices)
        cols = np.arange(13)[:, None] + start + np.arange(3)[None, :]
        filled = padded[:, cols].sum(axis=2)
        valid = inside[cols].all(axis=1)[None, :]
        run_ok |= valid & (3 - filled <= jokers)
    return bool((present & ~group_ok & ~run_ok).any())


def can_go_out(table: np.ndarray, rack: np.ndarray) -> bool:
    """Whether a player past the initial meld can play its whole rack (R-RK-08, R-RK-10):
    table + rack split into melds."""
    both = table + rack
    return not _has_stray_tile(both) and can_partition(both)


def max_play(rules: Rules, world: World, p: int) -> np.ndarray:
    """The max-play heuristic's play for seat ``p`` (``agents.rummikub_heuristic``): the
    most points, ties most tiles; zeros (draw) when there is none."""
    return rules.play(world.table, world.racks[p], world.melded[p], "points")


def patient_play(rules: Rules, world: World, p: int) -> np.ndarray:
    """The patient policy's play for seat ``p``: the initial meld as soon as it can (without
    its jokers when it can do without them, R-RK-07); after it, the whole rack when rack +
    table split into melds (going out, R-RK-08/10), else a draw (R-RK-06 allows drawing
    with a play in hand); once the pool is empty, the max-play play (lowering its rack
    total for R-RK-11).

    Why: the table can be rearranged freely, so the more tiles a player holds, the likelier
    rack + table split into melds all at once, and tiles shed early only feed the others'
    plays.  Against max-play it wins most hands (``docs/results/search``).
    """
    rack = world.racks[p]
    if not world.melded[p]:
        if rack[JOKER]:
            kept = rack.copy()
            kept[JOKER] = 0
            play = rules.play(world.table, kept, False)
            if play.any():
                return play
        return rules.play(world.table, rack, False)
    if can_go_out(world.table, rack):
        return rack.copy()
    if not world.pool:
        return rules.play(world.table, rack, True)
    return np.zeros(NUM_TILE_TYPES, dtype=np.int64)


#: Rollout policies by name: every seat ``max-play`` (``"heuristic"``), or the searching
#: seat ``patient`` and the others max-play (``"patient"``).
ROLLOUTS = ("heuristic", "patient")


def playout(
    world: World, rules: Rules, seat: int, depth: int, rollout: str = "patient", patient: tuple[int, ...] = ()
) -> float:
    """Play ``world`` on (in place) for at most ``depth`` turns or to the end of the hand,
    every seat with :func:`max_play` except ``seat`` with ``rollout="patient"``
    (:func:`patient_play`) and the other seats in ``patient`` (:func:`patient_play`:
    ``pimc:model=mix``'s opponents drawn patient); ``seat``'s :func:`position_value` there."""
    mine = patient_play if rollout == "patient" else max_play
    policies = [patient_play if q in patient else max_play for q in range(world.n)]
    policies[seat] = mine
    for _ in range(depth):
        if world.over:
            break
        p = world.current
        world.apply(policies[p](rules, world, p), rules.max_turns)
    return position_value(world, seat)

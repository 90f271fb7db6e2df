"""The max-play Rummikub player: the biggest legal play each turn, read from its observation, in several styles."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector
from agents.styles import check_style
from rummy_env.core.rummikub_solver import best_play
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, counts_to_tiles
from rummy_env.encoding.layout import Layout
from rummy_env.games.rummikub.actions import COMMIT, DRAW

#: Styles of this agent, ``heuristic:style=NAME``.  The registry adds ``patient``
#: (:class:`agents.search.rummikub_plan.PatientAgent`) to Rummikub's styles.
STYLES = ("default", "hold_jokers", "most_tiles", "big_plays")


class RummikubMaxPlayAgent(Agent):
    """Max-play heuristic (observation only).

    ``style="default"``: at the start of a turn it asks the solver for the legal play
    that places the most points (ties: most tiles), ``core.rummikub_solver.best_play``:
    before the initial meld that is the biggest initial meld it can make (so it makes it
    as soon as it can), after it the play that empties the most points from its rack,
    rearranging the table as needed.  It then adds that play's tiles in type order and
    commits; with no legal play it draws (or passes).

    Other styles (:data:`STYLES`), each the default but for what it names:

    - ``hold_jokers``: keeps its jokers back (a joker fits any meld, and costs 30
      points in a rack at the end, R-RK-10): plays the max-play play of its rack without
      the jokers; they go down only in a play that empties the rack (going out,
      R-RK-10), or when no play exists without them and the pool is empty (R-RK-11).
    - ``most_tiles``: plays the legal play that places the most tiles (ties: most
      points): it empties its rack by count, keeping high tiles longer.
    - ``big_plays``: after its initial meld it waits for big plays: it plays the legal
      play that places the most tiles only when that is at least half its rack (going
      out included), and draws otherwise; with the pool empty it plays as the default
      (R-RK-11).  Between max-play and the patient policy, which waits to go out.

    Args:
        layout: ``env.unwrapped.layout``.
        initial_meld_points, initial_meld_table_play: the game's R-RK-07 options.
        seed: unused (the agent is deterministic); kept for the common interface.
        style: one of :data:`STYLES`.

    Raises:
        ValueError: an unknown style.
    """

    name = "heuristic"

    def __init__(
        self,
        layout: Layout,
        initial_meld_points: int = 30,
        initial_meld_table_play: bool = False,
        seed: int | None = None,
        style: str = "default",
    ):
        super().__init__(seed)
        self.style_id = check_style(style, STYLES, "rummikub_v0")
        self.style = style
        self._size = layout.size
        self.initial_meld_points = initial_meld_points
        self.initial_meld_table_play = initial_meld_table_play
        self._rack = layout.slice("rack")
        self._table = layout.slice("table")
        self._play = layout.slice("play")
        self._initial = layout.offset("initial_meld")
        self._pool = layout.offset("pool_size")
        self._plan: list[int] = []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The heuristic's action id for this seat's ``observation`` (the class docstring).

        Raises:
            TypeError, ValueError: not an observation dict of this env (``legal_ids``,
                ``observation_vector``).
        """
        legal = legal_ids(observation)
        obs = observation_vector(observation, self._size)
        chosen = obs[self._play].astype(np.int64)
        added = int(chosen.sum())
        if added == 0:
            rack = obs[self._rack].astype(np.int64)
            table = obs[self._table].astype(np.int64)
            self._plan = counts_to_tiles(self._turn_play(table, rack, bool(obs[self._initial]), obs[self._pool] == 0))
        elif not np.array_equal(np.bincount(self._plan[:added], minlength=NUM_TILE_TYPES), chosen):
            self._plan = []  # the play on the observation is not ours: fall back below
        if added < len(self._plan) and self._plan[added] in legal:
            return self._plan[added]
        if self._plan and added == len(self._plan) and COMMIT in legal:
            return COMMIT
        return DRAW if DRAW in legal else int(legal[-1])

    def _turn_play(self, table: np.ndarray, rack: np.ndarray, melded: bool, pool_empty: bool) -> np.ndarray:
        """The whole play of this turn (count vector (53,), int64; zeros: draw or pass)."""
        options = (self.initial_meld_points, self.initial_meld_table_play)
        objective = "tiles" if self.style == "most_tiles" else "points"
        if self.style == "big_plays" and melded and not pool_empty:
            play = best_play(table, rack, melded, "tiles", *options)
            return play if 2 * play.sum() >= rack.sum() else np.zeros_like(play)
        play = best_play(table, rack, melded, objective, *options)
        if self.style != "hold_jokers" or not rack[JOKER] or np.array_equal(play, rack):
            return play
        kept = rack.copy()
        kept[JOKER] = 0
        without = best_play(table, kept, melded, "points", *options)
        return play if not without.any() and pool_empty else without

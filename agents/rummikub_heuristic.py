"""The max-play Rummikub player: the biggest legal play each turn, read from its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector
from rummy_env.core.rummikub_solver import best_play
from rummy_env.core.tiles import NUM_TILE_TYPES, counts_to_tiles
from rummy_env.encoding.layout import Layout
from rummy_env.games.rummikub.actions import COMMIT, DRAW


class RummikubMaxPlayAgent(Agent):
    """Max-play heuristic (observation only).

    At the start of a turn it asks the solver for the legal play that places the most
    points (ties: most tiles), ``core.rummikub_solver.best_play``: before the initial meld
    that is the biggest initial meld it can make (so it makes it as soon as it can),
    after it the play that empties the most points from its rack, rearranging the table
    as needed.  It then adds that play's tiles in type order and commits; with no legal
    play it draws (or passes).

    Args:
        layout: ``env.unwrapped.layout``.
        initial_meld_points, initial_meld_table_play: the game's R-RK-07 options.
        seed: unused (the agent is deterministic); kept for the common interface.
    """

    name = "heuristic"

    def __init__(
        self,
        layout: Layout,
        initial_meld_points: int = 30,
        initial_meld_table_play: bool = False,
        seed: int | None = None,
    ):
        super().__init__(seed)
        self._size = layout.size
        self.initial_meld_points = initial_meld_points
        self.initial_meld_table_play = initial_meld_table_play
        self._rack = layout.slice("rack")
        self._table = layout.slice("table")
        self._play = layout.slice("play")
        self._initial = layout.offset("initial_meld")
        self._plan: list[int] = []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = legal_ids(observation)
        obs = observation_vector(observation, self._size)
        chosen = obs[self._play].astype(np.int64)
        added = int(chosen.sum())
        if added == 0:
            rack = obs[self._rack].astype(np.int64)
            table = obs[self._table].astype(np.int64)
            play = best_play(
                table, rack, bool(obs[self._initial]), "points", self.initial_meld_points, self.initial_meld_table_play
            )
            self._plan = counts_to_tiles(play)
        elif not np.array_equal(np.bincount(self._plan[:added], minlength=NUM_TILE_TYPES), chosen):
            self._plan = []  # the play on the observation is not ours: fall back below
        if added < len(self._plan) and self._plan[added] in legal:
            return self._plan[added]
        if self._plan and added == len(self._plan) and COMMIT in legal:
            return COMMIT
        return DRAW if DRAW in legal else int(legal[-1])

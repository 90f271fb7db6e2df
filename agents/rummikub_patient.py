"""The patient Rummikub policy (``heuristic:style=patient``): its initial meld as soon as it
can (keeping its jokers when it can), then a draw every turn until rack + table split into
melds and it goes out in one play (R-RK-08: the table is rearranged freely); with the pool
empty, the max-play play.  It reads its observation only; the search over whole plays
(:mod:`agents.search.rummikub_plan`) rolls it out and shares its helpers: a world from one
seat's view and the steps of a whole play.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector
from agents.search.rummikub_plays import Rules, World, patient_play
from rummy_env.core.tiles import NUM_TILE_TYPES, counts_to_tiles
from rummy_env.games.rummikub.actions import COMMIT, DRAW


def _view_world(view: Any, seat_rack: np.ndarray) -> World:
    """A :class:`World` holding only what the acting player sees (its rack, the table,
    the pool size, who has melded): enough for the policies' own-seat decisions."""
    world = object.__new__(World)
    n = len(view.rack_sizes)
    world.racks = [seat_rack.copy()] + [np.zeros(NUM_TILE_TYPES, dtype=np.int64) for _ in range(n - 1)]
    world.table = view.table.copy()
    world.pool = [0] * view.pool_size  # only its length is read
    world.melded = list(view.initial_meld)
    world.current, world.passes, world.turn, world.n = 0, view.passes, view.turn, n
    world.over, world.winners = False, []
    return world


class _PlanSteps:
    """Turns a whole play into the env's steps (``docs/rules/rummikub.md``, environment
    conventions: tiles in non-decreasing type order, then COMMIT; the empty play draws)."""

    def __init__(self) -> None:
        self.tiles: list[int] | None = None

    def matches(self, chosen: np.ndarray) -> bool:
        """Whether the play being built (count vector) is a prefix of the plan."""
        if self.tiles is None:
            return False
        added = int(chosen.sum())
        if added > len(self.tiles):
            return False
        return bool(np.array_equal(np.bincount(self.tiles[:added], minlength=NUM_TILE_TYPES), chosen))

    def step(self, chosen: np.ndarray, legal: np.ndarray) -> int:
        """The next action of the plan (a legal one: the plan is a legal play)."""
        added = int(chosen.sum())
        if added < len(self.tiles) and self.tiles[added] in legal:
            return int(self.tiles[added])
        if self.tiles and added == len(self.tiles) and COMMIT in legal:
            return COMMIT
        # not reached with a legal plan; the mask never dead-ends, so finish some play
        if DRAW in legal:
            return DRAW
        return COMMIT if COMMIT in legal else int(legal[0])


class PatientAgent(Agent):
    """The patient Rummikub policy, from its observation only
    (:func:`agents.search.rummikub_plays.patient_play`): the initial meld as soon as it
    can (keeping its jokers when it can), then a draw every turn until rack + table split
    into melds and it goes out in one play; with the pool empty, the max-play play.
    Usable by import path: ``agents.rummikub_patient:patient_agent`` (or ``agents.search.rummikub_plan:patient_agent``).

    Args:
        env: the env it plays (read for the game's options and the agent's layout only).
        seed: unused (deterministic).

    Raises:
        ValueError: the env is not ``rummikub_v0``.
    """

    name = "patient"

    def __init__(self, env: Any, seed: int | None = None):
        super().__init__(seed)
        raw = env.unwrapped
        if raw.metadata["name"] != "rummikub_v0":
            raise ValueError(f"the patient agent plays rummikub_v0 only, not {raw.metadata['name']}")
        self.rules = Rules(raw.game.config)
        self._size = raw.layout.size
        self._rack = raw.layout.slice("rack")
        self._decode = raw
        self._steps = _PlanSteps()

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The patient policy's next action id: the next tile of its planned play, commit, or draw.

        Raises:
            TypeError, ValueError: not an observation dict of this env (``legal_ids``,
                ``observation_vector``).
        """
        legal = legal_ids(observation)
        view = _observed_view(self._decode, observation, self._size)
        if not self._steps.matches(view.chosen) or int(view.chosen.sum()) == 0:
            world = _view_world(view, view.rack)
            self._steps.tiles = counts_to_tiles(patient_play(self.rules, world, 0))
        return self._steps.step(view.chosen, legal)


def patient_agent(env: Any, seed: int | None = None) -> PatientAgent:
    """Factory for ``agents.make_agent("agents.rummikub_patient:patient_agent", env)``."""
    return PatientAgent(env, seed)


class _ObservedView:
    """The parts of a :class:`RummikubView` the patient agent reads, from the encoded
    observation (rack, table, chosen play, initial-meld flags, pool size, passes)."""

    def __init__(self, raw: Any, vec: np.ndarray):
        lay = raw.layout
        n = raw.game.num_players
        self.rack = vec[lay.slice("rack")].astype(np.int64)
        self.table = vec[lay.slice("table")].astype(np.int64)
        self.chosen = vec[lay.slice("play")].astype(np.int64)
        self.initial_meld = tuple(bool(x) for x in vec[lay.slice("initial_meld")][:n])
        self.rack_sizes = (0,) * n
        self.pool_size = int(round(float(vec[lay.offset("pool_size")])))  # raw counts (encoding.rummikub)
        self.passes, self.turn = 0, 0


def _observed_view(raw: Any, observation: dict[str, np.ndarray], size: int) -> _ObservedView:
    return _ObservedView(raw, observation_vector(observation, size))


#: most deals per world with ``model=0`` before a world that does not fit is kept

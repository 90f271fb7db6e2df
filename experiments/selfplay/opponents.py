"""Who plays the seats the learner does not: past snapshots, the heuristic, random play.

Every game of the batch has a *kind*, fixed for the run: pure self-play (the learner plays
every seat), or one of the opponents.  In a game with an opponent the learner plays one
seat (``learner_seat``, which moves on by one seat with every new hand, so it plays every
seat in turn) and the opponent plays all the others:

- a pool snapshot (``--pool-share``): a past version of the policy, one drawn per rollout
  from the last ``--pool-size`` (one every ``--snapshot-every`` updates): the learner meets
  older versions of itself and does not chase its own tail;
- the variant's heuristic (``--heuristic-share``), compiled on the engine's rows
  (:func:`compiled_heuristic`, the same action as the Python agent, checked by the
  differential tests in ``tests/agents``), or the Python agent on each observation row;
- uniformly random legal play (``--random-share``).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from agents import make_agent

SELF, POOL, HEURISTIC, RANDOM = 0, 1, 2, 3  #: the kinds of game


def compiled_heuristic(vec: Any):
    """``actions(rows) -> int64 (num_envs,)``: the variant's heuristic action of each row
    of ``rows`` (int64 indices of games awaiting a decision; other entries -1), or None
    without a compiled heuristic for the batch's variant (numba missing, the pure-Python
    reference engine, or another variant)."""
    if not hasattr(vec, "kernel_arrays"):  # the pure-Python reference batch
        return None
    try:
        if vec.variant == "gin_rummy_v0":
            from agents.search.gin_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, pile, legal = vec.kernel_arrays()[:4]
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, out)
                return out

            return actions
        if vec.variant == "rummy_v0":
            from agents.search.rummy_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, _, pile, legal = vec.kernel_arrays()[:5]
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, vec.kernel_config(), out)
                return out

            return actions
    except ImportError:
        return None
    return None


class Opponents:
    """The kind of every game and the opponents' moves.

    Args:
        learner: the run's :class:`~experiments.selfplay.learner.Learner` (its settings,
            network shape, pool and generators).
        env: an env of the run's variant and options (for the Python heuristic).

    Attributes:
        kind: int8 ``(num_envs,)``: :data:`SELF`, :data:`POOL`, :data:`HEURISTIC` or :data:`RANDOM`.
        learner_seat: int64 ``(num_envs,)``: the learner's seat in games with an opponent.
    """

    def __init__(self, learner: Any, env: Any):
        cfg = learner.cfg
        n = cfg.num_envs
        self.learner = learner
        self.num_players = learner.num_players
        self.kind = np.zeros(n, np.int8)
        n_heur, n_pool = round(n * cfg.heuristic_share), round(n * cfg.pool_share)
        self.kind[n - n_heur :] = HEURISTIC
        self.kind[n - n_heur - n_pool : n - n_heur] = POOL
        self.kind[: round(n * cfg.random_share)] = RANDOM
        self.learner_seat = (np.arange(n) + 1) % self.num_players
        # the heuristic plays seats and teaches kickstarting: built only when one of them needs it
        kick = cfg.kickstart and (cfg.random_share if learner.teacher is not None else cfg.kickstart_share)
        self.heuristic = make_agent("heuristic", env, seed=cfg.seed) if cfg.heuristic_share or kick else None
        self.snapshot = copy.deepcopy(learner.net)  # the pool opponent's network
        self.fast = None

    def bind(self, vec: Any) -> None:
        """Use ``vec``'s compiled heuristic when it has one (a new batch: a resumed run)."""
        self.fast = compiled_heuristic(vec) if self.heuristic is not None else None

    def draw_snapshot(self) -> None:
        """Load a snapshot drawn from the learner's pool into the pool opponent (one per rollout)."""
        pool = self.learner.pool
        if pool:
            self.snapshot.load_state_dict(pool[int(self.learner.rng.integers(len(pool)))])

    def seats(self, player: np.ndarray, decision: np.ndarray) -> dict[str, np.ndarray]:
        """Who moves in each game at this step.

        Args:
            player: int64 ``(num_envs,)``: the seat to act.
            decision: bool ``(num_envs,)``: the game awaits a decision (not resetting).

        Returns:
            bool ``(num_envs,)`` arrays ``"pool"``, ``"heuristic"``, ``"random"`` (an
            opponent moves) and ``"learner"`` (the learner moves).
        """
        theirs = decision & (player != self.learner_seat)
        pool = theirs & (self.kind == POOL) & bool(self.learner.pool)
        heur = theirs & (self.kind == HEURISTIC)
        rand = theirs & (self.kind == RANDOM)
        return {"pool": pool, "heuristic": heur, "random": rand, "learner": decision & ~pool & ~heur & ~rand}

    def heuristic_actions(self, rows: np.ndarray, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The heuristic's action in each game of ``rows`` (int64 ``(len(rows),)``): compiled on
        the engine's rows, or the agent on each observation row (what its seat sees only)."""
        if self.fast is not None:
            return self.fast(rows)[rows]
        return np.array(
            [self.heuristic.act({"observation": raw[i], "action_mask": mask[i].astype(np.int8)}) for i in rows],
            np.int64,
        )

    def random_actions(self, rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Uniformly random legal actions of the games ``rows``: the largest of random keys."""
        keys = np.where(mask[rows], self.learner.rng.random((len(rows), mask.shape[1])), -1.0)
        return keys.argmax(1)

    def hand_over(self, done: np.ndarray) -> None:
        """Move the learner to the next seat in the games that just ended."""
        self.learner_seat = np.where(done, (self.learner_seat + 1) % self.num_players, self.learner_seat)

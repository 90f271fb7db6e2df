"""The patient policy with the smallest initial meld: an agent factory for
``experiments.evaluate --agent min_meld:make`` (this folder on ``PYTHONPATH``; see the
README one level up, "min-meld/").

The patient policy's initial meld is the solver's play of the most points; this one lays
down the fewest tiles that reach ``initial_meld_points`` (one to three groups or runs of
3-5 tiles from the rack, without its jokers; the patient play when none does), so that
fewer tiles reach the table the opponent may rearrange (R-RK-07, R-RK-08)."""

import itertools

import numpy as np

from agents.base import legal_ids
from agents.rummikub_patient import PatientAgent, _observed_view, _view_world
from agents.search.rummikub_plays import patient_play
from rummy_env.core.tiles import counts_to_tiles


def melds_of(rack):
    """The groups (3-4 colours) and runs (3-5 tiles) the rack holds: ``[(counts (53,), points)]``."""
    out = []
    for v in range(13):
        cols = [c for c in range(4) if rack[c * 13 + v] > 0]
        for k in (3, 4):
            for sub in itertools.combinations(cols, k):
                m = np.zeros(53, np.int64)
                for c in sub:
                    m[c * 13 + v] += 1
                out.append((m, k * (v + 1)))
    for c in range(4):
        for a in range(13):
            for L in (3, 4, 5):
                if a + L > 13:
                    break
                if all(rack[c * 13 + a + i] > 0 for i in range(L)):
                    m = np.zeros(53, np.int64)
                    m[c * 13 + a : c * 13 + a + L] = 1
                    out.append((m, sum(a + 1 + i for i in range(L))))
    return out


def min_meld(rack, points):
    """The fewest tiles (then fewest points) of up to three disjoint melds worth ``points``, or None."""
    ms = melds_of(rack)
    best = None
    for r in (1, 2, 3):
        for combo in itertools.combinations(range(len(ms)), r):
            tot = sum(ms[i][0] for i in combo)
            if (tot > rack).any():
                continue
            pts = sum(ms[i][1] for i in combo)
            if pts < points:
                continue
            key = (int(tot.sum()), pts)
            if best is None or key < best[0]:
                best = (key, tot)
        if best is not None:
            return best[1]
    return None


class MinMeld(PatientAgent):
    """``heuristic:style=patient`` with :func:`min_meld` as its initial meld."""

    name = "minmeld"

    def act(self, observation, info=None):
        legal = legal_ids(observation)
        view = _observed_view(self._decode, observation, self._size)
        if not self._steps.matches(view.chosen) or int(view.chosen.sum()) == 0:
            world = _view_world(view, view.rack)
            play = patient_play(self.rules, world, 0)
            if not view.initial_meld[0] and play.any() and int(play.sum()) < int(view.rack.sum()):
                kept = view.rack.copy()
                kept[52] = 0
                small = min_meld(kept, self.rules.points)
                if small is not None:
                    play = small
            self._steps.tiles = counts_to_tiles(play)
        return self._steps.step(view.chosen, legal)


def make(env, seed=None):
    """The agent, for ``--agent min_meld:make``."""
    return MinMeld(env, seed)

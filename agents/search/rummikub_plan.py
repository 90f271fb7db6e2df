"""Rummikub search over whole plays: ``pimc`` on ``rummikub_v0`` (``plan=plays``, the
default there), rolling out the patient policy (:class:`agents.rummikub_patient.PatientAgent`,
importable from here too: ``agents.search.rummikub_plan:patient_agent``).

At the start of its turn the agent lists a few whole plays from the solver
(:func:`agents.search.rummikub_plays.candidate_plays`, with the patient policy's own play
first), plays each in the same ``worlds`` worlds from ``state.resample(seat, rng)``, rolls
every world out to the end of the hand (its own seat patient, the others max-play, or
with ``model=mix`` each other seat max-play or patient, drawn per world from its public
turns, :mod:`agents.search.rummikub_mix`), and
keeps the play with the best mean value (the patient policy's play gets ``prior`` more,
so the search departs from it only when the worlds agree it should).  It then answers one
env step at a time from that plan: the play's tiles in type order, then COMMIT (or DRAW
for the empty play), and plans again whenever the play being built is not its plan.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids
from agents.rummikub_patient import PatientAgent, _observed_view, _PlanSteps, _view_world, patient_agent  # noqa: F401 - importable here
from agents.search.rummikub_mix import hand_turns, style_posterior
from agents.search.rummikub_plays import (
    ROLLOUTS,
    Rules,
    World,
    _key,
    can_go_out,
    candidate_plays,
    max_play,
    patient_play,
    playout,
)
from agents.search.worlds import Budget, acting_state
from rummy_env.core.tiles import counts_to_tiles

MODEL_TRIES = 20
#: ``model=mix``: the others' playout style drawn from :func:`style_posterior`
MIX = "mix"


class RummikubPlanAgent(Agent):
    """``pimc`` on Rummikub over whole plays (``plan=plays``): determinized rollouts of a
    few candidate plays (Ginsberg's PIMC over the solver's plays instead of single tiles).

    Each turn with a choice: the candidates (:func:`candidate_plays`; the rollout
    policy's own play first) are each played in ``worlds`` worlds sampled with
    ``state.resample(seat, rng)`` (the same worlds for every candidate) and rolled out
    turn by turn to the end of the hand (or ``depth`` turns, then the racks' tiles are
    compared, :func:`agents.search.rummikub_plays.position_value`); the best mean value
    wins, the rollout policy's own play getting ``prior`` more.  A play that empties the
    rack wins at once (R-RK-10) and is played without search.

    Args:
        env: the env it plays (its engine state is read only through ``resample`` of the
            acting seat, that seat's own observation and, with ``model=0`` or ``mix``, the
            public ``history`` of the hand: who played and who drew).
        worlds: sampled worlds per turn (>= 1).
        candidates: most candidate plays per turn (>= 1; 1 plays the rollout policy).
        depth: most turns per rollout.
        rollout: ``"patient"`` (own seat patient, others max-play) or ``"heuristic"``
            (every seat max-play; then the max-play play is the first candidate); with
            ``model=mix`` the other seats play as drawn from the posterior instead.
        prior: value bonus (0..1) of the rollout policy's own play.
        time: seconds per turn instead of ``worlds`` (as many worlds as fit, at least one).
        model: 0: only worlds that fit the others' last plays if they play max-play
            (:meth:`fits`; up to :data:`MODEL_TRIES` deals per world, then the last one);
            1: uniform worlds; ``"mix"``: uniform worlds, and in each the other seats'
            playouts play max-play or patient, drawn from a posterior fitted on their
            public turns of the hand (:func:`agents.search.rummikub_mix.style_posterior`)
            instead of always max-play.
        late: the search runs only late in the hand (:meth:`late_in_hand`: another rack
            at most ``late`` tiles, or the pool at most ``late`` per player); ``late=106``
            searches every turn.
        seed: seed of the agent's generator (worlds).

    Raises:
        ValueError: an unknown ``rollout``, a ``model`` other than 0, 1 or ``"mix"``, or
            the env is not Rummikub.
    """

    name = "pimc"

    def __init__(
        self,
        env: Any,
        worlds: int = 3,
        candidates: int = 4,
        depth: int = 200,
        rollout: str = "patient",
        prior: float = 0.1,
        time: float | None = None,
        late: int = 4,
        model: float | str = 1.0,
        seed: int | None = None,
    ):
        super().__init__(seed)
        raw = env.unwrapped
        if raw.metadata["name"] != "rummikub_v0":
            raise ValueError(f"plan=plays searches Rummikub plays; {raw.metadata['name']} has none: use plan=steps")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is not a Rummikub plan rollout: use one of {', '.join(ROLLOUTS)}")
        self.env = env
        self.rules = Rules(raw.game.config)
        self.worlds, self.candidates, self.depth = worlds, candidates, depth
        self.rollout, self.prior, self.time, self.late = rollout, prior, time, late
        if model != MIX and model not in (0.0, 1.0):
            raise ValueError(
                f"model={model}: plan=plays takes model=0 (worlds fit the opponents' plays), 1 (uniform) "
                "or mix (the opponents' playout style from their turns)"
            )
        self.model = model
        self._steps = _PlanSteps()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._steps = _PlanSteps()

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = legal_ids(observation)
        state, seat = acting_state(self.env, observation)
        if len(legal) == 1:
            return int(legal[0])
        view = state.observation(seat)
        if not self._steps.matches(view.chosen) or int(view.chosen.sum()) == 0:
            self._steps.tiles = counts_to_tiles(self.plan(state, seat, view))
        return self._steps.step(view.chosen, legal)

    def plan(self, state: Any, seat: int, view: Any) -> np.ndarray:
        """The whole play (count vector (53,), int64; zeros = draw or pass) for ``seat``'s
        turn in ``state``, from ``seat``'s view and worlds resampled for it."""
        plays = self.candidate_plays(view)
        if len(plays) == 1 or int(plays[0].sum()) == int(view.rack.sum()) or not self.late_in_hand(view):
            return plays[0]
        return plays[int(np.argmax(self.play_values(state, seat, plays)))]

    @staticmethod
    def committed_seats(state: Any, seat: int) -> list[int]:
        """The other seat whose last turn of this hand was a play after its initial meld
        (R-RK-08) that did not empty its rack, with only draws or passes since (public
        history, read by :func:`agents.search.rummikub_mix.hand_turns`; none or one seat):
        the table is the one it left, so a max-play player could not have gone out
        (R-RK-10) with its rack then, nor can it now."""
        turns = [played for _, played, _ in reversed(hand_turns(state))]  # most recent first
        n = state.num_players
        for k, played in enumerate(turns[: n - 1], start=1):
            if played:
                earlier = turns[k - 1 + n :: n]  # the same seat's earlier turns
                return [(seat - k) % n] if any(earlier) else []  # its first play: the initial meld
        return []

    @staticmethod
    def fits(world: Any, committed: list[int]) -> bool:
        """Whether ``world`` fits the others' last plays (:meth:`committed_seats`): none
        of them can empty its rack on the table now."""
        return not any(can_go_out(world.table, world.racks[q]) for q in committed)

    def late_in_hand(self, view: Any) -> bool:
        """Whether the hand is close enough to its end for the search to run: another
        rack holds at most ``late`` tiles, or the pool at most ``late`` per player
        (R-RK-11 is near).  Earlier the rollout policy's play is played unsearched."""
        n = len(view.rack_sizes)
        return min(view.rack_sizes[1:]) <= self.late or view.pool_size <= self.late * n

    def candidate_plays(self, view: Any) -> list[np.ndarray]:
        """The turn's candidates, the rollout policy's own play first (a play that goes
        out, when there is one, is the only candidate)."""
        own = _view_world(view, view.rack)
        mine = patient_play if self.rollout == "patient" else max_play
        first = mine(self.rules, own, 0)
        if int(first.sum()) == int(view.rack.sum()):
            return [first]
        melded = view.initial_meld[0]
        others = candidate_plays(self.rules, view.table, view.rack, melded, self.candidates + 1)
        if int(others[0].sum()) == int(view.rack.sum()):
            return [others[0]]
        return ([first] + [p for p in others if _key(p) != _key(first)])[: self.candidates]

    def play_values(self, state: Any, seat: int, plays: list[np.ndarray]) -> np.ndarray:
        """Mean value (0..1) of each play for ``seat`` over the sampled worlds, the
        first play's including ``prior``."""
        totals = np.zeros(len(plays))
        budget = Budget(self.worlds, self.time)
        committed = self.committed_seats(state, seat) if self.model == 0.0 else []
        posterior = style_posterior(state, seat)[:, 1] if self.model == MIX else None
        while budget.more():
            patient: tuple[int, ...] = ()
            if posterior is not None:  # each world draws the others' styles from the posterior
                draws = self.rng.random(len(posterior))
                patient = tuple(q for q in range(len(posterior)) if q != seat and draws[q] < posterior[q])
            sampled = state.resample(seat, self.rng)
            for _ in range(MODEL_TRIES - 1 if committed else 0):
                if self.fits(sampled, committed):
                    break
                sampled = state.resample(seat, self.rng)
            world = World(sampled)
            for i, play in enumerate(plays):
                trial = world.copy()
                trial.apply(play, self.rules.max_turns)
                totals[i] += playout(trial, self.rules, seat, self.depth, self.rollout, patient)
            budget.used += 1
        values = totals / budget.used
        values[0] += self.prior
        return values


#: ``pimc`` options of ``plan=plays`` and their defaults on Rummikub (a turn's search
#: stays near 100 ms or less on this machine's one core, ``docs/results/search``).
PLAN_DEFAULTS: dict[str, Any] = {
    "worlds": 3,
    "candidates": 4,
    "depth": 200,
    "rollout": "patient",
    "prior": 0.1,
    "late": 4,
}
PLAN_OPTIONS = (*PLAN_DEFAULTS, "time", "model")
PLANS = ("plays", "steps")


def plan_kind(variant: str, options: dict[str, Any]) -> str:
    """Which ``pimc`` searches ``variant`` with these options: ``"plays"`` (whole
    Rummikub plays, :class:`RummikubPlanAgent`, the default on Rummikub) or ``"steps"``
    (one env step at a time, :class:`agents.search.pimc.PIMCAgent`).

    Raises:
        ValueError: an unknown ``plan``, ``plan=plays`` off Rummikub, or ``candidates``
            or ``late`` with ``plan=steps``.
    """
    plan = options.get("plan", "plays" if variant == "rummikub_v0" else "steps")
    if plan not in PLANS:
        raise ValueError(f"plan={plan!r} is not a pimc plan: use plan=plays (Rummikub) or plan=steps")
    if plan == "plays" and variant != "rummikub_v0":
        raise ValueError(f"plan=plays searches whole Rummikub plays; {variant} has none: use plan=steps")
    for key in ("candidates", "late"):
        if plan == "steps" and key in options:
            raise ValueError(f"{key}=N is an option of whole-play search: it needs plan=plays (Rummikub)")
    return plan


def make_plan_agent(env: Any, options: dict[str, Any], seed: int | None = None) -> RummikubPlanAgent:
    """The ``pimc:plan=plays`` agent for ``env`` with ``options`` (parsed ``pimc``
    options; ``plan`` is dropped) over :data:`PLAN_DEFAULTS`.

    Raises:
        ValueError: an option ``plan=plays`` does not take (``rollouts``, ``playouts``),
            a bad ``rollout``, or a ``model`` other than 0, 1 or ``mix``.
    """
    options = {k: v for k, v in options.items() if k != "plan"}
    bad = sorted(set(options) - set(PLAN_OPTIONS))
    if bad:
        raise ValueError(f"pimc with plan=plays takes {', '.join(PLAN_OPTIONS)}; {', '.join(bad)} belong to plan=steps")
    return RummikubPlanAgent(env, seed=seed, **{**PLAN_DEFAULTS, **options})

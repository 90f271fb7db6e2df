"""Perfect-information Monte Carlo (determinized rollouts): the ``pimc`` agent."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.search import fast as fast_module
from agents.search.fast import MIX_EPS, MIX_TRIES, MODEL_TRIES
from agents.search.worlds import Budget, SearchAgent, rollout

#: ``model=mix``: a mixture over the Gin heuristic's styles as the opponent model
MIX = "mix"

#: worlds per kernel call of a ``rollout=fast`` search with a ``time`` budget
FAST_CHUNK = 32


class PIMCAgent(SearchAgent):
    """Determinized rollouts (Ginsberg's PIMC, as in Long et al. 2010's study of it).

    Each decision samples ``worlds`` worlds from the acting player's information
    (``state.resample(seat, rng)``); in each world every legal action is played and the
    game continues with the rollout policy for ``rollouts`` playouts (to the end of the
    hand, or ``depth`` actions and then a guess of who is ahead); the action with the
    best mean value over all worlds is chosen (ties: the lowest action id); with
    ``prior``, the heuristic's own choice (from the agent's observation), or with ``guide``
    a learned policy's, gets that much more, so that the search departs from it only when
    the worlds agree it should.
    Every action is compared on the same worlds (with ``halving``, those of each round).
    One legal action: played at once.

    ``rollout="fast"`` (Gin Rummy, basic Rummy, Crazy Rummy: :mod:`agents.search.fast`) plays the
    heuristic playouts in a numba kernel, hundreds of times faster: one world from
    ``resample``, its hidden cards dealt again in the kernel for the others (policy
    improvement by rollouts, Tesauro and Galperin 1996).

    Args:
        env: the env the agent plays in (its engine state is read only through
            ``resample`` of the acting seat).
        worlds: sampled worlds per decision (>= 1).
        rollouts: playouts per action and world (>= 1; more only helps a random policy).
        rollout: ``"heuristic"``, ``"random"`` or ``"fast"`` (compiled heuristic playouts).
        depth: most actions per playout before the position is judged.
        prior: value bonus (0..1) of the heuristic's choice, or of ``guide``'s.
        playouts: most playouts per decision: with many legal actions fewer worlds are
            sampled (at least one), which bounds a decision's time.
        time: seconds per decision instead of ``worlds`` (then as many worlds as fit;
            decisions depend on the machine's speed).
        model: with ``rollout="fast"`` on Gin Rummy, how much a world may depart from
            the opponent's revealed decisions if it played the heuristic (0..1: the
            weight of each decision it would not have made; 1: uniform worlds; see
            :meth:`agents.search.fast.CompiledRollouts.action_values`); or ``"mix"``:
            the opponent plays one of the heuristic's styles (``gin_heuristic.STYLES``,
            the panel's), equally likely before the hand; each world is weighted by the
            styles' mixture of fits to the opponent's decisions so far (each decision a
            style would not have made weighs :data:`MIX_EPS`; at most :data:`MIX_TRIES`
            deals per world), and in each world the
            opponent's playouts play a style drawn from its posterior there.
            :attr:`posterior` is then the posterior over the styles at the last
            decision searched (updated at each decision from the whole hand so far).
        guide: a learned policy's file (``.pt`` of ``experiments.selfplay`` or ``.zip``
            of ``experiments.train``, trained on this env's observations) whose choice
            from the agent's observation gets the ``prior`` bonus instead of the
            heuristic's: the search departs from the policy only where the worlds agree
            by more than ``prior`` that another action is better (the policy as the
            search's prior, as in expert iteration, Anthony et al. 2017).  Needs
            ``prior`` > 0, given with it: the compiled playouts' default prior is 0
            (``pimc:guide=PATH,prior=0.05``).
        halving: with ``rollout="fast"``, at most this many rounds of sequential halving
            (Karnin et al. 2013, "Almost optimal exploration in multi-armed bandits"):
            the decision's playouts (``worlds`` per legal action) are split equally over
            ``min(halving, ceil(log2(n)))`` rounds for ``n`` legal actions, and each
            round drops the worse half of the actions still in (ranked by mean plus the
            ``prior`` bonus, so the prior's action is dropped only if worse by more than
            ``prior``), so the closest actions get the most worlds; fewer rounds when
            there are fewer worlds than rounds.  The best of the last round is played.
            1 (the default): every action on every world.
        playout_style: with ``rollout="fast"`` on Crazy Rummy, the heuristic style
            (``crazy_heuristic.STYLES``) the searching seat plays in its own playouts,
            the other seats playing the default style: the playouts' own-seat policy is
            the base policy the search improves on (Tesauro and Galperin 1996), so a
            stronger style there values the root actions by a stronger continuation.
            None: the default style.
        seed: seed of the agent's generator (worlds and random playouts).

    Raises:
        ValueError: ``halving`` below 1, or above 1 without ``rollout="fast"`` or with ``time``;
            ``model`` other than 1 without ``rollout="fast"``, or off Gin Rummy;
            ``playout_style`` off Crazy Rummy's ``rollout="fast"``, or not one of its styles;
            ``guide`` with ``prior=0`` (the policy would be ignored), a ``guide`` file that
            does not exist, is not a model, or was trained on another variant or other
            observations, or needs torch (``.pt``) or sb3-contrib (``.zip``) and it is not
            installed.
    """

    name = "pimc"

    def __init__(
        self,
        env: Any,
        worlds: int = 8,
        rollouts: int = 1,
        rollout: str = "heuristic",
        depth: int = 200,
        prior: float = 0.0,
        playouts: int | None = None,
        time: float | None = None,
        model: float | str = 1.0,
        guide: str | None = None,
        halving: int = 1,
        playout_style: str | None = None,
        seed: int | None = None,
    ):
        fast = rollout == "fast"
        if halving < 1:
            raise ValueError(f"halving={halving}: rounds of sequential halving, at least 1 (1: none)")
        if halving > 1 and not fast:
            raise ValueError(f"halving={halving} splits the playouts of rollout=fast, not rollout={rollout}")
        if halving > 1 and time is not None:
            raise ValueError(f"halving={halving} splits a count of worlds, not a time: drop time or halving")
        self.halving = halving
        self.dropped = np.zeros(0, np.int64)
        self.style_prior = None
        self.posterior: np.ndarray | None = None
        spec = model
        self.tries = MODEL_TRIES
        if model == MIX:
            from agents.gin_heuristic import STYLES

            self.style_prior = np.full(len(STYLES), 1.0 / len(STYLES))
            model, self.tries = MIX_EPS, MIX_TRIES
        if model < 1.0 and not fast:
            why = ""
            if not fast_module.numba_available():
                why = ' (the compiled playouts need numba, which is not installed: pip install -e ".[fast]")'
            raise ValueError(f"model={spec} weighs the worlds of rollout=fast only (rollout={rollout!r}){why}")
        super().__init__(env, "heuristic" if fast else rollout, depth, prior, time, seed)
        self.worlds, self.rollouts, self.playouts, self.model = worlds, rollouts, playouts, model
        self.guide = None
        if guide is not None:
            if prior <= 0:
                raise ValueError(f"guide={guide}: the policy's choice gets the prior bonus; give prior > 0")
            from agents.policy import PolicyAgent, check_fits, check_trained_on

            self.guide = PolicyAgent(guide)
            check_fits(self.guide.model, env, f"guide={guide}")
            check_trained_on(self.guide.model, env, f"guide={guide}")
        self.compiled = None
        if fast:
            from agents.search.fast import CompiledRollouts

            self.compiled = CompiledRollouts(env)
            if model < 1.0 and self.compiled.variant != "gin_rummy_v0":
                raise ValueError(f"model={spec}: worlds are weighted by the opponent's decisions in Gin Rummy only")
        self.playout_style = playout_style
        self.style_id = 0
        if playout_style is not None:
            variant = env.unwrapped.metadata["name"]
            if variant != "crazy_rummy_v0" or not fast:
                raise ValueError(
                    f"playout_style={playout_style}: a style of Crazy Rummy's compiled playouts "
                    f"(rollout=fast), not of {variant} with rollout={rollout}"
                )
            from agents.crazy_heuristic import STYLES
            from agents.styles import check_style

            try:
                self.style_id = check_style(playout_style, STYLES, variant)
            except ValueError as err:
                raise ValueError(f"playout_style={playout_style}: {err}") from None

    def choose(self, state: Any, seat: int, legal: list[int], observation: dict[str, np.ndarray]) -> int:
        """The action of the best mean value over the sampled worlds (:meth:`action_values`,
        with the prior's bonus; successive halving of the candidates with ``halving``)."""
        if self._halves(legal):  # the prior's bonus counts in every round's ranking
            bonus = self._bonus(observation, seat, legal)
            values = self.action_values(state, seat, legal, bonus) + bonus
            last = np.flatnonzero(self.dropped == 0)
            return legal[int(last[np.argmax(values[last])])]
        values = self.action_values(state, seat, legal)
        values += self._bonus(observation, seat, legal)
        return legal[int(np.argmax(values))]

    def _bonus(self, observation: dict[str, np.ndarray], seat: int, legal: list[int]) -> np.ndarray:
        """``prior`` on the guide's choice (or the heuristic's), 0 on the other actions."""
        bonus = np.zeros(len(legal))
        if self.guide is not None:
            prior = self.guide.act(observation)
        else:
            prior = self.policy.observed_action(observation, seat)
        if prior is not None:
            bonus[legal.index(prior)] = self.prior
        return bonus

    def _halves(self, legal: list[int]) -> bool:
        return self.compiled is not None and self.time is None and self.halving > 1 and len(legal) > 2

    def action_values(self, state: Any, seat: int, legal: list[int], bonus: np.ndarray | None = None) -> np.ndarray:
        """Mean value (0..1 on single hands; on whole games the compiled playouts' points
        margin, ``fast.CompiledRollouts.action_values``, may leave it) of each of ``legal``
        for ``seat`` over the sampled worlds, float64 ``(len(legal),)``.

        With ``halving`` (more than two legal actions), the actions dropped before the
        last round are valued over fewer worlds, and :attr:`dropped` (int64
        ``(len(legal),)``) says how many rounds before the last each was dropped (0: in
        the last round; all 0 without halving).  ``bonus`` (float64 ``(len(legal),)``,
        default 0) is added to the means when a round ranks the actions (``choose`` passes
        the prior's), not to the values returned."""
        self.dropped = np.zeros(len(legal), np.int64)
        totals = np.zeros(len(legal))
        worlds = self.worlds
        if self.playouts is not None:
            worlds = max(1, min(worlds, self.playouts // (len(legal) * self.rollouts)))
        if self._halves(legal):
            return self._halving_values(state, seat, legal, worlds * self.rollouts, bonus)
        if self.compiled is not None:
            return self._compiled_values(state, seat, legal, worlds)
        budget = Budget(worlds, self.time)
        hands = state.hands_played
        while budget.more():
            world = state.resample(seat, self.rng)
            for i, action in enumerate(legal):
                for _ in range(self.rollouts):
                    trial = world.clone()
                    trial.apply_action(action)
                    totals[i] += rollout(trial, self.policy, hands, self.depth)[seat]
            budget.used += 1
        return totals / (budget.used * self.rollouts)

    def _compiled_values(self, state: Any, seat: int, legal: list[int], worlds: int) -> np.ndarray:
        compiled, prior, tries = self.compiled, self.style_prior, self.tries
        if self.time is None:
            values = compiled.action_values(
                state,
                seat,
                legal,
                worlds * self.rollouts,
                self.depth,
                self.rng,
                self.model,
                tries,
                prior,
                self.style_id,
            )
            self._note_posterior(compiled.evidence)
            return values
        budget = Budget(1, self.time)
        totals = np.zeros(len(legal))
        evidence, depth, rng = 0.0, self.depth, self.rng
        while budget.more():
            values = compiled.action_values(
                state, seat, legal, FAST_CHUNK, depth, rng, self.model, tries, prior, self.style_id
            )
            totals += values
            evidence = self._add_evidence(evidence)
            budget.used += 1
        self._note_posterior(evidence)
        return totals / budget.used

    def _halving_values(
        self, state: Any, seat: int, legal: list[int], worlds: int, bonus: np.ndarray | None
    ) -> np.ndarray:
        """Sequential halving over ``legal`` with at most ``worlds * len(legal)`` playouts
        (``halving`` in the class docstring); sets :attr:`dropped`.  Each round's actions
        share its worlds; rounds add up by their worlds (with weighted worlds, ``model``
        < 1, each round's weighted mean counts as its number of worlds)."""
        n = len(legal)
        # no more rounds than worlds: every action of the first round gets a world
        rounds = min(self.halving, int(np.ceil(np.log2(n))), worlds)
        per_round = worlds * n // rounds
        bonus = np.zeros(n) if bonus is None else bonus
        sums, counts = np.zeros(n), np.zeros(n)
        alive = np.arange(n)
        evidence = 0.0
        for r in range(rounds):
            each = per_round // len(alive)
            values = self.compiled.action_values(
                state,
                seat,
                [legal[i] for i in alive],
                each,
                self.depth,
                self.rng,
                self.model,
                self.tries,
                self.style_prior,
                self.style_id,
            )
            evidence = self._add_evidence(evidence)
            sums[alive] += values * each
            counts[alive] += each
            if r < rounds - 1:
                ranked = sums[alive] / counts[alive] + bonus[alive]
                order = np.argsort(-ranked, kind="stable")  # ties: the lower action first
                self.dropped[alive[order[(len(alive) + 1) // 2 :]]] = rounds - 1 - r
                alive = np.sort(alive[order[: (len(alive) + 1) // 2]])
        self._note_posterior(evidence)
        return sums / counts

    def _add_evidence(self, total: Any) -> Any:
        """``total`` plus the styles' weights of the last compiled call (Gin Rummy; the
        other variants' kernels weigh no styles: ``total`` unchanged)."""
        return total if self.compiled.evidence is None else total + self.compiled.evidence

    def _note_posterior(self, evidence: Any) -> None:
        """Keep the posterior over the styles (``model=mix``) from the styles' summed weights."""
        if self.style_prior is None:
            return
        total = float(np.sum(evidence))
        self.posterior = np.asarray(evidence) / total if total > 0 else self.style_prior.copy()

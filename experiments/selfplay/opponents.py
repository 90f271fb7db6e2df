"""Who plays the seats the learner does not: past snapshots, the heuristic, random play and
a league of named agents.

Every game of the batch has a *kind*, fixed for the run: pure self-play (the learner plays
every seat), or one of the opponents.  In a game with an opponent the learner plays one
seat (``learner_seat``, which moves on by one seat with every new hand, so it plays every
seat in turn) and the opponent plays all the others:

- a pool snapshot (``--pool-share``): a past version of the policy, one drawn per rollout
  from the last ``--pool-size`` (one every ``--snapshot-every`` updates): the learner meets
  older versions of itself and does not chase its own tail;
- the variant's heuristic (``--heuristic-share``);
- uniformly random legal play (``--random-share``);
- the members of ``--league`` (``"NAME@SHARE;NAME@SHARE"``): any agent the batched engine
  can drive, frozen: ``random``, ``heuristic`` and its styles (``heuristic:style=...``),
  ``policy:PATH`` (a saved model, its most likely legal action, as ``PolicyAgent`` plays
  it).  A population of styles, snapshots and exploiters (PSRO, AlphaStar's league), or a
  single frozen agent for a best response (``experiments.exploit``).

Heuristics run compiled on the engine's rows where the variant has a compiled heuristic
(:func:`compiled_heuristic`: the same action as the Python agent, checked by the
differential tests in ``tests/agents``), else as the Python agent on each observation row
(what its seat sees only).  Search agents are refused: they read the engine through
``resample`` of an ``env()``, which a batch row is not.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from agents import make_agent
from agents.heuristics import heuristic_style as check_heuristic_name
from experiments.selfplay.config import eval_opponents, league_members

SELF, POOL, HEURISTIC, RANDOM = 0, 1, 2, 3  #: the kinds of game; league member j is kind LEAGUE + j
LEAGUE = 4


def compiled_heuristic(vec: Any, style: int | str = 0):
    """``actions(rows) -> int64 (num_envs,)``: the variant's heuristic action of each row
    of ``rows`` (int64 indices of games awaiting a decision; other entries -1), or None
    without a compiled heuristic for the batch's variant (numba missing, the pure-Python
    reference engine, or another variant).

    Args:
        vec: a compiled batched engine.
        style: the heuristic's style of play, a name of ``agents.registry.STYLES`` or its
            index there (0: the default heuristic).

    Raises:
        ValueError: ``style`` is not a style of the variant's heuristic.
    """
    from agents.registry import STYLES, style_id

    styles = STYLES.get(vec.variant, ("default",))
    if isinstance(style, str):
        style = style_id(vec.variant, style) if vec.variant in STYLES else styles.index(style)
    if isinstance(style, bool | np.bool_) or not (isinstance(style, int | np.integer) and 0 <= style < len(styles)):
        raise ValueError(
            f"style {style!r} is not a style id of {vec.variant}: 0..{len(styles) - 1} ({', '.join(styles)})"
        )
    if not hasattr(vec, "kernel_arrays"):  # the pure-Python reference batch
        return None
    try:
        if vec.variant == "gin_rummy_v0":
            from agents.search.gin_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, pile, legal = vec.kernel_arrays()[:4]
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, out, int(style))
                return out

            return actions
        if vec.variant == "rummy_v0":
            from agents.search.rummy_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, _, pile, legal = vec.kernel_arrays()[:5]
                cfg = vec.kernel_config()
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, cfg, out, int(style))
                return out

            return actions
        if vec.variant == "crazy_rummy_v0":
            from agents.search.crazy_fast import heuristic_actions
            from agents.search.crazy_plan import memo_arrays

            memo = (*memo_arrays(), np.zeros(1, np.int64))  # the go-out planner's memo, one per engine
            players = vec.num_players

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, _, pile, legal = vec.kernel_arrays()[:5]
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, *memo, out, int(style), players)
                return out

            return actions
    except ImportError:
        return None
    return None


def heuristic_style(name: str) -> str | None:
    """The style of a heuristic's name (``"heuristic"`` -> ``"default"``,
    ``"heuristic:style=defensive"`` -> ``"defensive"``), or None for another agent."""
    if name == "heuristic":
        return "default"
    base, _, options = name.partition(":")
    if base == "heuristic" and options.startswith("style=") and "," not in options:
        return options[len("style=") :]
    return None


class FrozenAgent:
    """One agent that plays batch rows: the compiled or Python heuristic, random play, or a
    saved policy's most likely legal action.

    Without a compiled heuristic (:meth:`bind`) a heuristic plays each batch row ``i`` with
    its own Python agent, ``make_agent(name, env, seed=seed + i)``, built at the row's first
    move and kept for the run: a plan over the steps of a turn stays with its game.

    Args:
        name: ``random``, ``heuristic``, ``heuristic:style=...`` or ``policy:PATH``.
        env: an env of the run's variant and options.
        rng: draws random play's actions.
        seed: the seed of row 0's Python agent, ``seed + i`` row ``i``'s (their tie breaks).
        device: the torch device of a policy.

    Raises:
        ValueError: an agent the batched engine cannot drive (a search agent, an import path),
            or a policy of another variant, observation size or number of actions.
    """

    def __init__(self, name: str, env: Any, rng: np.random.Generator, seed: int, device: str = "cpu"):
        self.name, self.rng, self.device, self.env, self.seed = name, rng, device, env, seed
        self.style = heuristic_style(name)
        self.fast = None
        self.net = self.featurize = None
        # a Python agent per game row: agents that keep a plan over the steps of a turn
        # (Rummikub's max-play and patient policies) must not carry one game's plan into another
        self._agents: dict[int, Any] = {}
        if name == "random":
            return
        if name.startswith("policy:"):
            from agents.policy import check_fits, check_trained_on
            from agents.policy_features import Featurizer
            from agents.torch_policy import load_model

            self.net = load_model(name[len("policy:") :]).to(device)
            check_fits(self.net, env, name)
            check_trained_on(self.net, env, name)  # another variant is refused, other rules of a hand warn
            self.featurize = Featurizer(self.net.features, env.unwrapped.metadata["name"], env.unwrapped.layout)
            return
        if self.style is None:
            # a name no job knows gets the registry's "unknown agent" error, not this one
            make_agent(name, env)
            raise ValueError(
                f"{name!r} cannot play on the batched engine's rows: use random, heuristic, heuristic:style=NAME "
                "or policy:PATH (search agents read an env() through resample; a batch row is not one)"
            )
        # a bad style is refused now, not at the first move (make_agent checks it the same way)
        check_heuristic_name(name, env.unwrapped.metadata["name"])

    def bind(self, vec: Any) -> None:
        """Use ``vec``'s compiled heuristic of this style when there is one."""
        if self.style is not None:
            self.fast = compiled_heuristic(vec, self.style)

    def act(self, rows: np.ndarray, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions (int64 ``(len(rows),)``) of the games ``rows``: ``raw`` float32 observations and
        ``mask`` bool legal actions of the whole batch."""
        if self.name == "random":  # uniform over the legal actions: the largest of random keys
            return np.where(mask[rows], self.rng.random((len(rows), mask.shape[1])), -1.0).argmax(1)
        if self.net is not None:
            import torch

            from agents.torch_policy import masked_logits

            x = torch.from_numpy(self.featurize(raw[rows])).to(self.device)
            m = torch.from_numpy(mask[rows]).to(self.device)
            with torch.inference_mode():
                return masked_logits(self.net(x)[0], m).argmax(1).cpu().numpy()
        if self.fast is not None:
            return self.fast(rows)[rows]
        out = np.zeros(len(rows), np.int64)
        for k, i in enumerate(np.asarray(rows).tolist()):
            agent = self._agents.get(i)
            if agent is None:
                agent = self._agents[i] = make_agent(self.name, self.env, seed=self.seed + i)
            out[k] = agent.act({"observation": raw[i], "action_mask": mask[i].astype(np.int8)})
        return out


class Opponents:
    """The kind of every game and the opponents' moves.

    Args:
        learner: the run's :class:`~experiments.selfplay.learner.Learner` (its settings,
            network shape, pool and generators).
        env: an env of the run's variant and options (for the Python heuristic).

    Attributes:
        kind: int16 ``(num_envs,)``: :data:`SELF`, :data:`POOL`, :data:`HEURISTIC`, :data:`RANDOM`
            or ``LEAGUE + j`` for league member ``j``.
        learner_seat: int64 ``(num_envs,)``: the learner's seat in games with an opponent.
        league: the :class:`FrozenAgent` of each league member.

    Raises:
        ValueError: a league member the batched engine cannot drive.
    """

    def __init__(self, learner: Any, env: Any):
        cfg = learner.cfg
        n = cfg.num_envs
        self.learner = learner
        self.num_players = learner.num_players
        members = league_members(cfg)
        # the games from the front: random play, then the league's members; from the back: the
        # heuristic, then the pool; self-play in between
        self.kind = np.full(n, SELF, np.int16)
        start = 0
        for kind, share in [(RANDOM, cfg.random_share)] + [(LEAGUE + j, s) for j, (_, s) in enumerate(members)]:
            k = round(n * share)
            self.kind[start : start + k] = kind
            start += k
        n_heur, n_pool = round(n * cfg.heuristic_share), round(n * cfg.pool_share)
        self.kind[max(start, n - n_heur) :] = HEURISTIC
        self.kind[max(start, n - n_heur - n_pool) : max(start, n - n_heur)] = POOL
        self.learner_seat = (np.arange(n) + 1) % self.num_players
        # the heuristic plays seats and teaches kickstarting: built only when one of them needs it
        kick = cfg.kickstart and (cfg.random_share if learner.teacher is not None else cfg.kickstart_share)
        self.heuristic = (
            FrozenAgent("heuristic", env, learner.rng, cfg.seed, learner.device)
            if cfg.heuristic_share or kick
            else None
        )
        # the kickstarting teacher: the heuristic itself, or another agent (--teacher-agent)
        self.teacher = self.heuristic
        if kick and cfg.teacher_agent != "heuristic":
            self.teacher = FrozenAgent(cfg.teacher_agent, env, learner.rng, cfg.seed, learner.device)
        self.random = FrozenAgent("random", env, learner.rng, cfg.seed)
        self.league = [
            FrozenAgent(name, env, learner.rng, cfg.seed + 1 + j, learner.device) for j, (name, _) in enumerate(members)
        ]
        self.snapshot = copy.deepcopy(learner.net)  # the pool opponent's network

    def bind(self, vec: Any) -> None:
        """Use ``vec``'s compiled heuristics where there are (a new batch: a resumed run)."""
        for agent in [self.heuristic, self.teacher, *self.league]:
            if agent is not None:
                agent.bind(vec)

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
            bool ``(num_envs,)`` arrays ``"pool"``, ``"heuristic"``, ``"random"``, ``"league"``
            (an opponent moves) and ``"learner"`` (the learner moves).
        """
        theirs = decision & (player != self.learner_seat)
        pool = theirs & (self.kind == POOL) & bool(self.learner.pool)
        heur = theirs & (self.kind == HEURISTIC)
        rand = theirs & (self.kind == RANDOM)
        league = theirs & (self.kind >= LEAGUE)
        learner = decision & ~pool & ~heur & ~rand & ~league
        return {"pool": pool, "heuristic": heur, "random": rand, "league": league, "learner": learner}

    def heuristic_actions(self, rows: np.ndarray, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The heuristic's action in each game of ``rows`` (int64 ``(len(rows),)``)."""
        return self.heuristic.act(rows, raw, mask)

    def teacher_actions(self, rows: np.ndarray, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The kickstarting teacher's action (``--teacher-agent``) in each game of ``rows``
        (int64 ``(len(rows),)``)."""
        return self.teacher.act(rows, raw, mask)

    def random_actions(self, rows: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Uniformly random legal actions of the games ``rows``."""
        return self.random.act(rows, None, mask)

    def league_actions(self, rows: np.ndarray, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The league members' actions in the games ``rows`` (each game's own member)."""
        out = np.zeros(len(rows), np.int64)
        kinds = self.kind[rows]
        for j, agent in enumerate(self.league):
            sel = kinds == LEAGUE + j
            if sel.any():
                out[sel] = agent.act(rows[sel], raw, mask)
        return out

    def hand_over(self, done: np.ndarray) -> None:
        """Move the learner to the next seat in the games that just ended."""
        self.learner_seat = np.where(done, (self.learner_seat + 1) % self.num_players, self.learner_seat)


def check_agent_names(config: Any, env: Any) -> None:
    """Build each league member and the teacher agent (:class:`FrozenAgent`) and each
    evaluation opponent once, so that a bad name stops the run before it starts, not at its
    first rollout (the league, the teacher) or after the training (the evaluations' opponents).

    Args:
        config: the run's :class:`~experiments.selfplay.config.Config`.
        env: an env of the run's variant and options.

    Raises:
        ValueError: a name no agent has, or a league member the batched engine cannot drive.
    """
    rng = np.random.default_rng(0)
    for name, _ in league_members(config):
        FrozenAgent(name, env, rng, config.seed)
    if config.teacher_agent != "heuristic":  # the kickstarting teacher, built when the run starts
        FrozenAgent(config.teacher_agent, env, rng, config.seed)
    for name in eval_opponents(config) or ():
        make_agent(name, env)

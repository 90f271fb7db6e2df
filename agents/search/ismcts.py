"""Single-observer information-set MCTS: the ``ismcts`` agent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.search.worlds import Budget, SearchAgent, hand_over, rollout


class _Node:
    """A node of the tree: the action sequence from the root, as the searching player
    sees it (every action id is public, the cards drawn are not)."""

    __slots__ = ("mover", "visits", "value", "avail", "children")

    def __init__(self, mover: int):
        self.mover = mover  # the seat that played the action leading here
        self.visits = 0
        self.value = 0.0  # sum of the mover's values
        self.avail = 0  # iterations in which this action was legal at its parent
        self.children: dict[int, _Node] = {}


class ISMCTSAgent(SearchAgent):
    """SO-ISMCTS (Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree
    Search", IEEE TCIAIG 4(2), algorithm 3).

    One tree over the acting player's information sets, keyed by action ids.  Each
    iteration samples a world (``state.resample(seat, rng)``), descends the tree choosing
    among the actions legal in *that* world by UCB1 with availability counts
    (``mean + c * sqrt(ln(avail) / visits)``, each node's mean from the view of the seat
    that moved into it), adds one node (the rollout policy's choice first; then an untried
    action at random while its first-play urgency ``fpu`` beats the tried ones), plays
    out with the rollout policy (to the end of the hand or ``depth`` actions, then a
    guess of who is ahead) and backs up every seat's value.  The decision is the most
    visited root action (ties: the lowest id); with ``prior``, the heuristic's own choice
    (from the agent's observation) counts ``prior * simulations`` visits more.
    Multi-step turns (draw, melds, lay-offs, discard; Rummikub tile by tile) are nodes
    like any other.  One legal action: played at once.

    Args:
        env: the env the agent plays in (its engine state is read only through
            ``resample`` of the acting seat).
        simulations: iterations per decision (>= 1).
        c: the exploration constant (values are in 0..1).
        fpu: first-play urgency (Gelly and Wang 2006): the UCB score of an untried action;
            the default, infinity, tries every legal action once before any twice (plain
            UCT); a value near the good actions' means deepens their lines first.
        rollout: ``"heuristic"`` or ``"random"``.
        depth: most actions per playout before the position is judged.
        prior: share of the simulations (0..1) added to the heuristic's choice's visits.
        time: seconds per decision instead of ``simulations`` (decisions then depend on
            the machine's speed).
        seed: seed of the agent's generator (worlds, expansion order, random playouts).
    """

    name = "ismcts"

    def __init__(
        self,
        env: Any,
        simulations: int = 100,
        c: float = 0.7,
        fpu: float = math.inf,
        rollout: str = "heuristic",
        depth: int = 200,
        prior: float = 0.0,
        time: float | None = None,
        seed: int | None = None,
    ):
        super().__init__(env, rollout, depth, prior, time, seed)
        self.simulations, self.c, self.fpu = simulations, c, fpu

    def choose(self, state: Any, seat: int, legal: list[int], observation: dict[str, np.ndarray]) -> int:
        """The most visited root action of :meth:`search`, the prior's action counting
        ``prior`` times the root's visits more; ties go to the lowest id."""
        root = self.search(state, seat)
        prior = self.policy.observed_action(observation, seat)
        bonus = self.prior * root.visits if prior is not None else 0.0

        def score(a: int) -> tuple[float, int]:
            visits = root.children[a].visits if a in root.children else -1
            return (visits + (bonus if a == prior else 0.0), -a)

        return max(legal, key=score)

    def search(self, state: Any, seat: int) -> _Node:
        """The tree grown for ``seat`` from ``state`` within the budget."""
        root = _Node(-1)
        budget = Budget(self.simulations, self.time)
        hands = state.hands_played
        while budget.more():
            self._iterate(root, state.resample(seat, self.rng), hands)
            budget.used += 1
        root.visits = budget.used
        return root

    def _iterate(self, root: _Node, world: Any, hands: int) -> None:
        node, path = root, []
        while not hand_over(world, hands):
            legal = world.legal_actions()
            mover = world.current_player()
            if not node.children:  # a new node: the rollout policy's choice first
                path.append(self._expand(node, world, self.policy.action(world), mover))
                break
            best, best_score, untried = -1, -math.inf, []
            for a in legal:
                child = node.children.get(a)
                if child is None:
                    untried.append(a)
                    continue
                child.avail += 1
                score = child.value / child.visits + self.c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best, best_score = a, score
            # first-play urgency (Gelly and Wang 2006): an untried action scores ``fpu``
            if untried and (best < 0 or self.fpu >= best_score):
                action = untried[int(self.rng.integers(len(untried)))]
                path.append(self._expand(node, world, action, mover))
                break
            node = node.children[best]
            world.apply_action(best)
            path.append(node)
        values = rollout(world, self.policy, hands, self.depth, len(path))
        for visited in path:
            visited.visits += 1
            visited.value += values[visited.mover]

    @staticmethod
    def _expand(node: _Node, world: Any, action: int, mover: int) -> _Node:
        child = node.children[action] = _Node(mover)
        child.avail = 1
        world.apply_action(action)
        return child

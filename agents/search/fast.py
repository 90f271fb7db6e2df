"""``rollout=fast``: the ``pimc`` agent's playouts compiled with numba (the ``fast`` extra).

A :class:`CompiledRollouts` loads one world sampled by ``state.resample(seat, rng)``
into a batch-kernel row (``rummy_env.vector``), and the variant's compiled evaluator
plays every root action in that world and in ``worlds - 1`` more (the hidden cards of
that world dealt again inside the kernel, which keeps them uniform over the seat's
information), each hand played out by the variant's heuristic for every seat (Crazy
Rummy: a compiled rule-of-thumb player, ``crazy_fast``, playing the current round).
Gin Rummy, basic Rummy and Crazy Rummy have kernels (:data:`FAST_VARIANTS`).

The playouts end with the hand (the round), as the Python rollouts do (``worlds.hand_over``):
in a whole game (``episode="game"``) the kernel plays the game's current hand
(:func:`playout_config`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.search.worlds import DISCOUNT
from rummy_env.core.compile_notice import compile_notice

FAST_VARIANTS = ("gin_rummy_v0", "rummy_v0", "crazy_rummy_v0")

#: points of the logistic that judges a playout cut off by ``depth`` (as ``worlds.TEMPERATURE``)
FAST_TEMPERATURE = 10.0
#: with ``model`` < 1, deals per world at most (most deals fit the opponent's decisions badly)
MODEL_TRIES = 40
#: ``model=mix`` (Gin Rummy): the weight of each decision a style would not have made
#: (no style is exactly the opponent: a miss makes a world less likely, not impossible)
MIX_EPS = 0.2
#: Crazy Rummy's whole games: the playouts value a round by its penalty margin over this many
#: points (``crazy_fast.seat_value``); a round's penalties rarely differ by more than 100
CRAZY_MARGIN_SCALE = 200.0
#: basic Rummy's whole games: the playouts value a hand by its points margin over this many
#: points (``rummy_fast.seat_value``); without a prior bonus only the values' order counts
RUMMY_MARGIN_SCALE = 200.0
#: Gin Rummy's whole games: the playouts value a hand by its points over this many points
#: (``gin_fast.seat_value``); a hand's points are about 25 on average, so the guided
#: search's ``prior`` bonus of 0.05 stands for about the 2.5 points a 5% chance of the hand
#: stood for with values by who wins it
GIN_MARGIN_SCALE = 50.0
#: the scale of each variant's whole-game playouts (every variant with a kernel)
MARGIN_SCALES = {"gin_rummy_v0": GIN_MARGIN_SCALE, "rummy_v0": RUMMY_MARGIN_SCALE, "crazy_rummy_v0": CRAZY_MARGIN_SCALE}
#: ``model=mix``: deals per world at most (each deal is fitted in every style: fewer
#: deals than :data:`MODEL_TRIES` keep a decision near 100 ms)
MIX_TRIES = 8


def numba_available() -> bool:
    """Whether numba (the ``fast`` extra) imports: the compiled playouts need it."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def playout_config(config: Any) -> Any:
    """The config the compiled playouts play with: ``config`` itself for single hands, a
    copy with ``episode="hand"`` for a whole game, whose current hand the kernel plays out
    to the hand's end (the game's scores do not change how a hand is played out; Gin's
    opponent model reads the hand's own decisions, from ``GinRummyState.hand_start``)."""
    return config if config.episode == "hand" else dataclasses.replace(config, episode="hand")


class CompiledRollouts:
    """Compiled heuristic playouts of one env's variant.

    Args:
        env: the env the search agent plays (wrapped or raw).

    Raises:
        ValueError: a variant without a kernel; numba missing (the ``fast`` extra).
    """

    def __init__(self, env: Any):
        raw = env.unwrapped
        self.variant = raw.metadata["name"]
        if self.variant not in FAST_VARIANTS:
            raise ValueError(
                f"rollout=fast has compiled playouts for {', '.join(FAST_VARIANTS)} only, not {self.variant}: "
                "use rollout=heuristic or rollout=random"
            )
        try:
            import numba  # noqa: F401
        except ImportError as err:
            raise ValueError('rollout=fast needs numba: pip install -e ".[fast]"') from err
        config = playout_config(raw.game.config)
        if self.variant == "gin_rummy_v0":
            from agents.search import gin_fast as fast
            from rummy_env.vector import gin_world as world
        elif self.variant == "crazy_rummy_v0":
            from agents.search import crazy_fast as fast
            from rummy_env.vector import crazy_world as world
        else:
            from agents.search import rummy_fast as fast
            from rummy_env.vector import rummy_world as world
        self._fast, self._world = fast, world
        self._cfg = world.config_vector(config)
        # a whole game is decided by points, not by who wins a hand: Crazy Rummy's by the 13
        # rounds' total (R-CRAZY-13), basic Rummy's and Gin's by who reaches the target first
        # (R-RUMMY-17, R-GIN-13); their playouts are valued by the hand's points margin there
        self.margin_scale = MARGIN_SCALES[self.variant] if raw.game.config.episode == "game" else 0.0
        self.evidence: np.ndarray | None = None
        self._arrays = world.arrays(1) if self.variant == "crazy_rummy_v0" else world.arrays(1, config)

    def action_values(
        self,
        state: Any,
        seat: int,
        legal: list[int],
        worlds: int,
        depth: int,
        rng: np.random.Generator,
        model: float = 1.0,
        tries: int = MODEL_TRIES,
        prior: np.ndarray | None = None,
        style: int = 0,
    ) -> np.ndarray:
        """Mean value (0..1; whole games: about 1/n plus the points margin over
        :data:`CRAZY_MARGIN_SCALE` / :data:`RUMMY_MARGIN_SCALE` / :data:`GIN_MARGIN_SCALE`,
        which a gin or an undercut takes past 1) for
        ``seat`` of each action of ``legal`` over ``worlds`` worlds:
        ``state.resample(seat, rng)`` loaded into the kernel, its hidden cards dealt again
        for each world by a kernel generator seeded from ``rng``; playouts of
        at most ``depth`` actions (then judged by the deadwood or hand points left).

        ``model`` < 1 (Gin Rummy): worlds are weighted by how well they fit the
        opponent's revealed decisions if it plays the heuristic: ``model`` for each of its
        draws, passes and discards the heuristic would not have made
        (``gin_fast.fit_weight``; 0: only worlds that fit every decision, within
        ``tries * worlds`` deals; if none does, uniform worlds).

        ``prior`` (Gin Rummy, with ``model`` < 1): float64 weights of the heuristic's
        styles (``gin_heuristic.STYLES``): worlds are weighted by the mixture of the
        styles' fits, each world's playouts give the opponent a style drawn from its
        posterior there (``gin_fast.evaluate``); None: the default style alone.  After
        the call :attr:`evidence` holds the styles' summed weights (None elsewhere).

        ``style`` (Crazy Rummy): the style id (``crazy_heuristic.STYLES`` index) ``seat``
        plays in its own playouts, the other seats playing the default style."""
        what = f"the compiled playouts of {self.variant} (rollout=fast)"
        with compile_notice(what, call=f"{self._fast.__name__}.evaluate"):  # the first call compiles them
            return self._action_values(state, seat, legal, worlds, depth, rng, model, tries, prior, style)

    def _action_values(
        self,
        state: Any,
        seat: int,
        legal: list[int],
        worlds: int,
        depth: int,
        rng: Any,
        model: float,
        tries: int,
        prior: np.ndarray | None = None,
        style: int = 0,
    ) -> np.ndarray:
        first = state.resample(seat, rng)
        self._world.load_state(first, 0, *self._arrays, self._cfg)
        kernel_rng = np.array([rng.integers(2**63)], np.uint64)
        totals = np.zeros(len(legal))
        actions = np.asarray(legal, np.int64)
        if self.variant == "gin_rummy_v0":
            records = self._fast.opponent_records(first, seat)
            context = self._fast.opponent_context(first, seat)
            styles = np.array([1.0, 0.0, 0.0, 0.0]) if prior is None else np.asarray(prior, np.float64)
            self.evidence = np.zeros(styles.shape[0])
            fitted = (records, context, styles, model, tries)
            args = (*fitted, self._cfg, kernel_rng, totals, self.evidence, self.margin_scale)
        elif self.variant == "crazy_rummy_v0":
            args = (self._cfg, kernel_rng, totals, style, self.margin_scale)
        else:
            from rummy_env.games.resample import rummy_public_holdings

            known, stock_public, _ = rummy_public_holdings(first)
            args = (np.asarray(known, np.uint64), stock_public, self._cfg, kernel_rng, totals, self.margin_scale)
        weight = self._fast.evaluate(self._arrays, seat, actions, worlds, depth, FAST_TEMPERATURE, DISCOUNT, *args)
        if weight <= 0.0:  # no deal fits the opponent's decisions: uniform worlds
            evidence = self.evidence
            values = self._action_values(state, seat, legal, worlds, depth, rng, 1.0, MODEL_TRIES, prior, style)
            self.evidence = evidence
            return values
        return totals / weight

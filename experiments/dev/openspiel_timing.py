"""How long OpenSpiel's own checks and bots take on the four OpenSpiel games
(``rummy_env.openspiel``, the ``reference`` extra).

    python -m experiments.dev.openspiel_timing
    python -m experiments.dev.openspiel_timing --variants gin_rummy rummy --sims 3 --simulations 20

For each variant with its default options (Rummy and Rummikub 2 players, Crazy Rummy
3): ``pyspiel.random_sim_test(game, num_sims, serialize=True)`` (OpenSpiel's random
simulation checks, which clone the state at every step and read every player's
observations), and whole games of OpenSpiel's Python ``ISMCTSBot`` (random-rollout
evaluator, ``--simulations`` per decision) in seat 0 against uniform random play.
Games are seeded (game ``k``: chance and the random seats from seed ``k``), so runs
replay; the times are wall-clock seconds on this machine and depend on its load.
Figures are measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

try:  # the reference extra; without it --help still works and a run says what to install
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import rummy_env.openspiel  # noqa: F401 - registers the games
except ImportError as err:
    pyspiel = None
    _MISSING = err
from experiments.common import description

VARIANTS = ("rummy", "gin_rummy", "crazy_rummy", "rummikub")


def ismcts_game(game: Any, simulations: int, seed: int) -> tuple[int, int, list[float]]:
    """One game: IS-MCTS (``simulations`` per decision) in seat 0, random play elsewhere.

    Returns:
        (the bot's decisions, all decisions, the returns).
    """
    rng = np.random.default_rng(seed)
    search_rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, search_rng), 2.0, simulations, random_state=search_rng)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)  # the bot's own sampler is not seeded
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    state = game.new_initial_state()
    mine = total = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        if state.current_player() == 0:
            state.apply_action(bot.step(state))
            mine += 1
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        total += 1
    return mine, total, state.returns()


def measure(variant: str, sims: int, games: int, simulations: int) -> dict:
    """Time ``random_sim_test`` (``sims`` simulations) and ``games`` IS-MCTS games.

    Returns:
        dict with ``random_sim_s`` (seconds per simulation), ``ismcts_game_s`` (seconds
        per game), ``ismcts_decision_ms`` (milliseconds per bot decision) and
        ``decisions`` (mean decisions per game, all seats).
    """
    game = pyspiel.load_game(f"python_rummy_env_{variant}")
    start = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    sim_time = (time.perf_counter() - start) / sims
    start = time.perf_counter()
    mine = total = 0
    for k in range(games):
        m, t, _ = ismcts_game(game, simulations, k)
        mine, total = mine + m, total + t
    game_time = time.perf_counter() - start
    return {
        "random_sim_s": sim_time,
        "ismcts_game_s": game_time / games,
        "ismcts_decision_ms": 1000 * game_time / max(mine, 1),
        "decisions": total / games,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.dev.openspiel_timing", description=description(__doc__)
    )
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--sims", type=int, default=2, help="random_sim_test simulations per variant")
    parser.add_argument("--games", type=int, default=1, help="IS-MCTS games per variant")
    parser.add_argument("--simulations", type=int, default=10, help="IS-MCTS simulations per decision")
    args = parser.parse_args(argv)
    if min(args.sims, args.games, args.simulations) < 1:
        parser.error("--sims, --games and --simulations must be >= 1")
    if pyspiel is None:
        parser.error(f'it needs OpenSpiel, the reference extra ({_MISSING}): pip install -e ".[reference]"')
    print(
        f"| variant | random_sim_test s/sim | IS-MCTS ({args.simulations} sims) s/game | ms/decision | decisions/game |"
    )
    print("|---|---|---|---|---|")
    for variant in args.variants:
        r = measure(variant, args.sims, args.games, args.simulations)
        print(
            f"| {variant} | {r['random_sim_s']:.2f} | {r['ismcts_game_s']:.1f} | "
            f"{r['ismcts_decision_ms']:.0f} | {r['decisions']:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

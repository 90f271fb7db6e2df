"""How often random play ends an ``episode="game"`` truncated, per variant and table size.

    python -m experiments.dev.truncation_rates                      # every variant, 200 games each
    python -m experiments.dev.truncation_rates --variants rummy --games 500 --players 2 4

Each game is played on the engine (``env.unwrapped.game``) by uniformly random legal
moves, seeded by its index, with ``episode="game"`` and the variant's default options
otherwise.  Reported per (variant, players): the share of games that ended truncated,
the share of hands that reached ``max_turns``, the mean and largest number of hands
and of moves per game.  It measured issue 10's change (a hand reaching ``max_turns``
no longer truncates a whole game; ``max_hands`` does); figures are measured, never
asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

from experiments.common import description, load_variant, resolve_variant

#: table sizes measured by default (Gin is a 2-player game, Crazy Rummy needs 3)
DEFAULT_PLAYERS = {"rummy_v0": (2, 4), "gin_rummy_v0": (2,), "crazy_rummy_v0": (3, 4), "rummikub_v0": (2, 4)}


def measure(variant: str, players: int, games: int, max_moves: int = 200_000) -> dict:
    """Random play of ``games`` whole games; see the module doc for the figures.

    A game still running after ``max_moves`` moves is stopped and counted as truncated
    (``stopped`` counts them).

    Raises:
        ValueError: an unknown variant or a table size it does not allow.
    """
    name = resolve_variant(variant)
    options = {"episode": "game"} if name == "gin_rummy_v0" else {"episode": "game", "num_players": players}
    game = load_variant(name).raw_env(**options).game
    truncated = stopped = limit_hands = 0
    hands, moves = [], []
    for k in range(games):
        rng = np.random.default_rng(k)
        state = game.new_initial_state(rng=np.random.default_rng(10_000 + k))
        seen, n = 0, 0
        while not state.is_terminal() and n < max_moves:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
            n += 1
            if state.hands_played != seen:
                seen = state.hands_played
                limit_hands += int(bool(state.last_hand["truncated"]))
        stopped += not state.is_terminal()
        truncated += state.truncated or not state.is_terminal()
        hands.append(state.hands_played)
        moves.append(n)
    return {
        "variant": name,
        "players": players,
        "games": games,
        "truncated_games": truncated / games,
        "stopped": stopped,
        "move_limit_hands": limit_hands / max(1, sum(hands)),
        "mean_hands": float(np.mean(hands)),
        "max_hands": int(max(hands)),
        "mean_moves": float(np.mean(moves)),
        "max_moves": int(max(moves)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.dev.truncation_rates", description=description(__doc__))
    p.add_argument("--variants", nargs="+", default=list(DEFAULT_PLAYERS), metavar="NAME")
    p.add_argument("--players", nargs="+", type=int, default=None, help="table sizes (default: per variant)")
    p.add_argument("--games", type=int, default=200, help="games per variant and table size (default: 200)")
    args = p.parse_args(argv)
    if args.games <= 0:
        p.error(f"--games must be a positive integer, got {args.games}")
    print(
        f"{'variant':<16}{'players':>8}{'games':>7}{'truncated':>11}{'limit hands':>13}"
        f"{'hands':>8}{'max':>6}{'moves':>9}{'max':>8}{'s':>7}"
    )
    for variant in args.variants:
        try:
            name = resolve_variant(variant)
        except ValueError as err:
            p.error(str(err))
        for players in args.players or DEFAULT_PLAYERS[name]:
            start = time.perf_counter()
            r = measure(name, players, args.games)
            print(
                f"{name:<16}{players:>8}{r['games']:>7}{r['truncated_games']:>11.3f}{r['move_limit_hands']:>13.3f}"
                f"{r['mean_hands']:>8.1f}{r['max_hands']:>6}{r['mean_moves']:>9.0f}{r['max_moves']:>8}"
                f"{time.perf_counter() - start:>7.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One baseline heuristic against random agents, episode by episode: the figures the
variant issues set as targets for their heuristics.

    python -m experiments.dev.heuristic_vs_random --variant crazy_rummy --episodes 3000
    python -m experiments.dev.heuristic_vs_random --variant rummikub --episodes 800
    python -m experiments.dev.heuristic_vs_random --variant crazy_rummy --episodes 200 --env-option episode=game

Episode ``k`` (``k = 0 .. episodes-1``) is dealt with reset seed ``k``; the heuristic sits
in seat ``k % n`` and the other seats hold random agents seeded ``k + seat``, so every run
replays exactly.  An episode is one hand unless ``--env-option episode=game``; rewards
are ``reward="win"``.  Reported, with 95% Wilson intervals:

* ``won``: the heuristic's share of the win (its return is positive: it is a winner,
  alone or tied; in Crazy Rummy, it has the lowest penalty of all players, R-CRAZY-13);
* ``mean score`` of the heuristic and of the random agents at the episode's end
  (``infos`` ``total_score``: points, penalties in Crazy Rummy);
* Crazy Rummy also: ``below the random agents' mean penalty``, the share of episodes in
  which the heuristic's penalty is lower than the mean of the random agents'.

Figures are measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from agents import make_agent
from experiments.common import (
    description,
    load_variant,
    parse_env_options,
    play_episode,
    resolve_variant,
    wilson_interval,
)


def measure(variant: str, episodes: int, env_options: dict) -> dict:
    """Play ``episodes`` episodes of the heuristic against random agents (see the module doc).

    Returns:
        dict with ``episodes``, ``won`` (rate), ``won_ci`` (pair), ``heuristic_score`` and
        ``random_score`` (mean score at the end, points), and for Crazy Rummy
        ``below_random_mean`` and ``below_random_mean_ci``.

    Raises:
        ValueError: an unknown variant or a bad env option.
    """
    name = resolve_variant(variant)
    env = load_variant(name).env(**env_options)
    n = env.unwrapped.game.num_players
    won = below = 0
    heuristic_score = random_score = 0.0
    for k in range(episodes):
        seat = k % n
        agents = [make_agent("heuristic" if i == seat else "random", env, seed=k + i) for i in range(n)]
        result = play_episode(env, agents, k)
        scores = [info["total_score"] for info in result["infos"]]
        others = [s for i, s in enumerate(scores) if i != seat]
        won += result["returns"][seat] > 0
        below += scores[seat] < sum(others) / len(others)
        heuristic_score += scores[seat]
        random_score += sum(others) / len(others)
    out = {
        "episodes": episodes,
        "won": won / episodes,
        "won_ci": wilson_interval(won / episodes, episodes),
        "heuristic_score": heuristic_score / episodes,
        "random_score": random_score / episodes,
    }
    if name == "crazy_rummy_v0":
        out["below_random_mean"] = below / episodes
        out["below_random_mean_ci"] = wilson_interval(below / episodes, episodes)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.dev.heuristic_vs_random", description=description(__doc__))
    p.add_argument("--variant", required=True, help="e.g. crazy_rummy or rummikub_v0")
    p.add_argument("--episodes", type=int, default=1000, help="episodes to play (default 1000)")
    p.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of env(), e.g. num_players=4 (repeatable)",
    )
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error(f"--episodes {args.episodes}: play at least one episode")
    try:
        start = time.perf_counter()
        out = measure(args.variant, args.episodes, parse_env_options(args.env_option))
    except ValueError as err:
        p.error(str(err))
    lo, hi = out["won_ci"]
    print(
        f"{resolve_variant(args.variant)}: heuristic against random agents, {out['episodes']} episodes "
        f"in {time.perf_counter() - start:.0f} s"
    )
    print(f"  won                                   {out['won']:.3f}  [{lo:.3f}, {hi:.3f}]")
    if "below_random_mean" in out:
        lo, hi = out["below_random_mean_ci"]
        print(f"  below the random agents' mean penalty {out['below_random_mean']:.3f}  [{lo:.3f}, {hi:.3f}]")
    print(f"  mean score: heuristic {out['heuristic_score']:.2f}, random {out['random_score']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

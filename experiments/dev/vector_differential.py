"""The batched engines against ``env()`` at scale: every decision compared.

    python -m experiments.vector_differential --decisions 1000000
    python -m experiments.vector_differential --episode game --decisions 1000000
    python -m experiments.vector_differential --variant rummikub --episode both --decisions 1000000

For each configuration (Gin Rummy with several rule options; basic Rummy with 2 to 6
players and its options; Crazy Rummy rounds with 3 to 6 players, fixed or drawn wild
ranks, both rewards and ``max_turns``; Rummikub with 2 to 4 players, initial meld
thresholds with and without table play, both rewards and ``max_turns``; with ``--episode
game`` whole games: targets, Gin's game bonuses, ``max_hands``, the dealer rules, Crazy
Rummy's 13 rounds; ``--episode both`` runs the two, splitting ``--decisions`` between them
by their numbers of configurations) a batched engine (``GinRummyVec`` / ``RummyVec`` /
``CrazyRummyVec`` / ``RummikubVec``) and the pure-Python batch of ``raw_env`` games
(``ReferenceGinRummyVec`` / ``ReferenceRummyVec`` / ``ReferenceCrazyRummyVec`` /
``ReferenceRummikubVec``: the same
deals, ``env.reset(options=deal)``, and the same random actions) are stepped
together with ``step_random()`` until the configuration's share of ``--decisions`` is
reached; at every step every field of the two batches (observation, action mask,
acting seat, rewards, terminated, truncated), the game totals and the hands played must be
equal, and so must ``deal_of`` of every game that ends (whole games: the first hand plus
every later hand's deal).  The
tests (``tests/vector``) run the same comparison for a few thousand decisions, and also
replay games in the wrapped ``env()`` from ``deal_of``.  Prints one row per
configuration: decisions, episodes and hands compared, mismatches (must be 0).
A configuration's share of ``--decisions`` is proportional to its weight (``WEIGHTS``; 1
unless named: Rummikub's table-play initial meld costs the solver's product sweep, tens
of milliseconds a decision with more players, so those sets get smaller shares).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

from experiments.common import batch_size, description
from experiments.common.interrupt import TermAsInterrupt
from rummy_env.vector import (
    Batch,
    CrazyRummyVec,
    GinRummyVec,
    ReferenceCrazyRummyVec,
    ReferenceGinRummyVec,
    ReferenceRummikubVec,
    ReferenceRummyVec,
    RummikubVec,
    RummyVec,
)

GIN = [
    {},
    {"knock_limit": 0, "big_gin": False, "reward": "score"},
    {"knock_limit": 25, "gin_bonus": 7, "undercut_bonus": 3, "big_gin_bonus": 0},
    {"oklahoma": True, "reward": "score", "max_turns": 30},
]
RUMMY = [
    {"num_players": 2},
    {"num_players": 2, "ace_high": True, "reward": "score", "max_turns": 200},
    {"num_players": 3, "reshuffle": "whole_pile"},
    {"num_players": 4, "ace_high": True, "reward": "score"},
    {"num_players": 5, "max_turns": 100},
    {"num_players": 6, "reshuffle": "whole_pile", "ace_high": True},
]
CRAZY = [
    {"num_players": 3},
    {"num_players": 3, "wild_rank": 1, "reward": "score", "max_turns": 30},
    {"num_players": 4, "reward": "score"},
    {"num_players": 5, "wild_rank": 13, "max_turns": 14},
    {"num_players": 6, "reward": "score"},
    {"num_players": 6, "wild_rank": 7, "max_turns": 12},
]
GIN_GAMES = [
    {"episode": "game"},
    {"episode": "game", "knock_limit": 25, "reward": "score", "game_bonuses": True},
    {"episode": "game", "oklahoma": True, "max_turns": 30, "max_hands": 10, "reward": "score"},
    {"episode": "game", "knock_limit": 40, "target_score": 60, "gin_bonus": 0, "game_bonuses": True},
]
RUMMY_GAMES = [
    {"episode": "game", "num_players": 2, "two_player_winner_deals": True, "reward": "score"},
    {"episode": "game", "num_players": 3, "reshuffle": "whole_pile", "target_score": 150},
    {"episode": "game", "num_players": 4, "ace_high": True, "reward": "score", "max_turns": 100},
    {"episode": "game", "num_players": 5, "max_turns": 60, "max_hands": 5},
    {"episode": "game", "num_players": 6, "target_score": 300, "reward": "score"},
]
CRAZY_GAMES = [
    {"episode": "game", "num_players": 3},
    {"episode": "game", "num_players": 3, "reward": "score", "max_turns": 30},
    {"episode": "game", "num_players": 4, "max_hands": 5},
    {"episode": "game", "num_players": 5, "reward": "score", "max_turns": 14, "max_hands": 9},
    {"episode": "game", "num_players": 6, "max_turns": 40},
]
RUMMIKUB = [
    {"num_players": 2},
    {"num_players": 2, "reward": "score", "max_turns": 60, "initial_meld_points": 0},
    {"num_players": 3, "initial_meld_points": 20},
    {"num_players": 3, "reward": "score", "max_turns": 120},
    {"num_players": 4},
    {"num_players": 4, "reward": "score", "initial_meld_points": 50, "max_turns": 200},
    {"num_players": 2, "initial_meld_table_play": True},
    {"num_players": 2, "initial_meld_table_play": True, "initial_meld_points": 10, "reward": "score"},
    {"num_players": 3, "initial_meld_table_play": True, "initial_meld_points": 15, "max_turns": 80},
]
RUMMIKUB_GAMES = [
    {"episode": "game", "num_players": 2, "target_score": 100, "max_turns": 100},
    {"episode": "game", "num_players": 3, "reward": "score", "max_turns": 60, "target_score": 60},
    {"episode": "game", "num_players": 4, "max_turns": 40, "max_hands": 3, "initial_meld_points": 10},
    {"episode": "game", "num_players": 2, "initial_meld_table_play": True, "max_turns": 50, "target_score": 80},
]
#: a configuration's weight in the split of ``--decisions`` (1 when not named): indexes into the lists above
WEIGHTS = {
    ("rummikub", "hand"): {6: 0.25, 7: 0.5, 8: 0.25},
    ("rummikub", "game"): {3: 0.25},
}
#: variant -> (kernel, reference, {episode: option sets})
ENGINES = {
    "gin_rummy": (GinRummyVec, ReferenceGinRummyVec, {"hand": GIN, "game": GIN_GAMES}),
    "rummy": (RummyVec, ReferenceRummyVec, {"hand": RUMMY, "game": RUMMY_GAMES}),
    "crazy_rummy": (CrazyRummyVec, ReferenceCrazyRummyVec, {"hand": CRAZY, "game": CRAZY_GAMES}),
    "rummikub": (RummikubVec, ReferenceRummikubVec, {"hand": RUMMIKUB, "game": RUMMIKUB_GAMES}),
}


def shares(variant: str, episodes: Sequence[str], decisions: int) -> list[tuple[dict, int]]:
    """The (options, decisions) of every configuration of ``variant`` over ``episodes``:
    ``decisions`` split by the weights (``WEIGHTS``)."""
    _, _, sets = ENGINES[variant]
    weighted = [
        (options, WEIGHTS.get((variant, episode), {}).get(k, 1.0))
        for episode in episodes
        for k, options in enumerate(sets[episode])
    ]
    total = sum(w for _, w in weighted)
    return [(options, max(1, round(decisions * w / total))) for options, w in weighted]


def compare(kernel_class, reference_class, options: dict, decisions: int, num_envs: int, seed: int) -> dict:
    """Step both batches until ``decisions`` decisions; count and check them.

    Returns:
        dict with ``decisions``, ``episodes``, ``hands`` (finished, inside episodes or
        ending them), ``mismatches`` and ``first_mismatch`` (step, field, game) or None.
    """
    vec = kernel_class(num_envs, seed=seed, num_threads=1, **options)
    ref = reference_class(num_envs, seed=seed, **options)
    batch, expected = vec.reset(), ref.reset()
    done = hands = 0
    episodes = mismatches = step = 0
    played = np.zeros(num_envs, np.int64)  # hands finished in each game's episode
    first = None
    pending = np.zeros(num_envs, bool)
    while done < decisions:
        for name, got, want in zip(Batch._fields, batch, expected, strict=True):
            if not np.array_equal(got, want):
                bad = np.flatnonzero((got != want).reshape(num_envs, -1).any(axis=1))
                mismatches += bad.size
                first = first or (step, name, int(bad[0]))
        if not np.array_equal(vec.scores, ref.scores):
            mismatches += 1
            first = first or (step, "scores", -1)
        if not np.array_equal(vec.hands_played, ref.hands_played):
            mismatches += 1
            first = first or (step, "hands_played", -1)
        for i in np.flatnonzero(batch.terminated | batch.truncated):
            if vec.deal_of(i) != ref.deal_of(i):
                mismatches += 1
                first = first or (step, "deal_of", int(i))
        if mismatches:
            break
        done += int((~pending).sum()) if step else 0
        pending = batch.terminated | batch.truncated
        episodes += int(pending.sum())
        now = vec.hands_played
        hands += int(np.maximum(now - played, 0).sum())  # an autoreset starts again at 0
        played = now
        batch, expected = vec.step_random(), ref.step_random()
        step += 1
    return {"decisions": done, "episodes": episodes, "hands": hands, "mismatches": mismatches, "first_mismatch": first}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.vector_differential", description=description(__doc__))
    p.add_argument("--decisions", type=int, default=1_000_000, help="decisions per variant (default: 10^6)")
    p.add_argument("--num-envs", type=batch_size, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--variant",
        nargs="+",
        default=list(ENGINES),
        choices=list(ENGINES),
        help="variants to compare (default: all four)",
    )
    p.add_argument(
        "--episode",
        default="hand",
        choices=["hand", "game", "both"],
        help="one hand per episode, whole games, or both (--decisions split between them)",
    )
    args = p.parse_args(argv)
    if args.decisions < 1 or args.num_envs < 1:
        p.error("--decisions and --num-envs must be positive")
    if not 0 <= args.seed <= 2**64 - 64:  # option set k runs seed + k: every one an engine seed
        p.error(f"--seed must be from 0 to 2**64 - 64, got {args.seed}")
    total_bad = total_decisions = 0
    episodes = ["hand", "game"] if args.episode == "both" else [args.episode]
    # one step of a batch is num_envs decisions: an option set's share below that would be overrun
    smallest = min((d for v in args.variant for _, d in shares(v, episodes, args.decisions)), default=args.num_envs)
    if args.num_envs > smallest:
        p.error(
            f"--num-envs {args.num_envs} is more than the {smallest} decisions of the smallest option set "
            f"(--decisions {args.decisions} split over the option sets): raise --decisions or lower --num-envs"
        )
    print("| variant | options | decisions | episodes | mismatches | hands | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with TermAsInterrupt() as stop:
        try:
            for variant in args.variant:
                kernel, reference, _ = ENGINES[variant]
                configs = shares(variant, episodes, args.decisions)
                if not configs:
                    print(f"| {variant} | no batched whole games yet | | | | | |")
                    continue
                for k, (options, share) in enumerate(configs):
                    t = time.perf_counter()
                    r = compare(kernel, reference, options, share, args.num_envs, args.seed + k)
                    total_bad += r["mismatches"]
                    total_decisions += r["decisions"]
                    text = ", ".join(f"{key}={v!r}" for key, v in options.items()) or "defaults"
                    note = f" first: {r['first_mismatch']}" if r["mismatches"] else ""
                    print(
                        f"| {variant} | {text} | {r['decisions']:,} | {r['episodes']:,} | {r['mismatches']}{note} "
                        f"| {r['hands']:,} | {time.perf_counter() - t:.0f} |",
                        flush=True,
                    )
        except KeyboardInterrupt:  # the rows printed are the option sets checked in full
            print(
                f"vector_differential: stopped ({stop.name}); {total_bad} mismatches in the rows above", file=sys.stderr
            )
            return 1 if total_bad else stop.exit_code
    print(f"\n{total_decisions:,} decisions compared field by field: {total_bad} mismatches")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())

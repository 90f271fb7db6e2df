"""Search agents against a baseline at several budgets: win rate and decision time.

    python -m experiments.search_budget --variant gin_rummy --agent pimc --budgets 1 2 4 8 --deals 50
    python -m experiments.search_budget --variant crazy_rummy --agent ismcts --budgets 10 40 --opponent random

For each budget (``worlds`` of ``pimc``, ``simulations`` of ``ismcts``) the search agent
plays duplicate deals against the opponent (one seat each for two players; the other
seats all the opponent's), every deal once per seat of the search agent, exactly as
``experiments.tournament`` seeds them.  The job writes ``search_budget.csv`` (per
budget: games, win rate and its 95% Wilson interval counted per deal, decision time
median / p99 / max in ms over the search agent's decisions with two or more legal
actions; ``planned_deals`` and ``partial``: whether Ctrl-C cut the budget short) and
``search_budget.png`` (win rate against budget) to the results folder.
Decision times are wall time on the machine as loaded when it ran, after a warm-up (the
Rummikub solver's compiled kernel is loaded first).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent, make_agent, seat_seed
from experiments.common import (
    atomic_open,
    check_deals,
    deal_count,
    description,
    load_variant,
    new_figure,
    output_folder,
    parse_env_options,
    path_arg,
    play_episode,
    positive_int,
    resolve_variant,
    save_figure,
    wilson_interval,
)
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import StopRequest
from experiments.common.progress import progress_counter
from experiments.tournament import deal_seed

BUDGET_OPTION = {"pimc": "worlds", "ismcts": "simulations"}


class TimedAgent(Agent):
    """Wraps an agent and records the wall time (seconds) of each decision that had
    more than one legal action."""

    def __init__(self, inner: Agent):
        super().__init__(None)
        self.inner = inner
        self.times: list[float] = []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The inner agent's action; its time (seconds) is kept when two or more actions
        were legal."""
        start = time.perf_counter()
        action = self.inner.act(observation, info)
        if np.count_nonzero(observation["action_mask"]) > 1:
            self.times.append(time.perf_counter() - start)
        return action


def warm_up(variant: str) -> None:
    """Load what a process loads once before timing decisions: the Rummikub solver's
    compiled kernel (numba, a few seconds the first time a big problem reaches it), the
    compiled playouts of ``pimc:rollout=fast`` (Gin Rummy, basic Rummy)."""
    from agents.search.fast import FAST_VARIANTS

    if variant in FAST_VARIANTS:
        env = load_variant(variant).env()
        env.reset(seed=0)
        while np.count_nonzero(env.observe(env.agent_selection)["action_mask"]) < 2:
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        model = ",model=0" if variant == "gin_rummy_v0" else ""
        make_agent(f"pimc:rollout=fast,worlds=1{model}", env, seed=0).act(env.observe(env.agent_selection))
    if variant == "rummikub_v0":
        from rummy_env.core.rummikub_solver import can_partition, ordered_extension_mask
        from rummy_env.core.tiles import FULL_POOL_COUNTS

        none = np.zeros(FULL_POOL_COUNTS.shape, dtype=np.int64)
        ordered_extension_mask(none, FULL_POOL_COUNTS.copy(), none, True)
        can_partition(FULL_POOL_COUNTS.copy())


def measure(
    variant: str,
    spec: str,
    opponent: str,
    deals: int,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    stopped: Callable[[], bool] | None = None,
    finished: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of ``spec`` against ``opponent`` on ``variant``.

    Args:
        stopped: checked before each deal; when it returns True (Ctrl-C) the measure ends
            with the deals finished.
        finished: called with 1 after each deal (a progress counter's ``update``).

    Returns:
        dict: ``deals`` (played), ``games``, ``win_rate`` (the search agent's share of wins),
        ``ci_low``, ``ci_high`` (95% Wilson, one trial per deal), ``median_ms``, ``p99_ms``,
        ``max_ms``, ``decisions``.

    Raises:
        ValueError: ``deals`` not an int 1..``MAX_DEALS``, or bad env options or agent names.
    """
    check_deals(deals)
    env = load_variant(variant).env(**(env_options or {}))
    warm_up(variant)
    n = len(env.possible_agents)
    wins, games, times, played = 0.0, 0, [], 0
    for deal in range(deals):
        if stopped is not None and stopped():
            break
        reset_seed = deal_seed(seed, variant, deal)
        for seat in range(n):
            agents = [make_agent(opponent, env, seed=seat_seed(reset_seed, q)) for q in range(n)]
            timed = TimedAgent(make_agent(spec, env, seed=seat_seed(reset_seed, seat)))
            agents[seat] = timed
            names = [spec if q == seat else opponent for q in range(n)]
            returns = play_episode(env, agents, reset_seed, names=names)["returns"]
            winners = [q for q, r in enumerate(returns) if r > 1e-9]
            wins += 1.0 / len(winners) if seat in winners else 0.0
            games += 1
            times += timed.times
        played += 1
        if finished is not None:
            finished(1)
    rate = wins / max(1, games)
    low, high = wilson_interval(rate, played)
    ms = np.array(times) * 1e3 if times else np.zeros(1)
    return {
        "deals": played,
        "games": games,
        "win_rate": rate,
        "ci_low": low,
        "ci_high": high,
        "median_ms": float(np.median(ms)),
        "p99_ms": float(np.percentile(ms, 99)),
        "max_ms": float(ms.max()),
        "decisions": len(times),
    }


def plot(rows: list[dict], path: Path) -> None:
    """Win rate (95% interval) against budget, one line per variant/agent/opponent."""
    fig = new_figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for key in dict.fromkeys((r["variant"], r["agent"], r["opponent"]) for r in rows):
        rs = [r for r in rows if (r["variant"], r["agent"], r["opponent"]) == key]
        x = [r["budget"] for r in rs]
        y = [r["win_rate"] for r in rs]
        err = [
            [max(0.0, r["win_rate"] - r["ci_low"]) for r in rs],
            [max(0.0, r["ci_high"] - r["win_rate"]) for r in rs],
        ]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"{key[0]} {key[1]} vs {key[2]}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("budget per decision (pimc: worlds, ismcts: simulations)")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m experiments.search_budget``: the exit status, 0 when done, 2 for a
    usage error, 130 or 143 when stopped by Ctrl-C or SIGTERM after writing the budgets
    measured."""
    p = argparse.ArgumentParser(prog="python -m experiments.search_budget", description=description(__doc__))
    p.add_argument("--variant", required=True, help="e.g. gin_rummy or gin_rummy_v0")
    p.add_argument("--agent", choices=sorted(BUDGET_OPTION), required=True)
    p.add_argument(
        "--budgets", type=positive_int, nargs="+", required=True, help="worlds (pimc) or simulations (ismcts)"
    )
    p.add_argument("--options", default="", help="more search options, e.g. rollout=random,depth=40")
    p.add_argument("--opponent", default="heuristic", help="the other seats' agent (default: heuristic)")
    p.add_argument(
        "--deals", type=deal_count, default=20, help="deals per budget, each played from every seat (default 20)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--out", type=path_arg, default=None, help="results folder (default: results/search-budget-<time>)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar (or lines, in a log file)")
    args = p.parse_args(argv)
    if refusal := seed_refusal("--seed", args.seed):  # the deals' seeds are drawn from it: any size
        p.error(refusal)
    twice = sorted({b for b in args.budgets if args.budgets.count(b) > 1})
    if twice:
        p.error(f"--budgets lists {', '.join(map(str, twice))} more than once: each budget is one row")
    specs = [
        f"{args.agent}:{BUDGET_OPTION[args.agent]}={b}" + (f",{args.options}" if args.options else "")
        for b in args.budgets
    ]
    try:
        variant = resolve_variant(args.variant)
        env_options = parse_env_options(args.env_option)
        env = load_variant(variant).env(**env_options)
        for name in [*specs, args.opponent]:
            make_agent(name, env, seed=0)  # a bad option or agent name fails here, before any game
        out = output_folder(args.out, "search-budget")
    except ValueError as err:
        p.error(str(err))
    rows = []
    with (
        StopRequest("search_budget", "ending after the deal in progress, then writing the budgets measured") as stop,
        progress_counter(len(specs) * args.deals, "deal", "search_budget", not args.no_progress) as bar,
    ):
        for budget, spec in zip(args.budgets, specs, strict=True):
            if stop.requested:
                break
            start = time.perf_counter()
            row = {"variant": variant, "agent": spec, "opponent": args.opponent, "budget": budget}
            row.update(
                measure(
                    variant, spec, args.opponent, args.deals, args.seed, env_options, lambda: stop.requested, bar.update
                )
            )
            # a budget cut short by Ctrl-C says so: its row is not a run of --deals <deals>
            row["planned_deals"], row["partial"] = args.deals, row["deals"] < args.deals
            row["seconds"] = round(time.perf_counter() - start, 1)
            if row["deals"] == 0:
                break
            rows.append(row)
            print(
                f"{spec:<40} vs {args.opponent}: win rate {row['win_rate']:.3f} [{row['ci_low']:.3f}, "
                f"{row['ci_high']:.3f}] over {row['games']} games; decision ms median {row['median_ms']:.1f} "
                f"p99 {row['p99_ms']:.1f} max {row['max_ms']:.1f} ({row['seconds']} s)",
                flush=True,
            )
            with atomic_open(out / "search_budget.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
        # inside the stop request: a second Ctrl-C while the plot is written still quits at once
        for r in rows:
            r["agent"] = args.agent
        if rows:
            plot(rows, out / "search_budget.png")
    if stop.requested:
        print(stop.kept(f"{len(rows)} budget(s) in {out}/search_budget.csv (the last one over the deals it finished)"))
        return stop.exit_code
    print(f"results in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())

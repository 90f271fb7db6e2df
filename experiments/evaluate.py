"""How strong an agent is: its results against every member of the variant's opponent panel.

    python -m experiments.evaluate --variant gin_rummy --agent champion
    python -m experiments.evaluate --variant crazy_rummy --agent pimc --deals 300 --workers 2
    python -m experiments.evaluate --variant rummy --agent policy:results/x/model.pt --out results/eval-x

A result against one opponent (the heuristic an agent was trained or searched around) says
little about strength.  The panel (:mod:`agents.panel`, versioned by ``PANEL_VERSION``) is a
fixed, diverse list of opponents per variant, the same for everyone: random play, the
heuristic and its other styles of play, the search with uniform worlds, the committed
learned models and, for Gin Rummy, OpenSpiel's simple bot.  The agent plays duplicate deals
against each member (the tournament's deals and seat rotations: every deal once with the
agent in each seat, the same deals for every member).  With two seats a game is the agent
against the member; with more seats the agent holds one seat and the member all the others
(Crazy Rummy's figure is then the share of rounds in which the agent has the lowest
penalty, R-CRAZY-12; the fair share is ``1 / seats``).

Written to ``--out``: ``evaluation.json`` (one row per opponent: ``opponent``, ``games``,
``deals``, ``wins``, ``draws``, ``win_rate`` with ``win_rate_ci_low`` / ``win_rate_ci_high``
(95% Wilson over deals), ``points_per_hand`` and ``opponent_points_per_hand`` (the agent's
and the members' mean ``total_score`` per hand: Crazy Rummy's are penalty points per
round, lower is better; the printed table calls them ``penalty/round`` there),
``deals_won_in_every_seat`` / ``deals_lost_in_every_seat`` (deals played in every seat
whose every game the agent won / lost to another seat: the deals its play decided; in the
others the seat decided, a win was shared or a game had no winner), ``points_margin`` with
``points_margin_ci_low`` / ``points_margin_ci_high`` (the agent's points a hand more than
the other seats', paired per deal, with a 95% interval over the deals; on Crazy Rummy the
others' penalty minus the agent's: positive is better on every variant) and ``same_as_agent``
(the member builds the very agent evaluated, under its own name or another one,
:func:`agents.registry.same_agent`, e.g. ``pimc`` and ``pimc:model=1`` on Crazy Rummy: that
row is a self-match, at the fair share by construction); plus
``panel_mean`` and ``panel_min`` (the mean and the lowest win rate over the members),
``panel_min_opponent``, ``fair_share``, ``left_out`` (the panel's members that cannot play
here, with why: an extra not installed, a model trained for another number of seats), the
panel version and the settings), the same rows
as ``evaluation.csv``, the bar chart ``evaluation.png``, and ``games.csv`` (every game: the
agent's seat, win share and points, and the other seats' mean points).
Ctrl-C stops it with the games finished (``"partial": true``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.registry import POLICY_PREFIX, SHAPE_MISMATCH, same_agent
from experiments.common import (
    atomic_open,
    check_deals,
    deal_count,
    load_variant,
    mean_interval,
    output_folder,
    parse_env_options,
    path_arg,
    program_name,
    resolve_variant,
    save_figure,
    take_back_empty,
    usable_cpus,
    wilson_interval,
    worker_count,
)
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import StopRequest
from experiments.common.jobs import AgentActionError
from experiments.common.parallel import RayUnreachableError, refuse_unreachable_address, run_tasks
from experiments.common.progress import progress_counter
from experiments.evaluation_report import evaluation_figure, format_rows
from experiments.tournament.deals import Chunk, absolute_policy, deals_played, run_chunk
from experiments.tournament.report import POINTS_LABELS

#: deals per opponent by default (each played once per seat)
DEFAULT_DEALS = 500
ROW_FIELDS = (
    "opponent",
    "games",
    "deals",
    "wins",
    "draws",
    "win_rate",
    "win_rate_ci_low",
    "win_rate_ci_high",
    "points_per_hand",
    "opponent_points_per_hand",
    "deals_won_in_every_seat",
    "deals_lost_in_every_seat",
    "points_margin",
    "points_margin_ci_low",
    "points_margin_ci_high",
    "same_as_agent",
)


#: deals in a chunk of games at most (a chunk is one worker's task, and what Ctrl-C can lose)
CHUNK_DEALS = 25


def chunk_deals(deals: int, opponents: int, workers: int) -> int:
    """Deals per chunk: :data:`CHUNK_DEALS`, or fewer when the opponents' chunks would be
    fewer than ``workers`` (one opponent, 20 deals, 2 workers: chunks of 10, so that both
    workers play).  Each deal is seeded on its own, so the size changes no game.

    Args:
        deals: deals per opponent (>= 1).
        opponents: how many opponents (>= 1).
        workers: local worker processes (>= 1).

    Returns:
        int, 1..:data:`CHUNK_DEALS`.
    """
    per_opponent = -(-workers // max(opponents, 1))  # chunks each opponent needs
    return max(1, min(CHUNK_DEALS, -(-deals // per_opponent)))


def slow_member(name: str) -> bool:
    """Whether panel member ``name`` searches at every decision (``pimc``, ``ismcts``, the
    champion): its chunks are started first, so that the workers finish together."""
    from agents.search import is_search_spec

    return name == "champion" or is_search_spec(name)


def panel_chunks(
    agent: str,
    opponents: Sequence[str],
    variant: str,
    env_options: dict,
    deals: int,
    seed: int,
    chunk_size: int = CHUNK_DEALS,
) -> list[Chunk]:
    """The games of an evaluation: for each opponent the lineup ``(agent, opponent, ...,
    opponent)`` (one seat to the agent, the others to the opponent) on ``deals`` deals, each
    played once per seat rotation (:func:`experiments.tournament.run_chunk`).

    Raises:
        ValueError: ``deals`` not an int 1..``MAX_DEALS``, or bad env options.
    """
    check_deals(deals)
    seats = len(load_variant(variant).env(**env_options).possible_agents)
    options = tuple(sorted({**env_options, "reward": "win"}.items()))
    return [
        Chunk(variant, options, (agent, *[opponent] * (seats - 1)), first, min(chunk_size, deals - first), seed)
        for opponent in opponents
        for first in range(0, deals, chunk_size)
    ]


def agent_seat(agent: str, record: dict) -> tuple[int, str]:
    """The evaluated agent's seat in a game's record and the opponent's name: the lineup is
    ``(agent, opponent, ...)`` and rotation ``k`` seats lineup entry ``(i + k) % seats`` at
    seat ``i`` (:func:`experiments.tournament.run_chunk`), so the agent sits at ``-k``.  Read
    from the rotation, not the names: an agent that is a member of its panel plays itself.

    Raises:
        ValueError: the record does not seat ``agent`` where its rotation says.
    """
    seats = record["seats"]
    seat = -record["rotation"] % len(seats)
    if seats[seat] != agent:
        raise ValueError(f"rotation {record['rotation']} seats {seats[seat]!r} at {seat}, not the agent {agent!r}")
    return seat, seats[(seat + 1) % len(seats)]


def panel_rows(agent: str, opponents: Sequence[str], records: list[dict], penalty: bool = False) -> list[dict]:
    """One row per opponent (:data:`ROW_FIELDS` but ``same_as_agent``, which :func:`evaluate`
    adds) from the games' records (each with ``seats``, ``rotation``, ``deal``,
    ``win_share`` and ``points_per_hand``, as the tournament writes them): the agent's win
    share, its 95% Wilson interval over deals, both sides' points per hand, and the deals
    played in every seat that the agent won (or lost: another seat won) in all of them (win
    share 1 / 0 in every game): the deals its play decided, where the others' winner was the
    seat, a shared win or no one (a draw).  ``points_margin``: the agent's points per hand
    minus the other seats' mean, averaged per deal, then over the deals, with a 95% Student's
    t interval over the deals (:func:`experiments.common.mean_interval`; ``None`` below two
    deals); with ``penalty`` (the variant's points are penalties, ``POINTS_LABELS``: Crazy
    Rummy) the others' penalty minus the agent's, so that a positive margin is better on
    every variant.  Paired on duplicate
    deals, it tells apart agents that win as often but by different amounts.

    Raises:
        ValueError: a record that does not seat ``agent`` where its rotation says.
    """
    stats: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "games": 0,
            "wins": 0.0,
            "draws": 0,
            "points": 0.0,
            "their_points": 0.0,
            "deals": defaultdict(list),
            "margins": defaultdict(list),
        }
    )
    for r in records:
        seat, opponent = agent_seat(agent, r)
        others = [s for s in range(len(r["seats"])) if s != seat]
        s = stats[opponent]
        s["games"] += 1
        s["seats"] = len(r["seats"])
        s["wins"] += r["win_share"][seat]
        s["draws"] += 0 if any(r["win_share"]) else 1
        mine, theirs = r["points_per_hand"][seat], sum(r["points_per_hand"][o] for o in others) / len(others)
        s["points"] += mine
        s["their_points"] += theirs
        s["deals"][r["deal"]].append(r["win_share"][seat] if any(r["win_share"]) else None)  # None: no winner
        s["margins"][r["deal"]].append(theirs - mine if penalty else mine - theirs)
    rows = []
    for opponent in opponents:
        s = stats.get(opponent)
        if s is None or not s["games"]:
            continue
        rate = s["wins"] / s["games"]
        low, high = wilson_interval(rate, len(s["deals"]))
        every_seat = [shares for shares in s["deals"].values() if len(shares) == s["seats"]]
        margin, margin_low, margin_high = mean_interval([sum(m) / len(m) for m in s["margins"].values()])
        rows.append(
            {
                "opponent": opponent,
                "games": s["games"],
                "deals": len(s["deals"]),
                "wins": round(s["wins"], 3),
                "draws": s["draws"],
                "win_rate": rate,
                "win_rate_ci_low": low,
                "win_rate_ci_high": high,
                "points_per_hand": s["points"] / s["games"],
                "opponent_points_per_hand": s["their_points"] / s["games"],
                "deals_won_in_every_seat": sum(all(w == 1.0 for w in shares) for shares in every_seat),
                # a game without a winner holds None: a deal drawn in a seat is not lost in every seat
                "deals_lost_in_every_seat": sum(all(w == 0.0 for w in shares) for shares in every_seat),
                "points_margin": margin,
                "points_margin_ci_low": margin_low,
                "points_margin_ci_high": margin_high,
            }
        )
    return rows


def write_evaluation(out: Path, result: dict, records: list[dict]) -> None:
    """``evaluation.json``, ``evaluation.csv``, ``evaluation.png`` and ``games.csv`` in ``out``."""
    with atomic_open(out / "evaluation.json", "w") as f:
        json.dump(result, f, indent=2)
    with atomic_open(out / "evaluation.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(ROW_FIELDS))
        w.writeheader()
        w.writerows(result["rows"])
    with atomic_open(out / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["opponent", "deal", "seed", "rotation", "agent_seat", "win_share", "points_per_hand", "steps"]
            + ["opponent_points_per_hand"]  # the other seats' mean: the margin can be computed again
        )
        for r in records:
            seat, opponent = agent_seat(result["agent"], r)
            others = [p for i, p in enumerate(r["points_per_hand"]) if i != seat]
            w.writerow(
                [
                    opponent,
                    r["deal"],
                    r["seed"],
                    r["rotation"],
                    seat,
                    r["win_share"][seat],
                    r["points_per_hand"][seat],
                    r["steps"],
                    sum(others) / len(others),
                ]
            )
    if result["rows"]:
        save_figure(evaluation_figure(result), out / "evaluation.png")


def panel_members(
    agent: str, variant: str, env_options: dict | None = None, opponents: Sequence[str] | None = None
) -> tuple[str, list[str], int | None, dict[str, str]]:
    """The agent and its opponents as :func:`evaluate` plays them, each built once so that a
    bad name or option fails before any game (and before the job's folder exists).

    Args:
        agent, variant, env_options, opponents: as :func:`evaluate` takes them.

    Returns:
        ``(agent, members, panel_version, left_out)``: the agent's name (a ``policy:`` path
        made absolute), its opponents (every member, the agent itself too when it is one: a
        self-match), ``PANEL_VERSION`` (None when ``opponents`` were given), and the panel's
        members that cannot play here, with why: an extra not installed, or a learned model
        trained for another number of seats (each also a ``UserWarning``).

    Raises:
        ValueError: an unknown agent or option, a named opponent that cannot play, or no
            opponent left.
    """
    env = load_variant(variant).env(**dict(env_options or {}))
    agent = absolute_policy(agent)
    make_agent(agent, env, seed=0)
    version, left_out = None, {}
    if opponents is None:
        from agents.panel import PANEL_VERSION, missing, panel

        version, members = PANEL_VERSION, list(panel(variant, available_only=True))
        left_out = {m: str(missing(m)) for m in panel(variant) if m not in members}
    else:
        members = list(opponents)
    members = [absolute_policy(m) for m in members]
    playable = []
    for m in members:
        try:
            make_agent(m, env, seed=0)
        except ValueError as err:
            # a panel's model plays the number of seats it was trained for: at another count it
            # is left out, as a member whose extra is missing; a member named by the caller fails
            if opponents is not None or not m.startswith(POLICY_PREFIX) or SHAPE_MISMATCH not in str(err):
                raise
            left_out[m] = str(err)
            warnings.warn(f"panel member {m} left out: {err}", UserWarning, stacklevel=2)
            continue
        playable.append(m)
    if not playable:
        raise ValueError(f"no opponent to evaluate {agent!r} against in {variant}")
    return agent, playable, version, left_out


def evaluate(
    agent: str,
    variant: str,
    env_options: dict | None = None,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    opponents: Sequence[str] | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = False,
    stop: StopRequest | None = None,
) -> tuple[dict, list[dict]]:
    """Play ``agent`` against every opponent of the panel on duplicate deals.

    Args:
        agent: an agent name (``agents.make_agent``).
        variant: ``gin_rummy_v0``, ...
        env_options: options of ``env()`` (``reward`` is set to ``"win"``).
        deals: deals per opponent, each played once with the agent in each seat.
        seed: the deals' seed (the tournament's deal seeds: the same deals for every opponent).
        opponents: the opponents (default: :func:`agents.panel.panel` of the variant, the
            members whose extras are installed); a member that is the agent itself plays
            it too (its row is marked ``same_as_agent``).
        workers, backend, address: where the games run (:func:`experiments.common.parallel.run_tasks`).
        progress: a progress bar of deals.
        stop: Ctrl-C: the evaluation ends with the games finished (``partial``).

    Returns:
        ``(result, records)``: the dict written to ``evaluation.json`` and the games' records.

    Raises:
        ValueError: an unknown variant or agent, bad options, no opponent left, or
            ``deals`` not an int 1..``MAX_DEALS``.
    """
    check_deals(deals)
    env_options = dict(env_options or {})
    env = load_variant(variant).env(**env_options)
    agent, members, version, left_out = panel_members(agent, variant, env_options, opponents)
    size = chunk_deals(deals, len(members), workers if backend == "local" else 1)
    chunks = panel_chunks(agent, members, variant, env_options, deals, seed, chunk_size=size)
    # search members' chunks first: started last, one of them kept a worker busy alone while
    # the others idled (a Crazy Rummy panel: 124 s, pimc:model=1's chunk the last minute)
    first_slow = sorted(chunks, key=lambda c: not slow_member(c.lineup[1]))  # a stable sort
    seats = len(env.possible_agents)
    start = time.perf_counter()
    with progress_counter(sum(c.count for c in chunks), "deal", "evaluate", progress) as bar:
        parts = run_tasks(
            run_chunk,
            first_slow,
            workers=workers,
            backend=backend,
            address=address,
            stop=stop,
            on_result=lambda chunk, part: bar.update(deals_played(chunk, part)),  # a cut chunk: its deals
            in_process_stop=True,
        )
    # the games back in the panel's order (each lineup's rank at its first chunk), then deal and
    # rotation (games.csv's order)
    member = {k: i for i, k in enumerate(dict.fromkeys(" vs ".join(c.lineup) for c in chunks))}
    records = sorted(
        (r for part in parts for r in part),
        key=lambda r: (member[r["lineup"]], r["deal"], r["rotation"]),
    )
    rows = panel_rows(agent, members, records, penalty=variant in POINTS_LABELS)
    for row in rows:  # a member that is the agent itself, under its name or another: a self-match
        row["same_as_agent"] = same_agent(agent, row["opponent"], env)
    rates = [r["win_rate"] for r in rows]
    low = min(rows, key=lambda r: r["win_rate"]) if rows else None
    result = {
        "agent": agent,
        "variant": variant,
        "panel_version": version,
        "opponents": members,
        "left_out": left_out,
        "env_options": env_options,
        "seats": seats,
        "fair_share": 1.0 / seats,
        "deals": deals,
        "seed": seed,
        "rows": rows,
        "panel_mean": sum(rates) / len(rates) if rates else None,
        "panel_min": low["win_rate"] if low else None,
        "panel_min_opponent": low["opponent"] if low else None,
        "games": len(records),
        "seconds": round(time.perf_counter() - start, 1),
        "partial": bool(stop is not None and stop.requested),
    }
    return result, records


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.evaluate``: parse, play, print and write the evaluation."""
    p = argparse.ArgumentParser(
        prog=program_name("experiments.evaluate", "rummy-evaluate"),
        description="An agent against every member of the variant's opponent panel, on duplicate deals.",
    )
    p.add_argument("--variant", required=True, help="gin_rummy, rummy, crazy_rummy or rummikub")
    p.add_argument("--agent", required=True, help="the agent to evaluate (any name the tournament takes)")
    p.add_argument(
        "--deals", type=deal_count, default=DEFAULT_DEALS, help=f"deals per opponent (default: {DEFAULT_DEALS})"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default: 0)")
    p.add_argument("--out", type=path_arg, default=None, help="results folder (default: results/evaluate-<time>)")
    p.add_argument("--opponents", nargs="+", default=None, metavar="NAME", help="these opponents instead of the panel")
    p.add_argument(
        "--workers", type=worker_count, default=usable_cpus(), help="local worker processes (default: the CPUs)"
    )
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes or Ray tasks")
    p.add_argument("--address", default=None, help="with --backend ray: a running cluster (default: a local one)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    if refusal := seed_refusal("--seed", args.seed):  # the deals' seeds are drawn from it: any size
        p.error(refusal)
    if args.address is not None and args.backend != "ray":
        p.error("--address goes with --backend ray")
    refuse_unreachable_address(p, args.address, uses_ray=args.backend == "ray")
    repeated = sorted({name for name in args.opponents or [] if args.opponents.count(name) > 1})
    if repeated:  # each would be played and counted once more, as another member
        p.error(f"--opponents lists {', '.join(repeated)} more than once")
    try:
        variant = resolve_variant(args.variant)
        env_options = parse_env_options(args.env_option)
        refused = [f"{k}={env_options[k]!r}" for k in ("reward", "render_mode") if k in env_options]
        if refused:
            raise ValueError(
                f"--env-option {', '.join(refused)}: the evaluation sets these itself (it reads winners from "
                "reward='win' and plays without rendering); drop the option"
            )
        with warnings.catch_warnings():  # evaluate() below warns about the members left out
            warnings.simplefilter("ignore")
            panel_members(args.agent, variant, env_options, args.opponents)  # bad names fail before the folder exists
        made = args.out is None or not Path(args.out).exists()
        out = output_folder(args.out, "evaluate", job="evaluate")
        with StopRequest("evaluate", "no new deal starts; writing the games finished") as stop:
            result, records = evaluate(
                args.agent,
                variant,
                env_options,
                args.deals,
                args.seed,
                args.opponents,
                args.workers,
                args.backend,
                args.address,
                progress=not args.no_progress,
                stop=stop,
            )
    except RayUnreachableError as err:
        take_back_empty([out] if made else [])
        p.error(str(err))
    except AgentActionError as err:  # a broken agent, not a bad flag: no usage line, no empty folder
        take_back_empty([out] if made else [])
        print(f"{p.prog}: error: {getattr(err, 'cause', None) or err}", file=sys.stderr)  # Ray's: its cause
        return 1
    except ValueError as err:
        p.error(str(err))
    write_evaluation(out, result, records)
    print(format_rows(result))
    if stop.requested:
        print(stop.kept(f"the {len(records)} games finished in {out}/ (evaluation.json: partial)"))
        return stop.exit_code
    print(f"\n{len(records)} games in {result['seconds']} s; results in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())

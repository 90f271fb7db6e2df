"""Decisions labelled by the ``pimc`` search, for self-play's teacher (expert iteration).

    python -m experiments.pimc_labels --minutes 30 --workers 2 --out results/labels/gin.npz
    python -m experiments.pimc_labels --minutes 30 --backend ray --address auto --out results/labels/gin.npz
    python -m experiments.selfplay --teacher-labels results/labels/gin.npz ...

Expert iteration (Anthony, Tian and Barber 2017): a search that plays better than the
policy labels positions, and the policy learns to play as the search did.  Games are
played in ``env()``; in each, one seat (alternating from game to game) plays the search
agent's choice and the other the heuristic, so the positions are those of the matches the
policy will be judged in.  Every decision of the search's seat with more than one legal
action is kept: the observation its player sees, the mask, the search's value of each
legal action, and the heuristic's own choice there.  A value is 0..1 on single hands; with
``--env-option episode=game`` it is the compiled playouts' points margin (1/n for n players
plus the margin over ``agents.search.fast.MARGIN_SCALES``), which can leave 0..1, and
self-play's ``--teacher-margin`` is then in those units.  The search reads the engine only
through ``resample`` of the acting seat, like any agent, so a label uses only what its
player can know.

The games are dealt from one stream (game ``g`` from seed ``seed + g``) and played in chunks
of :data:`CHUNK_GAMES` games, on local worker processes or as Ray tasks (``--backend ray``:
a cluster makes labels at the rate of its cores), until ``--games`` games or ``--minutes``
minutes; Ctrl-C stops it and writes the labels of the chunks finished.

The ``.npz`` file holds ``observation`` (float16 ``(N, obs_size)``: the observation's
entries are small integers, exact in float16), ``mask`` (bool ``(N, num_actions)``),
``values`` (float32 ``(N, num_actions)``, NaN for illegal actions), ``heuristic`` and
``search`` (int64 ``(N,)``: the heuristic's and the search's choice), ``game`` (int64
``(N,)``: the game's number in the file), ``result`` (float32 ``(games,)``: the search's
seat's final reward in each game), ``deal`` (int64 ``(games,)``: each game's number in the
stream, so game ``k`` of the file was dealt with seed ``seed + deal[k]``, the search in seat
``deal[k] % players``; a run stopped early or at its deadline leaves gaps between chunks)
and a JSON ``meta`` string (variant, options,
agent spec, seed, games, seconds, and ``stopped_early`` after a Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from experiments.common import (
    atomic_open,
    description,
    load_variant,
    output_folder,
    parse_env_options,
    path_arg,
    positive_float,
    positive_int,
    program_name,
    resolve_variant,
    take_back_empty,
    worker_count,
)
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import StopRequest
from experiments.common.parallel import RayUnreachableError, refuse_unreachable_address, run_tasks
from experiments.common.progress import progress_counter

#: games per task: a multiple of 2, 3 and 4, so that the search's seat, which moves on by one
#: with every game, takes every seat equally often in each chunk
CHUNK_GAMES = 12

#: the search of the labels by default: ``pimc`` with fewer worlds than its default 500 (and in
#: Gin uniform worlds, ``model=0``: the opponent model is Gin's only)
DEFAULT_AGENT = "pimc:worlds=200,model=0"
DEFAULT_AGENTS = {"gin_rummy_v0": DEFAULT_AGENT}


def default_agent(variant: str) -> str:
    """The search that labels ``variant``'s decisions by default (:data:`DEFAULT_AGENTS`)."""
    return DEFAULT_AGENTS.get(variant, "pimc:worlds=200")


def label_games(
    variant: str,
    env_options: dict,
    agent_spec: str,
    seed: int,
    games: int | None = None,
    seconds: float | None = None,
    stopped: Callable[[], bool] | None = None,
    first: int = 0,
) -> dict[str, np.ndarray]:
    """Play games of the search agent against the heuristic and label the search's decisions.

    Args:
        variant: a registered id (``gin_rummy_v0``, ...); the search must play it.
        env_options: options of ``env()``.
        agent_spec: the search agent (``experiments.tournament`` spec, e.g. ``pimc:worlds=200``);
            it must have ``action_values(state, seat, legal)``.
        seed: game ``g`` is dealt with seed ``seed + g``; the agents' seeds follow from it.
        games: how many games at most.
        seconds: stop starting new games after this many seconds (wall clock).
        stopped: checked before each game; True ends the run there (Ctrl-C).
        first: the stream's number of game 0 (a chunk's first game): game ``g`` is the
            stream's ``first + g`` (its ``deal``), the search in its seat ``(first + g) %
            players``.

    Returns:
        The arrays of the module docstring (``meta`` not included; ``deal`` from ``first``).

    Raises:
        ValueError: neither ``games`` nor ``seconds``, or an agent without action values.
    """
    from agents import make_agent
    from agents.search.worlds import acting_state

    if games is None and seconds is None:
        raise ValueError("label_games needs games or seconds (or both) to know when to stop")
    env = load_variant(variant).env(**env_options)
    env.reset(seed=seed)
    search = make_agent(agent_spec, env, seed=seed)
    if not hasattr(search, "action_values"):
        raise ValueError(
            f"{agent_spec!r} is a {type(search).__name__} in {variant}, which has no value per action "
            "to label decisions with: use pimc in gin_rummy, rummy or crazy_rummy (Rummikub's pimc plans whole plays)"
        )
    heuristic = make_agent("heuristic", env, seed=seed)
    rows: dict[str, list] = {k: [] for k in ("observation", "mask", "values", "heuristic", "search", "game")}
    results = []  # the search's seat's final reward in each game
    start = time.perf_counter()
    g = 0
    while (
        (games is None or g < games)
        and (seconds is None or time.perf_counter() - start < seconds)
        and not (stopped is not None and stopped())
    ):
        env.reset(seed=seed + g)
        searcher = env.possible_agents[(first + g) % len(env.possible_agents)]
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == searcher:
                    results.append(reward)
                env.step(None)
                continue
            mask = np.asarray(obs["action_mask"], bool)
            choice = heuristic.act(obs)
            if agent == searcher and mask.sum() > 1:
                state, seat = acting_state(env, obs)
                legal = np.flatnonzero(mask)
                values = np.full(len(mask), np.nan, np.float32)
                values[legal] = search.action_values(state, seat, [int(a) for a in legal])
                best = int(legal[np.nanargmax(values[legal])])
                for key, val in (
                    ("observation", np.asarray(obs["observation"], np.float16)),
                    ("mask", mask),
                    ("values", values),
                    ("heuristic", choice),
                    ("search", best),
                    ("game", g),
                ):
                    rows[key].append(val)
                choice = best
            env.step(choice)
        g += 1
    shapes = {
        "observation": (env.unwrapped.layout.size, np.float16),
        "mask": (int(env.action_space(env.possible_agents[0]).n), bool),
        "values": (int(env.action_space(env.possible_agents[0]).n), np.float32),
    }
    env.close()
    out = {k: np.asarray(v, dtype=shapes[k][1] if k in shapes else np.int64) for k, v in rows.items()}
    for k, (width, dtype) in shapes.items():
        out[k] = out[k].reshape(-1, width).astype(dtype)
    out["result"] = np.asarray(results, np.float32)  # one per game played: their count too
    out["deal"] = first + np.arange(len(results), dtype=np.int64)  # game g: the stream's first + g
    return out


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One label set from the workers' sets, game numbers made distinct (in part order); each
    part's ``deal`` numbers are the stream's already (:func:`label_chunk`)."""
    offset, merged = 0, {k: [] for k in ("observation", "mask", "values", "heuristic", "search", "game")}
    for part in parts:
        for k in merged:
            merged[k].append(part[k] + offset if k == "game" else part[k])
        offset += len(part["result"])
    merged["result"] = [part["result"] for part in parts]
    merged["deal"] = [part["deal"] for part in parts]
    return {k: np.concatenate(v) for k, v in merged.items()}


def load_labels(path: str | Path) -> dict:
    """A label file's arrays (``observation`` as float32) and its ``meta`` dict.

    Raises:
        ValueError: a file that is not a numpy ``.npz`` archive, or one without the arrays
            of the module docstring.
        OSError: the file cannot be read.
    """
    not_labels = f"{path}: not a pimc_labels file (an .npz that python -m experiments.pimc_labels writes)"
    try:
        f = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile):  # numpy's own text speaks of pickles, or nothing
        raise ValueError(not_labels) from None
    if not isinstance(f, np.lib.npyio.NpzFile):  # a lone .npy array
        raise ValueError(not_labels)
    with f:
        missing = {"observation", "mask", "values", "heuristic", "search", "meta"} - set(f.files)
        if missing:
            raise ValueError(
                f"{path}: not a pimc_labels file (missing {', '.join(sorted(missing))}; an .npz that python -m "
                "experiments.pimc_labels writes holds them)"
            )
        out = {k: f[k] for k in f.files}
    out["observation"] = out["observation"].astype(np.float32)
    out["meta"] = json.loads(str(out["meta"]))
    return out


def label_chunk(task: tuple, stopped: Callable[[], bool] | None = None) -> dict[str, np.ndarray]:
    """One chunk of a label run: ``label_games`` on games ``first .. first + count - 1`` of the
    stream, stopping at the wall-clock ``deadline`` (``time.time()``; None: none).

    Args:
        task: ``(variant, env_options, agent_spec, seed, first, count, deadline)``.
        stopped: in this process, a stop request's check (the chunk ends after its current game).

    Returns:
        the chunk's labels (:func:`label_games` with ``first``: game numbers local to the
        chunk, ``deal`` the stream's).
    """
    variant, env_options, agent_spec, seed, first, count, deadline = task
    seconds = None if deadline is None else max(0.0, deadline - time.time())
    games = 0 if seconds == 0.0 else count
    return label_games(variant, env_options, agent_spec, seed + first, games, seconds, stopped, first)


def chunks(variant: str, env_options: dict, agent: str, seed: int, games: int | None, deadline: float | None):
    """The tasks of a label run (:func:`label_chunk`), lazily: they stop after ``games`` games or
    once the ``deadline`` (``time.time()``) has passed."""
    first = 0
    while (games is None or first < games) and (deadline is None or time.time() < deadline):
        count = CHUNK_GAMES if games is None else min(CHUNK_GAMES, games - first)
        yield (variant, env_options, agent, seed, first, count, deadline)
        first += count


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m experiments.pimc_labels``: the exit status, 0 when done, 2 for a
    usage error, 130 or 143 when stopped by Ctrl-C or SIGTERM after writing the finished
    games' labels."""
    p = argparse.ArgumentParser(
        prog=program_name("experiments.pimc_labels", "rummy-pimc-labels"), description=description(__doc__)
    )
    p.add_argument("--variant", default="gin_rummy", help="gin_rummy, rummy or crazy_rummy (default: gin_rummy)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument(
        "--agent",
        default=None,
        help=f"the search that labels (default: {DEFAULT_AGENT} in Gin, {default_agent('rummy_v0')} elsewhere)",
    )
    p.add_argument("--games", type=positive_int, default=None, help="games to play at most, in all")
    p.add_argument("--minutes", type=positive_float, default=None, help="wall-clock minutes: no game starts after them")
    p.add_argument("--workers", type=worker_count, default=1, help="local processes (default: 1)")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or Ray tasks (the distributed extra) on a local or existing cluster",
    )
    p.add_argument("--address", default=None, help="with --backend ray: a running cluster (default: a local one)")
    p.add_argument("--seed", type=int, default=0, help="game g is dealt from seed + g (default: 0)")
    p.add_argument(
        "--out",
        type=path_arg,
        required=True,
        help="the .npz file to write (an existing one is replaced when the job ends or stops)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    if refusal := seed_refusal("--seed", args.seed):  # the deals' seeds are seed + g: any size
        p.error(refusal)
    if args.games is None and args.minutes is None:
        p.error("give --games or --minutes (or both)")
    if args.address is not None and args.backend != "ray":
        p.error("--address goes with --backend ray")
    refuse_unreachable_address(p, args.address, uses_ray=args.backend == "ray")
    try:
        variant = resolve_variant(args.variant)
        env_options = parse_env_options(args.env_option)
        if args.out.name == ".npz":
            raise ValueError(f"--out {str(args.out)!r} names no file: put a name before .npz (labels.npz)")
        if args.out.suffix != ".npz":
            # numpy would add the suffix itself, and the file written would not be the one named
            raise ValueError(f"--out {str(args.out)!r} must end in .npz")
        made = [] if args.out.parent.exists() else [args.out.parent]
        output_folder(args.out.parent, "", what="--out's folder")
        if args.out.is_dir():
            raise ValueError(f"--out {str(args.out)!r} is a folder: name the .npz file to write")
        args.agent = args.agent or default_agent(variant)
        label_games(variant, env_options, args.agent, args.seed, games=0)  # an agent without values fails now
        if args.backend == "ray":
            import ray  # noqa: F401
    except ValueError as err:
        p.error(str(err))
    except ImportError:
        p.error('--backend ray needs Ray: pip install -e ".[distributed]"')
    start = time.perf_counter()
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    tasks = chunks(variant, env_options, args.agent, args.seed, args.games, deadline)
    with (
        StopRequest(
            "pimc_labels", "ending the games in progress, then writing the labels of the chunks finished"
        ) as stop,
        progress_counter(args.games, "game", "pimc_labels", not args.no_progress) as bar,
    ):
        try:
            parts = run_tasks(
                label_chunk,
                tasks,
                workers=args.workers,
                backend=args.backend,
                address=args.address,
                stop=stop,
                on_result=lambda task, part: bar.update(len(part["result"])),
                in_process_stop=True,
            )
        except RayUnreachableError as err:
            take_back_empty(made)
            p.error(str(err))
    labels = merge(parts) if parts else merge([label_games(variant, env_options, args.agent, args.seed, games=0)])
    meta = {
        "variant": variant,
        "env_options": env_options,
        "agent": args.agent,
        "seed": args.seed,
        "chunk_games": CHUNK_GAMES,
        "games": len(labels["result"]),
        "seconds": round(time.perf_counter() - start, 1),
        "stopped_early": stop.requested,
    }
    with atomic_open(args.out, "wb") as f:  # a second Ctrl-C while it writes keeps the previous labels
        np.savez_compressed(f, meta=json.dumps(meta), **labels)
    n = len(labels["search"])
    same = float(np.mean(labels["search"] == labels["heuristic"])) if n else 0.0
    wins = float(np.mean(labels["result"] > 0)) if meta["games"] else 0.0
    print(
        f"{n} decisions from {meta['games']} games in {meta['seconds']} s -> {args.out} "
        f"(the search chose the heuristic's action in {same:.1%} and won {wins:.1%} of the games)"
    )
    if stop.requested:
        print(stop.kept(f"the labels of {meta['games']} finished games in {args.out}"))
        return stop.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())

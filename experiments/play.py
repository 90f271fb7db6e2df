"""Play a game in the terminal against any agents of the tournament.

    python -m experiments.play --variant gin_rummy --opponents heuristic
    python -m experiments.play --variant rummy --env-option num_players=3 --opponents heuristic random
    python -m experiments.play --variant rummikub --opponents policy:results/rk/model.zip --seat player_1

Your seat is shown as the text render, then the legal moves as a numbered list.  Type
the number of a move or its text (``discard KD``, ``meld 3S 4S 5S``, ``knock 4H``,
``add R7``, ``commit``), ``hint`` to ask the variant's heuristic, ``moves`` to list the
moves again, ``help``, or ``quit``.  A bad entry gets a message and a new prompt.  The
game is written as a record (JSON lines, ``experiments/common/records.py``) that
``python -m experiments.replay`` plays back and checks.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from experiments.common import load_variant, parse_env_options, program_name, resolve_variant
from experiments.common.records import GameRecorder

HELP = (
    "type the number of a move, or its text as listed (e.g. 'discard KD', 'draw stock'); "
    "'hint' asks the heuristic, 'moves' lists the moves again, 'quit' ends the game"
)


class Quit(Exception):
    """The player asked to stop (``quit``, end of input or Ctrl-C)."""


def parse_move(text: str, legal: Sequence[int], raw: Any) -> tuple[int | None, str]:
    """The action id a line of input names among ``legal`` (sorted ids), or None and the
    reason it names none.

    A line is a move's number in the list (1-based) or an action's text.
    """
    text = " ".join(text.split())
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        return None, f"there is no move {k}: choose a number from 1 to {len(legal)}"
    try:
        action = raw.string_to_action(text)
    except ValueError as err:
        return None, f"{text!r} is not a move: {err}. Type a number from 1 to {len(legal)}, a move as listed, or help"
    if action not in legal:
        return None, f"{raw.action_to_string(action)!r} is not legal now: choose one of the moves listed"
    return action, ""


def move_list(legal: Sequence[int], raw: Any) -> str:
    """The legal moves as a numbered list, in columns."""
    items = [f"{i:>3}. {raw.action_to_string(a)}" for i, a in enumerate(legal, 1)]
    width = max(len(x) for x in items) + 2
    per_line = max(1, 96 // width)
    return "\n".join(
        "".join(x.ljust(width) for x in items[i : i + per_line]).rstrip() for i in range(0, len(items), per_line)
    )


def ask(prompt: str) -> str:
    try:
        return input(prompt)
    except (EOFError, KeyboardInterrupt):
        raise Quit from None


def human_move(env: Any, agent: str, hint_agent: Any) -> int:
    """Show ``agent``'s seat and moves, and read a legal move (re-asking after bad input)."""
    raw = env.unwrapped
    seat = raw.agent_name_mapping[agent]
    obs, _, _, _, info = env.last()
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    print()
    print(raw.renderer(raw.game_state, seat))
    print(f"your moves ({agent}):")
    print(move_list(legal, raw))
    while True:
        line = ask("your move (number or text; hint, moves, help, quit)> ").strip()
        word = line.lower()
        if not line:
            continue
        if word in ("quit", "q", "exit"):
            raise Quit
        if word in ("help", "?"):
            print(HELP)
            continue
        if word in ("moves", "m", "list"):
            print(move_list(legal, raw))
            continue
        if word == "hint":
            suggestion = int(hint_agent.act(obs, info))
            print(f"hint: the heuristic would play {raw.action_to_string(suggestion)} ({legal.index(suggestion) + 1})")
            continue
        action, why = parse_move(line, legal, raw)
        if action is None:
            print(why)
            continue
        print(f"you play: {raw.action_to_string(action)}")
        return action


def hand_summary(state: Any) -> str:
    last = state.last_hand
    winners = last.get("winners", [last["winner"]] if last["winner"] >= 0 else [])
    won = ", ".join(f"player_{q}" for q in winners) or "no one"
    extra = f" ({last['result']})" if "result" in last else ""
    scores = ", ".join(f"player_{q} {v}" for q, v in enumerate(last["hand_scores"]))
    totals = ", ".join(f"player_{q} {v}" for q, v in enumerate(last["total_scores"]))
    return f"hand {state.hands_played} over{extra}: won by {won}; hand scores {scores}; totals {totals}"


def setup(args: argparse.Namespace) -> tuple[Any, dict, dict, int, Any]:
    """The env, the opponents by agent name, the seat labels, the seed and the hint agent.

    Raises:
        ValueError: a bad env option, seat or agent name, or a wrong number of opponents.
    """
    module = load_variant(args.variant)
    env = module.env(**args.env_options)
    raw = env.unwrapped
    players = raw.possible_agents
    if args.seat not in players:
        raise ValueError(f"--seat {args.seat!r} is not a seat of this game: {', '.join(players)}")
    others = [a for a in players if a != args.seat]
    names = args.opponents if len(args.opponents) == len(others) else None
    if names is None:
        if len(args.opponents) != 1:
            raise ValueError(
                f"{len(args.opponents)} opponents given for {len(others)} other seat(s): give one name for all, "
                f"or one per seat ({', '.join(others)})"
            )
        names = args.opponents * len(others)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    agents = {
        a: make_agent(name, env, seed=seed + 7919 * (i + 1))
        for i, (a, name) in enumerate(zip(others, names, strict=True))
    }
    hint_agent = make_agent("heuristic", env, seed=seed)
    labels = {args.seat: "you", **dict(zip(others, names, strict=True))}
    return env, agents, labels, seed, hint_agent


def play(args: argparse.Namespace, env: Any, agents: dict, labels: dict, seed: int, hint_agent: Any) -> int:
    """Play one game (the human in ``args.seat``) and write its record; returns the exit code."""
    raw = env.unwrapped
    players = raw.possible_agents
    print(
        f"{args.variant} {args.env_options or 'default options'}, seed {seed}: "
        + ", ".join(f"{a} {labels[a]}" for a in players)
    )
    print(HELP)
    env.reset(seed=seed)
    recorder = GameRecorder(
        env, args.env_options, seed, None, [labels[a] if a != args.seat else "human" for a in players]
    )
    recorder.start()
    status = "complete"
    hands = 0
    returns = dict.fromkeys(players, 0.0)
    try:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            returns[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            if agent == args.seat:
                action = human_move(env, agent, hint_agent)
            else:
                action = int(agents[agent].act(obs, info))
                print(f"{agent} ({labels[agent]}): {raw.action_to_string(action)}")
            env.step(action)
            recorder.step(agent, action)
            state = raw.game_state
            if state.hands_played != hands:
                hands = state.hands_played
                print(hand_summary(state))
    except Quit:
        status = "quit"
    recorder.finish(status)
    state = raw.game_state
    if status == "quit":
        print("game abandoned (quit)")
    else:
        print()
        print(raw.renderer(state, raw.agent_name_mapping[args.seat]))
        final = recorder.lines[-1]["returns"]
        print(
            "game over: returns " + ", ".join(f"{a} ({labels[a]}) {r:+g}" for a, r in zip(players, final, strict=True))
        )
    if args.record is not None:
        stem = f"{args.variant}-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
        path = args.record / f"{stem}.jsonl"
        k = 1
        while path.exists():  # two games in the same second with the same seed
            k += 1
            path = args.record / f"{stem}-{k}.jsonl"
        recorder.write(path)
        print(f"record: {path} (python -m experiments.replay {path})")
    return 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=program_name("experiments.play", "rummy-play"), description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--variant", default="gin_rummy", help="variant to play, e.g. gin_rummy or rummy_v0 (default: gin_rummy)"
    )
    p.add_argument(
        "--opponents",
        nargs="+",
        default=["heuristic"],
        metavar="NAME",
        help="agent names as in the tournament: random, heuristic, policy:PATH, package.module:Name; "
        "one for every other seat, or one per seat (default: heuristic)",
    )
    p.add_argument("--seat", default="player_0", help="your seat (default: player_0)")
    p.add_argument("--seed", type=int, default=None, help="reset seed of the game (default: a random one, printed)")
    p.add_argument(
        "--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env(), e.g. num_players=3"
    )
    p.add_argument(
        "--record",
        type=Path,
        default=Path("results") / "play",
        help="folder of the game records (default: results/play)",
    )
    p.add_argument("--no-record", action="store_true", help="do not write a record")
    args = p.parse_args(argv)
    try:
        args.variant = resolve_variant(args.variant)
        args.env_options = parse_env_options(args.env_option)
    except ValueError as err:
        p.error(str(err))
    if "render_mode" in args.env_options:
        p.error("the game is shown as text: render_mode is not an option here")
    if args.seed is not None and args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    if args.no_record:
        args.record = None
    args.parser = p
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Play from the command line; returns the exit code."""
    args = parse_args(argv)
    try:
        game = setup(args)
    except ValueError as err:
        args.parser.error(str(err))
    return play(args, *game)


if __name__ == "__main__":
    sys.exit(main())

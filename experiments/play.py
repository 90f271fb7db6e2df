"""Play a game in the terminal against any agents of the tournament.

    python -m experiments.play --variant gin_rummy --opponents heuristic
    python -m experiments.play --variant rummy --env-option num_players=3 --opponents heuristic random
    python -m experiments.play --variant rummikub --opponents policy:results/rk/model.zip --seat player_1

Your seat is shown as the text render, then the legal moves as a numbered list.  Type
the number of a move or its text (the intro gives the variant's own examples:
``draw upcard`` and ``knock 4H`` in Gin Rummy, ``meld 3S 4S 5S`` and ``layoff 6S high`` in
Rummy, ``swap 9S`` in Crazy Rummy, ``add R7`` and ``commit`` in Rummikub), ``hint`` to
ask the variant's heuristic, ``moves`` to list the moves again, ``help``, or ``quit``.
In Rummikub ``undo`` takes back the last tile added to the play being built: the game is
replayed from its seed through every recorded move but that one (legal moves only), so
the table and the record are as if it had never been added.  A bad entry gets a message
and a new prompt; a move that is not legal now gets the engine's reason.  The game is
written as a record (JSON lines, ``experiments/common/records.py``) that ``python -m
experiments.replay`` plays back and checks.

Exit codes: 0 a game played to its end or abandoned with ``quit`` (or end of input);
2 a bad command line; 130 Ctrl-C (the game so far is recorded as abandoned, one line
says so, no traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent, seat_seed
from experiments.common import (
    check_folder,
    description,
    load_variant,
    output_folder,
    parse_env_options,
    path_arg,
    program_name,
    resolve_variant,
)
from experiments.common.argv import seed_refusal
from experiments.common.jobs import AgentActionError, agent_action
from experiments.common.records import GameRecorder
from rummy_env.vector.streams import MAX_SEED

#: moves of each variant, as the intro shows them
EXAMPLES = {
    "rummy_v0": "'draw stock', 'meld 3S 4S 5S', 'layoff 6S high', 'discard KD'",
    "gin_rummy_v0": "'draw upcard', 'pass', 'discard KD', 'knock 4H'",
    "crazy_rummy_v0": "'draw discard', 'meld 7C 7D 7H', 'swap 9S', 'discard KD'",
    "rummikub_v0": "'add R7' (a play's tiles in non-decreasing order), 'commit', 'draw'",
}
UNDO = -1  #: :func:`human_move`'s answer to ``undo``
EXIT_INTERRUPTED = 130  #: Ctrl-C (128 + SIGINT, the shell's convention)


def help_text(variant: str) -> str:
    """The intro and ``help`` line of a variant: its own example moves and its words."""
    undo = ", 'undo' takes back the last tile added to your play" if variant == "rummikub_v0" else ""
    return (
        f"type the number of a move, or its text as listed (e.g. {EXAMPLES[variant]}); "
        f"'hint' asks the heuristic, 'moves' lists the moves again{undo}, 'quit' ends the game"
    )


class Quit(Exception):
    """The player asked to stop (``quit`` or end of input)."""


class BrokenAgent(Exception):
    """An opponent chose an action that is not legal (the message says which)."""


def parse_move(text: str, legal: Sequence[int], raw: Any) -> tuple[int | None, str]:
    """The action id a line of input names among ``legal`` (sorted ids), or None and the
    reason it names none.

    A line is a move's number in the list (1-based) or an action's text.
    """
    text = " ".join(text.split())
    # isascii: str.isdigit() also holds for characters int() refuses (superscripts); a long
    # number is no move (and int() refuses more than 4,300 digits)
    if text.isascii() and text.isdigit():
        k = int(text) if len(text) < 9 else 0
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        shown = text if len(text) < 20 else text[:16] + "..."
        return None, f"there is no move {shown}: choose a number from 1 to {len(legal)}"
    try:
        action = raw.string_to_action(text)
    except ValueError as err:
        return None, f"{text!r} is not a move: {err}. Type a number from 1 to {len(legal)}, a move as listed, or help"
    if action not in legal:
        return None, f"{raw.action_to_string(action)!r} is not legal now: {illegal_reason(raw, action)}"
    return action, ""


def illegal_reason(raw: Any, action: int) -> str:
    """Why the engine refuses ``action`` now (its ``IllegalActionError`` message, which
    names the legal moves), or a pointer to the list before a game is dealt."""
    state = raw.game_state
    if state is None:
        return "choose one of the moves listed"
    try:
        state.check_action(action)
    except ValueError as err:
        return str(err)
    return "choose one of the moves listed"  # legal for the engine, not in this list


def move_list(legal: Sequence[int], raw: Any) -> str:
    """The legal moves as a numbered list, in columns."""
    items = [f"{i:>3}. {raw.action_to_string(a)}" for i, a in enumerate(legal, 1)]
    width = max(len(x) for x in items) + 2
    per_line = max(1, 96 // width)
    return "\n".join(
        "".join(x.ljust(width) for x in items[i : i + per_line]).rstrip() for i in range(0, len(items), per_line)
    )


def ask(prompt: str) -> str:
    """A line of input; Ctrl-C (``KeyboardInterrupt``) passes through to :func:`play`.

    Raises:
        Quit: end of input.
    """
    try:
        return input(prompt)
    except EOFError:
        raise Quit from None


def can_undo(raw: Any) -> bool:
    """Whether the acting player has added tiles to a Rummikub play it may take back."""
    return raw.metadata["name"] == "rummikub_v0" and bool(raw.game_state.chosen.any())


def human_move(env: Any, agent: str, hint_agent: Any) -> int:
    """Show ``agent``'s seat and moves, and read a legal move (re-asking after bad
    input); :data:`UNDO` when the player takes back a Rummikub tile (:func:`undo_last`)."""
    raw = env.unwrapped
    seat = raw.agent_name_mapping[agent]
    obs, _, _, _, info = env.last()
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    variant = raw.metadata["name"]
    print()
    print(raw.renderer(raw.game_state, seat))
    print(f"your moves ({agent}):")
    print(move_list(legal, raw))
    words = "hint, moves, undo, help, quit" if variant == "rummikub_v0" else "hint, moves, help, quit"
    while True:
        line = ask(f"your move (number or text; {words})> ").strip()
        word = line.lower()
        if not line:
            continue
        if word in ("quit", "q", "exit"):
            raise Quit
        if word in ("help", "?"):
            print(help_text(variant))
            continue
        if word == "undo":
            if can_undo(raw):
                return UNDO
            print(
                "nothing to undo: no tile has been added to your play this turn"
                if variant == "rummikub_v0"
                else f"undo takes back a tile of a Rummikub play; in {variant} every move is final"
            )
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
    """One line on the hand just ended: its number, its result when the engine names one
    (``last_hand["result"]``), the winners, the hand's scores and the totals."""
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
        a: make_agent(name, env, seed=seat_seed(seed, i + 1))
        for i, (a, name) in enumerate(zip(others, names, strict=True))
    }
    hint_agent = make_agent("heuristic", env, seed=seed)
    labels = {args.seat: "you", **dict(zip(others, names, strict=True))}
    return env, agents, labels, seed, hint_agent


def undo_last(env: Any, recorder: GameRecorder, seed: int) -> GameRecorder:
    """Take back the last recorded move (a tile the human added to a Rummikub play): the
    game is reset with its seed and every recorded move but the last is stepped again
    (``env.step`` checks each; they are the moves that were legal then), into the same
    env object (the agents hold it) and a new recorder.  Returns the new recorder."""
    moves = [(x["agent"], x["action"]) for x in recorder.lines if x["type"] == "action"][:-1]
    game = recorder.lines[0]
    env.reset(seed=seed)
    new = GameRecorder(env, game["options"], seed, None, game["agents"])
    new.start()
    for agent, action in moves:
        if env.agent_selection != agent:
            raise RuntimeError(f"undo: the replay has {env.agent_selection} to act, the record {agent}")
        env.step(action)
        new.step(agent, action)
    return new


def play(args: argparse.Namespace, env: Any, agents: dict, labels: dict, seed: int, hint_agent: Any) -> int:
    """Play one game (the human in ``args.seat``) and write its record; returns the exit
    code (0; :data:`EXIT_INTERRUPTED` after Ctrl-C; 1 when an opponent chose an illegal
    action: the game is abandoned there, its legal moves recorded as a quit game)."""
    raw = env.unwrapped
    players = raw.possible_agents
    print(
        f"{args.variant} {args.env_options or 'default options'}, seed {seed}: "
        + ", ".join(f"{a} {labels[a]}" for a in players)
    )
    print(help_text(args.variant))
    env.reset(seed=seed)
    recorder = GameRecorder(
        env, args.env_options, seed, None, [labels[a] if a != args.seat else "human" for a in players]
    )
    recorder.start()
    status = "complete"
    interrupted = False
    broken = None
    hands = 0
    returns = dict.fromkeys(players, 0.0)
    seated, names = [agents.get(p) for p in players], [labels[p] for p in players]  # agent_action's seat order
    try:
        for agent in env.agent_iter():  # an undo resets this env and steps it again: the loop goes on
            obs, reward, termination, truncation, info = env.last()
            returns[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            if agent == args.seat:
                action = human_move(env, agent, hint_agent)
                if action == UNDO:
                    taken_back = recorder.lines[-1]["text"]
                    recorder = undo_last(env, recorder, seed)
                    print(f"undo: {taken_back} taken back")
                    continue
            else:
                try:
                    action = agent_action(env, seated, players.index(agent), obs, info, seed, names)
                except AgentActionError as err:
                    raise BrokenAgent(str(err)) from None
                print(f"{agent} ({labels[agent]}): {raw.action_to_string(action)}")
            env.step(action)
            recorder.step(agent, action)
            state = raw.game_state
            if state.hands_played != hands:
                hands = state.hands_played
                print(hand_summary(state))
    except Quit:
        status = "quit"
    except BrokenAgent as err:
        status, broken = "quit", str(err)
    except KeyboardInterrupt:
        status, interrupted = "quit", True
    path = None
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: the record is still written
        recorder.finish(status)
        path = write_play_record(args, recorder, seed)
    if interrupted:
        where = f"; record {path}" if path is not None else ""
        print(f"\ninterrupted (Ctrl-C): game abandoned{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if broken is not None:
        where = f"; the moves before it: record {path}" if path is not None else ""
        print(f"error: {broken}: game abandoned{where}", file=sys.stderr)
        return 1
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
    if path is not None:
        print(f"record: {path} (python -m experiments.replay {path})")
    return 0


def write_play_record(args: argparse.Namespace, recorder: GameRecorder, seed: int) -> Path | None:
    """Write the game's record to ``args.record`` (None: ``--no-record``); returns its path."""
    if args.record is None:
        return None
    stem = f"{args.variant}-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
    path = args.record / f"{stem}.jsonl"
    k = 1
    while path.exists():  # two games in the same second with the same seed
        k += 1
        path = args.record / f"{stem}-{k}.jsonl"
    return recorder.write(path)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of ``experiments.play`` (``--help``); a bad value exits with status 2."""
    p = argparse.ArgumentParser(prog=program_name("experiments.play", "rummy-play"), description=description(__doc__))
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
        type=path_arg,
        default=None,
        help="folder of the game records (default: results/play)",
    )
    p.add_argument("--no-record", action="store_true", help="do not write a record (whatever --record says)")
    args = p.parse_args(argv)
    try:
        args.variant = resolve_variant(args.variant)
        args.env_options = parse_env_options(args.env_option)
    except ValueError as err:
        p.error(str(err))
    if "render_mode" in args.env_options:
        p.error("the game is shown as text: render_mode is not an option here")
    # bounded as the engines' seeds: the record's file name holds the seed, and a 300-digit one
    # failed to be written (OSError: File name too long) after the whole game was played
    if args.seed is not None and (refusal := seed_refusal("--seed", args.seed, MAX_SEED)):
        p.error(refusal)
    if args.no_record:
        args.record = None
    else:
        args.record = args.record or Path("results") / "play"
        try:  # checked now, made once the game is set up: a bad folder must not lose a record
            check_folder(args.record, "--record")
        except ValueError as err:
            p.error(str(err))
    args.parser = p
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Play from the command line; returns the exit code (module docstring)."""
    args = parse_args(argv)
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not text are a bad move, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    try:
        try:
            game = setup(args)
            if args.record is not None:
                args.record = output_folder(args.record, "play", what="--record")
        except ValueError as err:
            args.parser.error(str(err))
        return play(args, *game)
    except KeyboardInterrupt:  # while the agents load, or at the very end
        print("\ninterrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())

"""Replay a game record through ``env()``, check it, and show it.

    python -m experiments.replay results/play/gin_rummy_v0-....jsonl            # text, step by step
    python -m experiments.replay RECORD --pause                                 # wait for Enter at each step
    python -m experiments.replay RECORD --gif game.gif                          # an animated GIF
    python -m experiments.replay RECORD --images frames/ --seat player_0        # one PNG per step

The replay resets the env as the game was started and applies the recorded actions; it
stops with an error if a deck, an action or a reward differs from the record (see
``experiments/common/records.py``), and prints ``record checked`` when everything matched.
Each step is shown from the acting player's seat (as ``render_mode="rgb_array"`` and
``"ansi"`` do), or always from ``--seat``.  Images need Pillow (the ``render`` extra).

Exit codes:

- 0: the record replayed and everything matched (``record checked``);
- 1: the record is well formed, but the replay parts from it: another deck or dealer,
  an illegal action, other rewards or returns, an action after the game's end
  (``record does not replay: <file>, line <n>, step <k> (<player> <move>): ...``);
- 2: a bad command line (argparse's code): an unknown flag, a file that cannot be read,
  ``--seat`` not a player, images asked for without Pillow;
- 3: the record is damaged: a line that is not JSON or not a JSON object (or longer than
  a megabyte, or giving a key twice), a missing key, a value of the wrong type or size, no
  hand line, or a game the env cannot set up
  (``record is damaged: <file>, line <n> (<type>), field '<key>': ...``; see
  ``experiments.common.record_schema``);
- 130 / 143: stopped by Ctrl-C (or the end of input with ``--pause``) / SIGTERM;
- 141: the output's reader stopped reading (``| head``), quietly as a shell tool does.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from experiments.common import atomic_open, description, path_arg, program_name
from experiments.common.interrupt import TermAsInterrupt
from experiments.common.records import RecordError, RecordMismatch, message_text, read_record, replay

EXIT_MISMATCH = 1  #: the record is well formed but the replay parts from it
EXIT_DAMAGED = 3  #: the record is damaged (argparse's usage errors are 2)
EXIT_PIPE = 141  #: the reader of the output stopped (``| head``): 128 + SIGPIPE, as a shell tool


def _viewer(env: Any, seat: str | None) -> int:
    raw = env.unwrapped
    return raw.agent_name_mapping[seat or raw.agent_selection]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of ``experiments.replay`` (``--help``); a bad value exits with status 2."""
    p = argparse.ArgumentParser(
        prog=program_name("experiments.replay", "rummy-replay"),
        description=description(__doc__),
        epilog="exit codes: 0 the record replayed and matched; 1 the replay parts from the record (another deck, "
        "an illegal action, other rewards or returns); 2 a bad command line or an unreadable file; 3 the record is "
        "damaged (not JSON, a missing key, a value of the wrong type or size; the message names the line and field); "
        "130 stopped (Ctrl-C, or the end of input with --pause), 143 stopped by SIGTERM, 141 the output's reader "
        "stopped reading (| head)",
    )
    p.add_argument(
        "record", type=path_arg, help="a record file (JSON lines) written by experiments.play or the tournament"
    )
    p.add_argument("--gif", type=path_arg, default=None, help="write the game as an animated GIF to this file")
    p.add_argument("--images", type=path_arg, default=None, help="write one PNG per step to this folder")
    p.add_argument("--seat", default=None, help="show every step from this agent's seat (default: the acting one)")
    p.add_argument("--fps", type=float, default=None, help="with --gif: frames per second (default: 2)")
    p.add_argument("--pause", action="store_true", help="wait for Enter after each step (text; not with --quiet)")
    p.add_argument("--quiet", action="store_true", help="no text, only the check (and the images)")
    args = p.parse_args(argv)
    if args.gif is not None and args.gif.suffix.lower() != ".gif":
        p.error(f"--gif {args.gif}: the file name must end in .gif (the animation is a GIF)")
    # a GIF stores frame times in hundredths of a second, at most 655.35 s
    if args.fps is not None and not (math.isfinite(args.fps) and 0.01 <= args.fps <= 100):
        p.error(f"--fps must be between 0.01 and 100 (GIF frames of 10 ms to 100 s), got {args.fps}")
    # a flag that would change nothing: say so rather than ignore it
    if args.fps is not None and args.gif is None:
        p.error(f"--fps {args.fps:g} applies to --gif only: give --gif FILE.gif, or leave --fps out")
    if args.pause and args.quiet:
        p.error("--pause waits after each step of the text, which --quiet turns off: give one of them")
    args.fps = 2.0 if args.fps is None else args.fps
    args.parser = p
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Replay a record from the command line; returns the exit code (module docstring:
    0 matched, 1 a mismatch, 3 a damaged record, 130 / 143 stopped by Ctrl-C / SIGTERM,
    141 the output's reader stopped reading; argparse exits 2 on a bad command line)."""
    with TermAsInterrupt() as stop:  # SIGTERM stops it as Ctrl-C does: no GIF cut short
        try:
            code = _main(argv, stop)
            sys.stdout.flush()  # inside the try: a reader gone before the interpreter's last flush
            return code
        except BrokenPipeError:
            # nothing more can be shown; stdout to /dev/null so that the interpreter's own
            # flush at exit does not fail again with a traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_PIPE


def _main(argv: Sequence[str] | None, stop: TermAsInterrupt) -> int:
    args = parse_args(argv)
    try:
        lines = read_record(args.record)
    except RecordError as err:
        print(f"record is damaged: {err}", file=sys.stderr)
        return EXIT_DAMAGED
    except OSError as err:
        args.parser.error(f"cannot read the record: {err}")
    game = lines[0]
    players = game["players"]
    if args.seat is not None and args.seat not in players:
        args.parser.error(f"--seat {args.seat!r} is not a player of this game: {', '.join(players)}")
    images = args.gif is not None or args.images is not None
    if images:
        try:
            from rummy_env.render.image import require_pillow

            require_pillow()
        except ImportError as err:
            args.parser.error(str(err))
    frames = []
    for flag, folder in (("--images", args.images), ("--gif", None if args.gif is None else args.gif.parent)):
        if folder is None:
            continue
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK):  # known now, not after the whole game is rendered
                raise PermissionError(f"{folder} is not writable")
        except OSError as err:
            args.parser.error(f"{flag}: cannot create the output folder: {err}; give one that can be made and written")

    def on_step(env: Any, line: dict | None) -> None:
        raw = env.unwrapped
        seat = _viewer(env, args.seat)
        if not args.quiet:
            head = "deal" if line is None else f"step {line['step']}: {line['agent']} {line['text']}"
            print(f"\n== {head}")
            print(raw.renderer(raw.game_state, seat))
            if args.pause:
                try:
                    input("(Enter: next step) ")
                except EOFError:  # no more input: stop like Ctrl-C, not with the mismatch code
                    raise KeyboardInterrupt from None
        if images:
            from rummy_env.render.image import to_image
            from rummy_env.render.scene import table_picture

            img = to_image(table_picture(raw.game_state, seat, raw.last_move))
            if args.images is not None:
                with atomic_open(args.images / f"step{len(frames):04d}.png", "wb") as f:
                    img.save(f, format="PNG")
            frames.append(img)

    agents = game.get("agents") or players
    print(
        f"{game['variant']} {game['options']} seed {game['seed']}: "
        + ", ".join(f"{message_text(p)} {message_text(a)}" for p, a in zip(players, agents, strict=False))
    )
    try:
        env = replay(lines, on_step=on_step)
    except RecordError as err:
        print(f"record is damaged: {args.record}, {err}", file=sys.stderr)
        return EXIT_DAMAGED
    except RecordMismatch as err:
        print(f"record does not replay: {args.record}, {err}", file=sys.stderr)
        return EXIT_MISMATCH
    except KeyboardInterrupt:  # Ctrl-C, or the end of input under --pause
        print("replay: stopped before the end; the record was checked up to the step shown", file=sys.stderr)
        return stop.exit_code
    if args.gif is not None and frames:
        # the last frame (the result) stays up longer
        durations = [round(1000 / args.fps)] * (len(frames) - 1) + [4000]
        try:
            with atomic_open(args.gif, "wb") as f:  # a stop while it is written keeps an earlier file whole
                frames[0].save(f, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
        except OSError as err:
            args.parser.error(f"cannot write --gif {args.gif}: {err}")
        except KeyboardInterrupt:
            print(f"replay: stopped while writing {args.gif}; nothing written there", file=sys.stderr)
            return stop.exit_code
        print(f"wrote {args.gif} ({len(frames)} frames)")
    if args.images is not None:
        # an earlier, longer replay's frames past this game's last step would stay beside its own
        earlier = [
            f
            for f in args.images.iterdir()
            if re.fullmatch(r"step\d{4,}\.png", f.name) and int(f.name[4:-4]) >= len(frames)
        ]
        for f in earlier:
            f.unlink()
        removed = f"; removed {len(earlier)} later step images of an earlier replay" if earlier else ""
        print(f"wrote {len(frames)} images to {args.images}/{removed}")
    end = next((x for x in lines if x["type"] == "end"), None)
    steps = sum(1 for x in lines if x["type"] == "action")
    if end is None:
        print(f"record checked: {steps} steps, rewards as recorded (the record has no end line)")
    else:
        returns = ", ".join(f"{a} {r:g}" for a, r in zip(players, end["returns"], strict=True))
        over = "game over" if env.unwrapped.game_state.is_terminal() else "game not finished"
        print(f"record checked: {steps} steps, rewards as recorded ({end['status']}, {over}); returns {returns}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

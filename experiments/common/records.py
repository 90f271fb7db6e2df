"""Game records: one game as JSON lines, written while it is played, replayed and checked.

A record file holds one game (an episode), one JSON object per line:

- ``{"type": "game", "format": "rummy_env.record/1", "variant": "gin_rummy_v0",
  "options": {env() options}, "seed": 7, "reset_options": null, "players": [...],
  "agents": ["human", "heuristic"]}``: how the env was made and reset.
- ``{"type": "hand", "hand": 1, "deck": ["7C", ...], "dealer": 1}``: the stacked deck of
  each hand as it is dealt (card strings top first; Rummikub: the 106 tiles first drawn
  first, with ``"first_player"`` instead of ``"dealer"``; Crazy Rummy adds the round's
  ``"wild_rank"``, 1..13, R-CRAZY-02).
- ``{"type": "action", "step": 0, "agent": "player_1", "action": 106, "text": "pass",
  "rewards": [0.0, 0.0]}``: every decision, with the rewards of all seats after it
  (left out when all are 0).
- ``{"type": "end", "status": "complete", "returns": [...], "hand_scores": [[...], ...],
  "total_scores": [...]}``: the episode's returns per seat and the scores of each hand;
  ``status`` is ``"quit"`` for a game abandoned in ``experiments.play``.

Replaying resets ``variant.env(**options)`` with the recorded ``seed`` and
``reset_options`` (exactly as the game was started), then checks that each hand's deck
and dealer (and Crazy Rummy's wild rank) come out as recorded, that every recorded action is legal, and that the
rewards of every step, the returns, the end line's hand scores and totals, and its status
match.  Later hands of ``episode="game"`` are
shuffled by the env's seeded generator, so the seed is what replays them; the decks in
the record document them and check the replay.  A record without a seed can only be
replayed for its first hand (reset with the first deck and dealer, and a one-round Crazy
Rummy episode's wild rank, which the seed would otherwise draw): :func:`replay` then
stops with :class:`RecordMismatch` when a second hand is dealt.

Before anything is replayed the record's shape is checked (:func:`check_record`, a
JSON-schema-like check of every line against :data:`SCHEMA`): a line that is not a JSON
object, a missing key, a value of the wrong type or size (a seed that is not a
non-negative int, rewards or returns that do not have one number per player, a deck that
is not a list of 52 cards or 106 tiles) raises :class:`RecordError` naming the line and
the field.  So a damaged record (:class:`RecordError`) and a record the game does not
follow (:class:`RecordMismatch`) are told apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.jobs import atomic_open, load_variant, play_reset
from experiments.common.record_schema import (  # noqa: F401 - public here too
    FORMAT,
    SCHEMA,
    RecordError,
    check_record,
    shown,
    value_kind,
)
from rummy_env.games.options import check_seed


class RecordMismatch(ValueError):
    """A replay parted from its record (another deck, an illegal action, other rewards)."""


#: a record line longer than this is refused unread (bytes; a Rummikub hand line, the
#: longest a recorder writes, is under 2,000)
MAX_LINE_BYTES = 1_000_000


def message_text(text: str) -> str:
    """A string of the record as a message shows it: as written when it is short printable
    text, else :func:`shown` (quoted, escaped, cut): a record's text must not add lines or
    terminal codes to an error."""
    return text if len(text) <= 80 and text.isprintable() else shown(text)


def _no_twice(pairs: list[tuple[str, Any]]) -> dict:
    """``json.loads``' object hook: a key given twice is refused (JSON keeps the last one,
    so an edit would pass unseen)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise RecordError(f"field {shown(twice)} is given twice")
    return out


def _deck_strings(variant: str, deck: Sequence[int]) -> list[str]:
    if variant == "rummikub_v0":
        from rummy_env.core.tiles import tile_str

        return [tile_str(int(t)) for t in deck]
    from rummy_env.core.cards import card_str

    return [card_str(int(c)) for c in deck]


def _seat_key(variant: str) -> str:
    return "first_player" if variant == "rummikub_v0" else "dealer"


def _hand_line(variant: str, state: Any, hand: int) -> dict:
    """The deck of hand number ``hand`` (1-based) and who dealt it (the current one), and
    in Crazy Rummy the current round's wild rank 1..13 (R-CRAZY-02)."""
    seat = state.first_player if variant == "rummikub_v0" else state.dealer
    line = {
        "type": "hand",
        "hand": hand,
        "deck": _deck_strings(variant, state.hand_decks[hand - 1]),
        _seat_key(variant): seat,
    }
    if variant == "crazy_rummy_v0":
        line["wild_rank"] = int(state.wild_rank) + 1
    return line


def _collect_hand_scores(state: Any, collected: list) -> None:
    """Append the scores of the hand ``state`` just finished to ``collected`` (once per hand)."""
    if state.hands_played > len(collected) and state.last_hand is not None:
        collected.append(_jsonable(state.last_hand["hand_scores"]))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.bool_):  # env options take it as a bool (options.check_bool)
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _text(name: str) -> str:
    """``name`` as Unicode text: a name from a command line of bytes that are not UTF-8 (a
    ``policy:PATH``) holds lone surrogates, which no record may (``record_schema``); they
    are written as ``\\udcff`` escapes instead."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


class GameRecorder:
    """Records one game of a wrapped or raw env of this package while it is played.

    Call :meth:`start` right after ``env.reset(seed=seed, options=reset_options)``,
    :meth:`step` after every ``env.step(action)`` of a live agent, and :meth:`finish`
    at the end; :meth:`write` saves the lines.

    Args:
        env: the env the game is played in.
        options: the ``env()`` options it was made with (without ``render_mode``).
        seed: the reset seed (None if the env continued its generator: then only the
            first hand can be replayed).
        reset_options: the reset options passed (e.g. a stacked deck), or None.
        agents: a name per seat, for the reader (not needed to replay).

    Raises:
        ValueError: ``seed`` is neither None nor an int >= 0 (NumPy integers are written
            as ints), as ``env.reset`` takes seeds: checked here, not after the game.
    """

    def __init__(
        self,
        env: Any,
        options: dict,
        seed: int | None,
        reset_options: dict | None = None,
        agents: Sequence[str] | None = None,
    ):
        seed = check_seed("seed", seed, " (a record's seed)")
        raw = env.unwrapped
        self.env = env
        self.variant = raw.metadata["name"]
        self.players = list(raw.possible_agents)
        self.lines: list[dict] = [
            {
                "type": "game",
                "format": FORMAT,
                "variant": self.variant,
                "options": _jsonable({k: v for k, v in options.items() if k != "render_mode"}),
                "seed": seed,
                "reset_options": _jsonable(reset_options),
                "players": self.players,
                "agents": [_text(a) for a in agents] if agents is not None else None,
            }
        ]
        self._hands = 0
        self._steps = 0
        self._returns = [0.0] * len(self.players)
        self._hand_scores: list[list] = []

    def _new_hands(self) -> None:
        state = self.env.unwrapped.game_state
        while self._hands < len(state.hand_decks):
            self._hands += 1
            self.lines.append(_hand_line(self.variant, state, self._hands))

    def _scores(self) -> None:
        _collect_hand_scores(self.env.unwrapped.game_state, self._hand_scores)

    def start(self) -> None:
        """Record the first deal (call right after the reset)."""
        self._new_hands()

    def step(self, agent: str, action: int) -> None:
        """Record ``agent``'s ``action``, just applied, and the rewards it gave."""
        raw = self.env.unwrapped
        rewards = [float(raw.rewards.get(a, 0.0)) for a in self.players]
        line = {
            "type": "action",
            "step": self._steps,
            "agent": agent,
            "action": int(action),
            "text": raw.action_to_string(int(action)),
        }
        if any(rewards):
            line["rewards"] = rewards
            self._returns = [r + x for r, x in zip(self._returns, rewards, strict=True)]
        self.lines.append(line)
        self._steps += 1
        self._scores()  # the hand that just ended, before the next deal's line
        self._new_hands()

    def finish(self, status: str = "complete") -> list[dict]:
        """Add the end line (``status``: ``"complete"`` or ``"quit"``; a quit that came after
        the game's last move, e.g. Ctrl-C at that moment, is recorded as complete); returns
        all lines."""
        state = self.env.unwrapped.game_state
        self.lines.append(
            {
                "type": "end",
                "status": "complete" if state.is_terminal() else status,
                "returns": self._returns,
                "hand_scores": self._hand_scores,
                "total_scores": _jsonable(list(state.scores)),
            }
        )
        return self.lines

    def write(self, path: str | Path) -> Path:
        """Write the lines as JSON lines to ``path`` (its folder is created); returns it."""
        return write_record(self.lines, path)


def write_record(lines: Sequence[dict], path: str | Path) -> Path:
    """Write record lines to ``path``, one JSON object per line (whole or not at all:
    :func:`~experiments.common.jobs.atomic_open`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return path


class RecordLines(list):
    """The lines of a record as :func:`read_record` returns them: a list, plus each line's
    number in its file (``line_numbers``; blank lines are skipped), which messages cite."""

    def __init__(self, lines: Sequence[dict], line_numbers: Sequence[int]):
        super().__init__(lines)
        self.line_numbers = list(line_numbers)


def read_record(path: str | Path) -> RecordLines:
    """The lines of a record file, checked by :func:`check_record` (blank lines skipped;
    messages, here and in :func:`replay`, give the lines' numbers in the file).

    Raises:
        OSError: the file cannot be read.
        RecordError: (a ``ValueError``) not a record, or a damaged one: a line that is not
            UTF-8 JSON (or is nested too deeply to parse, or longer than
            :data:`MAX_LINE_BYTES`, or gives a field twice), an unknown format, a line
            :func:`check_record` refuses.  The message names the file, line and field.
    """
    lines, numbers = [], []
    with open(path, "rb") as f:
        for i, raw in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 3), b""), 1):
            if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise RecordError(f"{path}, line {i}: longer than {MAX_LINE_BYTES:,} bytes, which no record line is")
            try:
                text = raw.decode("utf-8")
                if not text.strip():
                    continue
                lines.append(json.loads(text, object_pairs_hook=_no_twice))
            except RecordError as err:
                raise RecordError(f"{path}, line {i}: {err}") from None
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise RecordError(f"{path}, line {i}: not JSON ({err})") from None
            except ValueError as err:  # e.g. an integer of more digits than Python converts
                raise RecordError(f"{path}, line {i}: a value no record holds ({err})") from None
            except RecursionError:
                raise RecordError(f"{path}, line {i}: nested too deeply to be a record line") from None
            numbers.append(i)
    if not lines or not isinstance(lines[0], dict) or lines[0].get("type") != "game":
        raise RecordError(f"{path} is not a game record: its first line must be the game line")
    if lines[0].get("format") != FORMAT:
        raise RecordError(f"{path}: record format {lines[0].get('format')!r}, this version reads {FORMAT!r}")
    check_record(lines, numbers, str(path))
    return RecordLines(lines, numbers)


def play_recorded(
    env: Any, agents: Sequence[Any], seed: int, options: dict, names: Sequence[str]
) -> tuple[dict, list[dict]]:
    """Play one episode of ``env`` (``agents[i]`` in seat ``i``, reset with ``seed``)
    exactly as ``experiments.common.play_episode`` does and record it.

    Returns:
        ``play_episode``'s result dict (``returns``, ``infos``, ``steps``,
        ``truncated``) and the record lines.

    Raises:
        AgentActionError: an agent chose an action that is not legal
            (:func:`experiments.common.jobs.agent_action`): no record is written.
    """
    env.reset(seed=seed)
    rec = GameRecorder(env, options, seed, None, names)
    rec.start()
    return play_reset(env, agents, seed, names, on_step=rec.step), rec.finish()


def _same_numbers(a: Any, b: Any) -> bool:
    """Whether two numbers, or nested lists of them, are equal (within 1e-9)."""
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(_same_numbers(x, y) for x, y in zip(a, b, strict=True))
        )
    return abs(float(a) - float(b)) <= 1e-9  # the schema refused numbers beyond float64


def replay(
    lines: Sequence[dict],
    render_mode: str | None = None,
    on_step: Callable[[Any, dict | None], None] | None = None,
) -> Any:
    """Replay a record through ``env()`` and check it.

    Args:
        lines: the record (:func:`read_record`).
        render_mode: passed to ``env()`` (e.g. ``"rgb_array"`` to draw frames).
        on_step: called as ``on_step(env, line)`` after the reset (``line`` None) and
            after every recorded action.

    Returns:
        the env at the end of the replay.

    Raises:
        RecordError: the record is damaged (:func:`check_record`), or its game cannot be
            set up (the env refuses its options, reset options or first deck, or has
            other players).
        RecordMismatch: a deck or dealer, an action (its id or its text), a hand the game
            never dealt, the rewards, returns, hand scores or totals differ from the record,
            or its status does (complete but not ended, quit but ended); the message says where.
    """
    file_numbers = getattr(lines, "line_numbers", None)  # read_record's, with blank lines skipped
    if file_numbers is not None and len(file_numbers) != len(lines):  # lines added or removed since
        file_numbers = None
    check_record(lines, file_numbers)
    game = lines[0]
    variant = game["variant"]
    hands = [x for x in lines if x["type"] == "hand"]
    actions = [x for x in lines if x["type"] == "action"]
    end = next((x for x in lines if x["type"] == "end"), None)
    key = _seat_key(variant)
    numbers = {id(x): n for x, n in zip(lines, file_numbers or range(1, len(lines) + 1), strict=True)}
    field = "line 1 (game), field 'options'"
    try:  # an edited record: the env refuses its options, reset options or first deck
        env = load_variant(variant).env(render_mode=render_mode, **game["options"])
        if game["seed"] is not None:
            field = "line 1 (game), field 'reset_options'"
            env.reset(seed=game["seed"], options=game.get("reset_options"))
        else:
            field = f"line {numbers[id(hands[0])]} (hand), field 'deck' or '{key}'"
            first = {"deck": hands[0]["deck"], key: hands[0][key]}
            if "wild_rank" in hands[0] and game["options"].get("episode", "hand") == "hand":
                field = field.replace(" or ", ", ") + " or 'wild_rank'"
                first["wild_rank"] = hands[0]["wild_rank"]  # a game's first round is aces anyway
            env.reset(options=first)
    except (ValueError, TypeError) as err:
        raise RecordError(f"{field}: the game cannot be set up: {err}") from None
    raw = env.unwrapped
    if game["players"] != list(raw.possible_agents):
        raise RecordError(
            f"line 1 (game), field 'players': {game['players']}, but the game's players are {raw.possible_agents}"
        )
    seen = 0
    # hand k's line stands between the line that dealt it (the game line, or an action) and
    # the next action line, as GameRecorder writes it
    action_lines = [numbers[id(x)] for x in actions] + [numbers[id(lines[-1])] + 1]

    def check_hands(where: str, after: int, before: int) -> None:
        nonlocal seen
        state = raw.game_state
        while seen < len(state.hand_decks):
            seen += 1
            if seen <= len(hands) and not after < numbers[id(hands[seen - 1])] < before:
                raise RecordError(
                    f"line {numbers[id(hands[seen - 1])]} (hand): hand {seen} is dealt by line {after} ({where}), "
                    f"so its line belongs after that one and before line {before} (lines out of order)"
                )
            if seen > 1 and game["seed"] is None:
                raise RecordMismatch(
                    f"line {after}, {where}: hand {seen} is dealt by the env's generator, but a record without a "
                    "seed replays only its first hand"
                )
            if seen > len(hands):
                raise RecordMismatch(
                    f"line {after}, {where}: hand {seen} is dealt, but the record has {len(hands)} hand(s)"
                )
            want = hands[seen - 1]
            got = _hand_line(variant, state, seen)
            wild = "wild_rank" in want and got["wild_rank"] != want["wild_rank"]
            if got["deck"] != want["deck"] or got[key] != want[key] or wild:
                what = [f"{key} {got[key]} against {want[key]}"] if got[key] != want[key] else []
                if got["deck"] != want["deck"]:
                    what.insert(0, "another deck")
                if wild:
                    what.append(f"wild rank {got['wild_rank']} against {want['wild_rank']}")
                raise RecordMismatch(
                    f"line {numbers[id(want)]} (hand): hand {seen} was not dealt as recorded ({', '.join(what)}): "
                    "the seed or options differ from the game's"
                )

    check_hands("after the reset", 1, action_lines[0])
    if on_step:
        on_step(env, None)
    returns = [0.0] * len(raw.possible_agents)
    hand_scores: list = []
    for k, line in enumerate(actions):
        step = f"step {line['step']} ({message_text(line['agent'])} {message_text(line['text'])})"
        where = f"line {numbers[id(line)]}, {step}"
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            raise RecordMismatch(f"{where}: the game had ended with the action before, but the record goes on")
        if env.agent_selection != line["agent"]:
            raise RecordMismatch(f"{where}: {env.agent_selection} is to act, not {line['agent']}")
        mask = env.observe(line["agent"])["action_mask"]
        action = line["action"]
        if not action < len(mask):  # check_record made it an int >= 0
            raise RecordError(
                f"line {numbers[id(line)]} (action), field 'action': "
                f"{action if action < 10**40 else value_kind(action)} is not an action id "
                f"0..{len(mask) - 1} ({where})"
            )
        if not mask[action]:
            raise RecordMismatch(f"{where}: the action is not legal in the replay")
        if line["text"] != raw.action_to_string(action):
            raise RecordMismatch(f"{where}: action {action} is {raw.action_to_string(action)!r} in the replay")
        env.step(line["action"])
        rewards = [float(raw.rewards.get(a, 0.0)) for a in raw.possible_agents]
        want = line.get("rewards", [0.0] * len(rewards))
        if not _same_numbers(rewards, want):
            raise RecordMismatch(f"{where}: rewards {rewards} in the replay, {want} in the record")
        returns = [r + x for r, x in zip(returns, rewards, strict=True)]
        _collect_hand_scores(raw.game_state, hand_scores)
        check_hands(step, numbers[id(line)], action_lines[k + 1])
        if on_step:
            on_step(env, line)
    if end is not None:
        at = f"line {numbers[id(end)]} (end)"
        if len(hands) > seen:  # a hand line the game never dealt
            raise RecordMismatch(f"{at}: the record has {len(hands)} hands, the replay dealt {seen}")
        if not _same_numbers(returns, end["returns"]):
            raise RecordMismatch(f"{at}: returns {returns} in the replay, {end['returns']} in the record")
        if end["status"] == "complete" and not raw.game_state.is_terminal():
            raise RecordMismatch(f"{at}: the record says the game is complete, but the replay has not ended")
        if end["status"] == "quit" and raw.game_state.is_terminal():
            raise RecordMismatch(f"{at}: the record says the game was quit, but the replay played it to its end")
        totals = _jsonable(list(raw.game_state.scores))
        for name, got in (("hand_scores", hand_scores), ("total_scores", totals)):
            if name in end and not _same_numbers(got, end[name]):  # optional fields
                raise RecordMismatch(f"{at}: {name} {got} in the replay, {end[name]} in the record")
    return env

"""The shape of a game record (``experiments.common.records``): :data:`SCHEMA`, a JSON-schema-like
description of each line type written in plain Python, and :func:`check_record`, which
checks a record against it before it is replayed, so that a damaged record stops with
one line naming its line and field (:class:`RecordError`) instead of a traceback.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import rummy_env
from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.core.tiles import NUM_TILE_TYPES, tile_str

FORMAT = "rummy_env.record/1"  #: the ``format`` of the game line


class RecordError(ValueError):
    """A damaged record: a line that is not JSON or not a JSON object, a missing key, a
    value of the wrong type or size, a string that is no Unicode text, a deck holding a
    card twice, lines out of order, or a game the env refuses to set up.  The message (one
    line) names the line (1-based, as in the file) and the field."""


# ------------------------------------------------------------------------- schema
# A field's check takes (value, context) and returns what is wrong with it, or None; the
# context holds what the game line fixes: the number of players, their names, the deck size.
def value_kind(value: Any) -> str:
    """A JSON value's kind, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int) and abs(value) >= 10**40:
        return f"a {len(str(abs(value)))}-digit number"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) < 40 else "a string"
    return "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else type(value).__name__


def shown(value: Any) -> str:
    """``repr(value)`` for an error message, cut to 80 characters: a refused value is named,
    not echoed whole (the rest of the message says what is allowed); an object whose
    ``repr`` fails is named by its type and id, as ``reprlib`` names it."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail on the value it names
        return f"<{type(value).__name__} instance at {id(value):#x}>"
    if len(text) <= 80:
        return text
    size = f"a {type(value).__name__} of length {len(value)}" if isinstance(value, str | list | dict) else "cut"
    return f"{text[:80]}... ({size})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # an int beyond the float range (10**400 is valid JSON) is not a score: math.isfinite raises on it
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) <= sys.float_info.max
    return isinstance(value, float) and math.isfinite(value)


def _int_at_least(low: int) -> Callable[[Any, dict], str | None]:
    return lambda v, ctx: None if _is_int(v) and v >= low else f"{value_kind(v)}, expected an int >= {low}"


def _wild_rank(v: Any, ctx: dict) -> str | None:
    return None if _is_int(v) and 1 <= v <= 13 else f"{value_kind(v)}, expected a wild rank 1..13 (1 = aces)"


def _seat(v: Any, ctx: dict) -> str | None:
    n = len(ctx["players"])
    return None if _is_int(v) and 0 <= v < n else f"{value_kind(v)}, expected a seat 0..{n - 1}"


def _text(v: Any, ctx: dict) -> str | None:
    return None if isinstance(v, str) else f"{value_kind(v)}, expected a string"


#: the names a hand line's deck holds: the cards of the card variants, Rummikub's tiles
CARD_NAMES = frozenset(card_str(c) for c in range(NUM_CARDS))
TILE_NAMES = frozenset(tile_str(t) for t in range(NUM_TILE_TYPES))


def _deck_name(v: Any, ctx: dict) -> str | None:
    """A card name (``"AS"``), or Rummikub's tile name (``"R7"``, ``"JK"``), as the env writes them."""
    wrong = _text(v, ctx)
    if wrong is not None:
        return wrong
    tiles = ctx.get("variant") == "rummikub_v0"
    if v not in (TILE_NAMES if tiles else CARD_NAMES):
        return f"{value_kind(v)}, expected a {'tile name (R7, JK)' if tiles else 'card name (AS, TD)'}"
    return None


def _deck(v: Any, ctx: dict) -> str | None:
    """A hand's whole deck: the card names once each, or Rummikub's tiles twice each."""
    wrong = _array(_deck_name, "card or tile names", size="deck")(v, ctx)
    if wrong is not None:
        return wrong
    copies = 2 if ctx.get("variant") == "rummikub_v0" else 1
    seen: dict[str, int] = {}
    for i, name in enumerate(v):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > copies:
            return f"item {i} is {name!r} again, expected each {'tile twice' if copies == 2 else 'card once'}"
    return None


def lone_surrogate(value: Any, where: str = "") -> str | None:
    """Where a string of ``value`` (a key or a value, at any depth) holds a lone UTF-16
    surrogate (JSON's ``"\\ud800"``, valid JSON but no Unicode text: it cannot be written
    as UTF-8, so a page or a terminal showing it fails), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "the value"
        return None
    if isinstance(value, list):
        for i, x in enumerate(value):
            found = lone_surrogate(x, f"{where}, item {i}" if where else f"item {i}")
            if found is not None:
                return found
    if isinstance(value, dict):
        for k, x in value.items():
            if lone_surrogate(k) is not None:
                return f"{where}, a key" if where else "a key"
            found = lone_surrogate(x, f"{where}, field {k!r}" if where else f"field {k!r}")
            if found is not None:
                return found
    return None


def _object(v: Any, ctx: dict) -> str | None:
    return None if isinstance(v, dict) else f"{value_kind(v)}, expected an object"


def _null_or(check: Callable[[Any, dict], str | None]) -> Callable[[Any, dict], str | None]:
    return lambda v, ctx: None if v is None else check(v, ctx)


def _one_of(*allowed: Any) -> Callable[[Any, dict], str | None]:
    return lambda v, ctx: None if v in allowed else f"{value_kind(v)}, expected one of {', '.join(map(repr, allowed))}"


def _array(item: Callable[[Any, dict], str | None], what: str, size: str | None = None):
    """An array of items passing ``item``; ``size`` names the context entry giving its length."""

    def check(v: Any, ctx: dict) -> str | None:
        if not isinstance(v, list):
            return f"{value_kind(v)}, expected an array of {what}"
        if size is not None and len(v) != ctx[size]:
            per = ", one per player of field 'players'" if size == "n" else ""
            return f"{len(v)} item{'' if len(v) == 1 else 's'}, expected {ctx[size]} ({what}{per})"
        for i, x in enumerate(v):
            wrong = item(x, ctx)
            if wrong is not None:  # an item of a nested array names its own item
                return f"item {i}, {wrong}" if wrong.startswith("item ") else f"item {i} is {wrong}"
        return None

    return check


def _number(v: Any, ctx: dict) -> str | None:
    return None if _is_number(v) else f"{value_kind(v)}, expected a finite number"


def _players(v: Any, ctx: dict) -> str | None:
    wrong = _array(_text, "player names")(v, ctx)
    if wrong is None and (not v or v != [f"player_{i}" for i in range(len(v))]):
        return f"{v!r}, expected the env's player names in seat order: 'player_0', 'player_1', ..."
    return wrong


def _reset_options(v: Any, ctx: dict) -> str | None:
    """Null, or the variant's own reset options (a key it does not know would be ignored at
    the replay's reset, and the replay part from the record at once)."""
    if v is None:
        return None
    wrong = _object(v, ctx)
    if wrong is None:
        variant = ctx.get("variant", "")
        known = importlib.import_module(f"rummy_env.{variant}").raw_env.reset_option_names
        unknown = sorted(set(v) - set(known), key=str)
        if unknown:
            return f"holds {unknown[0]!r}, not a reset option of {variant} (its reset options: {', '.join(known)})"
    return wrong


def _options(v: Any, ctx: dict) -> str | None:
    wrong = _object(v, ctx)
    if wrong is None and "render_mode" in v:
        return "holds 'render_mode', which is how a replay is shown, not a game option (records leave it out)"
    return wrong


_PER_SEAT = _array(_number, "one number per player", size="n")
#: What each line type holds: field -> (required, check).  The hand line's seat field is
#: ``dealer``, or ``first_player`` in Rummikub, and Crazy Rummy's also holds the round's
#: ``wild_rank`` (optional: records written before it was recorded lack it); both added by
#: :func:`_schema`.
SCHEMA: dict[str, dict[str, tuple[bool, Callable[[Any, dict], str | None]]]] = {
    "game": {
        "format": (True, _one_of(FORMAT)),
        "variant": (True, _one_of(*rummy_env.VARIANTS)),
        "options": (True, _options),
        "seed": (True, _null_or(_int_at_least(0))),
        "reset_options": (False, _reset_options),
        "players": (True, _players),
        "agents": (False, _null_or(_array(_text, "agent names", size="n"))),
    },
    "hand": {"hand": (True, _int_at_least(1)), "deck": (True, _deck)},
    "action": {
        "step": (True, _int_at_least(0)),
        "agent": (True, lambda v, ctx: None if v in ctx["players"] else f"{value_kind(v)}, expected a player's name"),
        "action": (True, _int_at_least(0)),
        "text": (True, _text),
        "rewards": (False, _PER_SEAT),
    },
    "end": {
        "status": (True, _one_of("complete", "quit")),
        "returns": (True, _PER_SEAT),
        "hand_scores": (False, _array(_PER_SEAT, "a hand's scores")),
        "total_scores": (False, _PER_SEAT),
    },
}


def _schema(kind: str, variant: str) -> dict:
    if kind != "hand":
        return SCHEMA[kind]
    schema = {**SCHEMA["hand"], "first_player" if variant == "rummikub_v0" else "dealer": (True, _seat)}
    if variant == "crazy_rummy_v0":
        schema["wild_rank"] = (False, _wild_rank)
    return schema


def check_record(lines: Sequence[Any], line_numbers: Sequence[int] | None = None, source: str = "") -> None:
    """Check a record's shape against :data:`SCHEMA` before it is replayed: the game line
    first (and only there), then hand, action and end lines, one hand line at least; hands
    numbered 1, 2, ... and steps 0, 1, ... in order; at most one end line, the last.

    Args:
        lines: the parsed lines (any JSON values).
        line_numbers: each line's number in its file (default: position + 1).
        source: what the lines came from (a path), put before the line in messages.

    Raises:
        RecordError: the first thing wrong, as ``"<source>, line <n> (<type>), field
            '<key>': <what is wrong>"``.
    """
    numbers = list(line_numbers) if line_numbers is not None else list(range(1, len(lines) + 1))
    prefix = f"{source}, " if source else ""

    def fail(i: int, text: str) -> NoReturn:
        raise RecordError(f"{prefix}line {numbers[i]}{text}")

    if not lines:
        raise RecordError(f"{prefix or 'the record '}has no lines: a record starts with its game line")
    ctx: dict[str, Any] = {}
    hands = steps = 0
    for i, line in enumerate(lines):
        if not isinstance(line, dict):
            fail(i, f": {value_kind(line)}, a record line must be a JSON object")
        kind = line.get("type")
        if not isinstance(kind, str) or kind not in SCHEMA:
            found = "missing" if "type" not in line else value_kind(kind)
            fail(i, f", field 'type': {found}, expected one of {', '.join(map(repr, SCHEMA))}")
        if (kind == "game") != (i == 0):
            fail(i, f" ({kind}): the game line must be the first line, and only the first")
        if ctx.get("ended"):
            fail(i, f" ({kind}): a line after the end line")
        surrogate = lone_surrogate(line)
        if surrogate is not None:
            fail(i, f" ({kind}), {surrogate}: a string with a lone surrogate (as \\ud800), which is no Unicode text")
        schema = _schema(kind, ctx.get("variant", ""))
        # an unknown field is an edit or another seat key (a Rummikub hand's 'dealer'): a
        # replay would ignore it, and the reader believe it mattered
        extra = sorted(set(line) - set(schema) - {"type"}, key=str)
        if extra:
            fields = ", ".join(map(repr, ["type", *schema]))
            article = "an" if kind in ("action", "end") else "a"
            fail(i, f" ({kind}), field {extra[0]!r}: not a field of {article} {kind} line (its fields: {fields})")
        for key, (required, check) in schema.items():
            if key not in line:
                if required:
                    fail(i, f" ({kind}), field '{key}': missing")
                continue
            wrong = check(line[key], ctx)
            if wrong is not None:
                fail(i, f" ({kind}), field '{key}': {wrong}")
            if kind == "game" and key == "players":
                ctx.update(players=line[key], n=len(line[key]))
            if kind == "game" and key == "variant":
                ctx.update(variant=line[key], deck=106 if line[key] == "rummikub_v0" else 52)
        if kind == "hand":
            hands += 1
            if line["hand"] != hands:
                fail(i, f" (hand), field 'hand': {line['hand']}, expected {hands} (hands are numbered in order)")
        elif kind == "action":
            if line["step"] != steps:
                fail(i, f" (action), field 'step': {line['step']}, expected {steps} (steps are numbered in order)")
            steps += 1
        elif kind == "end":
            ctx["ended"] = True
    if lines[0]["seed"] is None and not hands:
        fail(0, " (game), field 'seed': null, and no hand line: a record without a seed needs its first hand's deck")
    if not hands:  # a recorder writes the first hand's line as the game starts
        fail(0, " (game): no hand line follows: a record holds the deck of every hand it deals")

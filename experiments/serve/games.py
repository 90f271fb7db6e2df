"""Games in play: one :class:`GameSession` per game id, kept by a bounded :class:`GameStore`.

A session owns its env, its opponents (agents built by ``agents.make_agent`` from names
the server allowed), a hint agent (the variant's heuristic) and a
:class:`~experiments.common.records.GameRecorder`.  The browser plays one seat; the other
seats move one at a time when the browser asks (:meth:`GameSession.advance`), so the page
can show each of their moves.  Every method that changes a session holds its lock, and
the app calls them in a worker thread (``run_in_threadpool``), so an agent thinking never
blocks the event loop and two requests for one game never interleave.

A refused move (the game is over, another seat is to act, the action is not legal, the
token is not the game's) raises :class:`~experiments.serve.safety.ApiError` before the env
is touched: the game is as it was.
"""

from __future__ import annotations

import math
import secrets
import sys
import threading
import time
import traceback
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agents import make_agent, seat_seed
from experiments.common import load_variant
from experiments.common.jobs import AgentActionError, agent_action
from experiments.common.record_schema import shown
from experiments.common.records import GameRecorder
from experiments.play import can_undo, undo_last
from experiments.serve.safety import ApiError
from experiments.serve.table import RUMMIKUB, RUMMIKUB_COMMIT, event_text, hand_result, move_entries, seat_picture

#: games kept at once, and how long an untouched game is kept (seconds)
MAX_GAMES = 64
MAX_IDLE_SECONDS = 2 * 3600
#: dropped games whose fate a 404 still tells
MAX_GONE = 1024


def _record_error(reason: str | None) -> str | None:
    """What a game's view and a dropped game's fate say of a record that could not be saved
    for ``reason`` (None: nothing failed)."""
    return None if reason is None else f"its record could not be saved ({reason})"


class GameSession:
    """One game: the human in ``seat``, agents in the other seats.

    Args:
        variant: env module name, e.g. ``"gin_rummy_v0"``.
        options: ``env()`` options (already checked by ``safety.check_options``).
        seat: the human's agent name (``"player_0"``).
        opponents: an agent name per other seat, in seat order (already allowed).
        seed: the reset seed (the agents' seeds derive from it, as in ``experiments.play``).
        record_dir: where the record is written when the game ends (None: not written).

    Raises:
        ApiError: 400, the env refuses the options, the seat is not one of the game, the
            number of opponents is wrong, or an agent cannot play this variant.
    """

    def __init__(
        self, variant: str, options: dict, seat: str, opponents: list[str], seed: int, record_dir: Path | None
    ):
        self.id = secrets.token_urlsafe(12)
        self.token = secrets.token_urlsafe(24)
        self.variant = variant
        self.options = dict(options)
        try:
            self.env = load_variant(variant).env(**options)
        except (ValueError, TypeError) as err:
            raise ApiError(400, f"options refused by {variant}: {err}") from None
        raw = self.raw = self.env.unwrapped
        players = list(raw.possible_agents)
        if seat not in players:
            raise ApiError(400, f"seat {shown(seat)} is not a seat of this game: seats are {', '.join(players)}")
        others = [a for a in players if a != seat]
        if len(opponents) != len(others):
            raise ApiError(400, f"{len(opponents)} opponent(s) for {len(others)} other seat(s) ({', '.join(others)})")
        self.seat = seat
        self.human = raw.agent_name_mapping[seat]
        try:
            self.agents = {
                a: make_agent(name, self.env, seed=seat_seed(seed, i + 1))
                for i, (a, name) in enumerate(zip(others, opponents, strict=True))
            }
            self.hint_agent = make_agent("heuristic", self.env, seed=seed)
        except ValueError as err:
            raise ApiError(400, f"an agent cannot play {variant}: {err}") from None
        self.labels = {seat: "you", **dict(zip(others, opponents, strict=True))}
        self.seed = seed
        self.env.reset(seed=seed)
        self.recorder = GameRecorder(
            self.env, options, seed, None, ["human" if a == seat else self.labels[a] for a in players]
        )
        self.recorder.start()
        self.events: list[dict] = []  # the moves made, as the human's seat may see them
        self._hidden_adds = 0
        self.status = "playing"
        self.record_name: str | None = None
        self.save_error: str | None = None  # why the record could not be written (an OSError's reason)
        self._record_dir = record_dir
        self.lock = threading.Lock()
        self.touched = time.monotonic()

    # ------------------------------------------------------------ state
    def to_act(self) -> str | None:
        """The agent to act, or None when the game is over."""
        if self.status != "playing":
            return None
        return self.raw.possible_agents[self.raw.game_state.current_player()]

    def token_matches(self, token: Any) -> bool:
        """Whether ``token`` is this game's (the creator's browser holds it)."""
        # compare_digest raises on a non-ASCII str (a header may carry Latin-1): that is no token
        return isinstance(token, str) and token.isascii() and secrets.compare_digest(token, self.token)

    def check_token(self, token: Any) -> None:
        """Raises ApiError 403 unless ``token`` is this game's (the creator's browser holds it)."""
        if not self.token_matches(token):
            raise ApiError(403, f"game {self.id} is not yours: the request lacks the game's token")

    def view(self) -> dict:
        """The human seat's view: what the page shows (no hidden card of another seat)."""
        to_act = self.to_act()
        yours = to_act == self.seat
        svg, hand = seat_picture(self.raw, self.seat, clickable=yours)
        end = self.recorder.lines[-1] if self.status != "playing" else None
        return {
            "id": self.id,
            "variant": self.variant,
            "options": self.options,
            "players": list(self.raw.possible_agents),
            "labels": self.labels,
            "seat": self.seat,
            "status": self.status,
            "to_act": to_act,
            "your_turn": yours,
            "svg": svg,
            "hand": hand,
            "moves": move_entries(self.raw, self.seat, hand) if yours else [],
            "can_undo": yours and can_undo(self.raw),
            "events": self.events,
            "hand_result": hand_result(self.raw),
            "returns": dict(zip(self.raw.possible_agents, end["returns"], strict=True)) if end else None,
            "record": self.record_name,
            "record_error": _record_error(self.save_error),
        }

    # ---------------------------------------------------------- changes
    def _apply(self, agent: str, action: int) -> None:
        raw = self.raw
        actor = raw.agent_name_mapping[agent]
        text = raw.action_to_string(action)
        shown = event_text(self.variant, actor, self.human, action, text, self._hidden_adds)
        hidden = self.variant == RUMMIKUB and actor != self.human and action < RUMMIKUB_COMMIT
        self._hidden_adds = self._hidden_adds + 1 if hidden else 0
        hands_before = raw.game_state.hands_played
        self.env.step(action)
        self.recorder.step(agent, action)
        event = {"step": len(self.events), "agent": agent, "who": self.labels[agent], "text": shown}
        if raw.game_state.hands_played != hands_before:
            event["hand_over"] = raw.game_state.hands_played
        self.events.append(event)
        if raw.game_state.is_terminal():
            self._finish("complete")

    def _finish(self, status: str) -> None:
        self.status = "over" if status == "complete" else status
        self.recorder.finish(status)
        if self._record_dir is not None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            name = f"{self.variant}-{stamp}-{self.id[:8]}.jsonl"
            try:
                self.recorder.write(self._record_dir / name)
            except OSError as err:
                # the game is over all the same: the request that ended it still gets its view
                # (a 500 here was Starlette's plain text), which says why there is no record
                self.save_error = err.strerror or type(err).__name__
                print(f"serve: game {self.id}: its record play/{name} could not be saved: {err}", file=sys.stderr)
                return
            self.record_name = name

    def _check_playing(self) -> None:
        if self.status != "playing":
            how = "" if self.status == "over" else f" ({self.status})"
            raise ApiError(409, f"game {self.id} is over{how}: no more moves")

    def move(self, action: Any) -> None:
        """The human plays ``action`` (an action id or its text).

        Raises:
            ApiError: 409 the game is over or another seat is to act; 400 not an action
                of the variant; 422 not legal now (the message lists some legal moves).
        """
        self._check_playing()
        to_act = self.to_act()
        if to_act != self.seat:
            raise ApiError(409, f"not your turn: {to_act} ({self.labels[to_act]}) is to act; ask for its move first")
        raw = self.raw
        if isinstance(action, str):
            try:
                action = raw.string_to_action(action)
            except ValueError as err:
                raise ApiError(400, f"not a move of {self.variant}: {err}") from None
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < raw.num_actions:
            raise ApiError(400, f"action {shown(action)} is not an action id 0..{raw.num_actions - 1} or a move's text")
        legal = [int(a) for a in raw.game_state.legal_actions(self.human)]
        if action not in legal:
            some = ", ".join(raw.action_to_string(a) for a in legal[:6]) + (", ..." if len(legal) > 6 else "")
            raise ApiError(422, f"{raw.action_to_string(action)!r} is not legal now: legal moves are {some}")
        self._apply(self.seat, action)

    def undo(self) -> None:
        """Take back the last tile the human added to the Rummikub play it is building.

        The env has no action that takes a tile back, so the game is replayed from its
        seed through every move but that one (``experiments.play.undo_last``, as the
        terminal's ``undo``): the table, the events and the record are as if the tile had
        never been added.  No opponent has moved since, so the agents are not concerned.

        Raises:
            ApiError: 400 not Rummikub (every move of the other variants is final); 409
                the game is over, it is not the human's turn, or no tile was added yet.
        """
        self._check_playing()
        if self.variant != RUMMIKUB:
            raise ApiError(400, f"undo takes back a tile of a Rummikub play; in {self.variant} every move is final")
        if self.to_act() != self.seat:
            raise ApiError(409, "undo takes back a tile of your play: it is not your turn")
        if not can_undo(self.raw):
            raise ApiError(409, "nothing to undo: no tile has been added to your play this turn")
        self.recorder = undo_last(self.env, self.recorder, self.seed)
        self.events.pop()

    def advance(self) -> None:
        """The next opponent makes one move.

        Raises:
            ApiError: 409 the game is over or it is the human's turn; 500 the agent chose
                a move that is not legal, or failed to choose one (the game stays as it
                was; the message names the agent; what an illegal choice was, with the
                seed and legal moves that tell hidden cards, goes to stderr only).
        """
        self._check_playing()
        agent = self.to_act()
        if agent == self.seat:
            raise ApiError(409, "it is your turn: no opponent is to move")
        players = self.raw.possible_agents
        seated = [self.agents.get(p) for p in players]
        seat, obs, info = players.index(agent), self.env.observe(agent), self.raw.infos.get(agent, {})
        names = [self.labels[p] for p in players]
        try:
            action = agent_action(self.env, seated, seat, obs, info, self.seed, names)
        except AgentActionError as err:
            # the full message names the game's seed (the whole deal) and the agent's legal
            # moves (its cards): the operator's log gets it, the human's browser must not
            print(f"serve: game {self.id}: {err}", file=sys.stderr)
            raise ApiError(
                500,
                f"the server's agent {self.labels[agent]!r} in seat {seat} ({agent}) chose no legal move; the game "
                "is as it was (the server's log says what it chose: not shown here, as it names that seat's "
                "legal moves and the game's seed)",
            ) from None
        except Exception as err:  # the agent's own failure: a JSON answer naming it, its traceback in the log
            # only the error's type reaches the browser: an agent's message may quote what its
            # seat sees (its cards), as the illegal choice above would
            print(
                f"serve: game {self.id}: agent {self.labels[agent]!r} in seat {seat} failed to move:", file=sys.stderr
            )
            traceback.print_exc(file=sys.stderr)
            raise ApiError(
                500,
                f"the server's agent {self.labels[agent]!r} in seat {seat} ({agent}) failed to move "
                f"({type(err).__name__}); the game is as it was (the server's log has the agent's message: not "
                "shown here, as it may quote that seat's cards)",
            ) from None
        self._apply(agent, action)

    def hint(self) -> dict:
        """The heuristic's move for the human seat: ``{"action", "text"}``.

        Raises:
            ApiError: 409 the game is over or it is not the human's turn.
        """
        self._check_playing()
        if self.to_act() != self.seat:
            raise ApiError(409, "a hint is for your turn: it is not your turn")
        action = int(self.hint_agent.act(self.env.observe(self.seat), self.raw.infos.get(self.seat, {})))
        return {"action": action, "text": self.raw.action_to_string(action)}

    def quit(self) -> None:
        """End the game now (the record says ``"quit"``).

        Raises:
            ApiError: 409 the game is already over.
        """
        self._check_playing()
        self._finish("quit")

    def abandon(self) -> bool:
        """End the game as quit if it is still being played (the store drops it), saving
        its record (``record_name``) unless the server saves none; returns whether it did."""
        with self.lock:  # a request still under way finishes its move first
            if self.status != "playing":
                return False
            self._finish("quit")
            return True


def check_max_idle(value: Any, name: str = "max_idle") -> float:
    """``value`` as the seconds an untouched game is kept.

    Raises:
        ValueError: not a finite number > 0 (``name`` says which setting: a nan would
            compare False with every idle time, and no game would ever be dropped).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


class GameStore:
    """The games in memory, by id: at most ``max_games``, each dropped after
    ``max_idle`` seconds untouched; when full, the game touched least recently (a
    finished one first) makes room for a new one.

    A game dropped before its end is saved as quit (:meth:`GameSession.abandon`): a
    closed tab or a forgotten game leaves its record, with the moves played, once the store
    drops it (expiry is checked at each request), and the games still held when the server
    stops are saved the same way (:meth:`close`).  A record that cannot be written fails no
    request.  The
    ids of the last :data:`MAX_GONE` dropped games are remembered, so that a link to one
    says what became of it.

    Args:
        max_games: games kept at once (an int >= 1).
        max_idle: seconds a game is kept without a request (a finite number > 0).

    Raises:
        ValueError: ``max_games`` or ``max_idle`` out of those ranges (the message names it).
    """

    def __init__(self, max_games: int = MAX_GAMES, max_idle: float = MAX_IDLE_SECONDS):
        if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
            raise ValueError(f"max_games must be an int >= 1, got {max_games!r}")
        check_max_idle(max_idle)
        self.max_games = max_games
        self.max_idle = max_idle
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._gone: OrderedDict[str, str] = OrderedDict()  # id -> what became of it
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def _drop(self, game_id: str, why: str, dropped: list) -> None:
        session = self._games.pop(game_id)
        dropped.append((session, why))

    def _expire(self, now: float, dropped: list) -> None:
        for gid in [g for g, s in self._games.items() if now - s.touched > self.max_idle]:
            self._drop(gid, f"after {self.max_idle:g} s without a request", dropped)

    def _settle(self, dropped: list) -> list[str]:
        """Save the dropped games that were not over, outside the store's lock (a
        session's lock may be held by a request under way); returns what became of each."""
        fates = []
        for session, why in dropped:
            failed = None
            try:
                ended = not session.abandon()  # it may have ended since it was dropped
            except Exception as err:  # noqa: BLE001 - another user's game must not fail this request (or the stop)
                ended, failed = False, type(err).__name__  # an OSError of the save is caught in _finish
            unsaved = _record_error(failed or session.save_error)
            name = session.record_name
            if unsaved is not None:
                saved = unsaved
            elif name is None:
                saved = "it was not saved (the server runs with --no-save)"
            elif ended:
                saved = f"it had ended; its record is play/{name} on the Replays page"
            else:
                saved = f"its moves so far were saved as a quit game, play/{name} on the Replays page"
            fate = f"game {session.id} was dropped {why}{'' if ended else ', before it ended'}; {saved}"
            fates.append(fate)
            with self._lock:
                self._gone[session.id] = fate
                while len(self._gone) > MAX_GONE:
                    self._gone.popitem(last=False)
        return fates

    def close(self) -> list[str]:
        """Drop every game: the server calls it once, as it stops.  Those not over are saved
        as quit games, as an idle game is (a save that fails is said, and the others are
        still saved).

        Returns:
            what became of each game that was still being played, one line each.
        """
        dropped: list = []
        with self._lock:
            playing = {g for g, s in self._games.items() if s.status == "playing"}
            for gid in list(self._games):
                self._drop(gid, "when the server stopped", dropped)
        fates = self._settle(dropped)
        return [fate for (session, _), fate in zip(dropped, fates, strict=True) if session.id in playing]

    def add(self, session: GameSession) -> None:
        """Keep ``session``, dropping expired games and, when full, the least recently used."""
        dropped: list = []
        with self._lock:
            now = time.monotonic()
            self._expire(now, dropped)
            while len(self._games) >= self.max_games:
                done = [g for g, s in self._games.items() if s.status != "playing"]
                gid = done[0] if done else next(iter(self._games))
                self._drop(gid, f"to make room for a newer game ({self.max_games} kept at once)", dropped)
            session.touched = now
            self._games[session.id] = session
        self._settle(dropped)

    def get(self, game_id: str, token: Any) -> GameSession:
        """The game ``game_id`` if ``token`` is its token.

        Raises:
            ApiError: 404 no such game (never made, dropped, or expired: a game dropped
                lately is named with what became of it); 403 another token.
        """
        dropped: list = []
        with self._lock:
            now = time.monotonic()
            self._expire(now, dropped)
            session = self._games.get(game_id)
            if session is not None and session.token_matches(token):
                session.touched = now
                self._games.move_to_end(game_id)
        self._settle(dropped)
        if session is None:
            with self._lock:
                gone = self._gone.get(game_id)
            raise ApiError(
                404,
                gone
                or f"no game {game_id!r}: it was never started here, or it was dropped "
                f"(idle over {self.max_idle:g} s, or {self.max_games} newer games)",
            )
        session.check_token(token)
        return session

"""Games in play: one :class:`GameSession` per game id, kept by the bounded
:class:`~experiments.serve.store.GameStore`.

A session owns its env, its opponents (agents built by ``agents.make_agent`` from names
the server allowed), a hint agent (the variant's heuristic) and a
:class:`~experiments.common.records.GameRecorder`.  The browser plays one seat; the other
seats move one at a time when the browser asks (:meth:`GameSession.advance`), so the page
can show each of their moves.  The app calls a session's methods in a worker thread
(``run_in_threadpool``), so an agent thinking never blocks the event loop, and under the
session's lock (:meth:`GameSession.advance` and :meth:`GameSession.abandon` take it
themselves), so two requests for one game never use it at once, but while an opponent
chooses its move (below).

An agent may think for seconds (a search agent such as ``pimc``): :meth:`GameSession.advance`
lets go of the lock while it does (the game is then ``thinking``), so other requests for
the game run meanwhile, and only a quit (or the store dropping the game) changes it: the
game's view answers at once (the game as it was before that move, its ``thinking`` naming
the seat and for how long), a quit ends the game at once (the move, when it comes, is not
played), and the game's other moves are refused (409) rather than left waiting on the
lock.  The request that asked for the move waits for it, holding its worker thread; one
waiting on the lock held another, and a few dozen of them (the page reloaded, retried)
left none for the other games.

A refused move (the game is over, another seat is to act, the action is not legal, the
token is not the game's) raises :class:`~experiments.serve.safety.ApiError` before the env
is touched: the game is as it was.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
import traceback
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


def record_error(reason: str | None) -> str | None:
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
        #: counts the changes of the game (each move, undo and its end): a view says the one
        #: it shows, so a page learns whether the game changed since (the ETag of its view)
        #: and a move chosen from an older view is refused (:meth:`check_version`)
        self.version = 0
        self.record_name: str | None = None
        self.save_error: str | None = None  # why the record could not be written (an OSError's reason)
        self._record_dir = record_dir
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        #: (agent, since, the view drawn as it began) while an opponent chooses its move
        #: outside the lock (:meth:`advance`)
        self.thinking: tuple[str, float, dict] | None = None
        #: why the store dropped the game before its end (:meth:`abandon`), as its fate says it
        self.dropped: str | None = None

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
        """The human seat's view: what the page shows (no hidden card of another seat).

        ``thinking`` is None, or ``{"agent", "label", "seconds"}`` while an opponent is
        choosing its move (:meth:`advance`): the rest is the game as it was before that move."""
        if self.thinking is None:
            return {**self._view(), "thinking": None}
        # while the agent thinks, the view drawn as it began: the env is not drawn at the same
        # time as the agent reads it
        agent, since, before = self.thinking
        seconds = round(time.monotonic() - since, 1)
        return {**before, "thinking": {"agent": agent, "label": self.labels[agent], "seconds": seconds}}

    def _view(self) -> dict:
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
            "events": list(self.events),  # a copy: the view is kept, the events go on
            "hand_result": hand_result(self.raw),
            "returns": dict(zip(self.raw.possible_agents, end["returns"], strict=True)) if end else None,
            "record": self.record_name,
            "record_error": record_error(self.save_error),
            "version": self.version,
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
        self.version += 1
        if raw.game_state.is_terminal():
            self._finish("complete")

    def _finish(self, status: str) -> None:
        self.status = "over" if status == "complete" else status
        self.version += 1
        self.thinking = None  # a quit game's agent may think on: its move will not be played
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

    def _check_open(self, version: Any, what: str) -> None:
        """Refuse a move, undo, hint or ask for an opponent's move (``what``, as
        :meth:`check_version` names it) while the game is over (409), an opponent chooses its
        move (409), or made from a view older than the game (:meth:`check_version`)."""
        self._check_playing()
        if self.thinking is not None:
            agent = self.thinking[0]
            raise ApiError(
                409,
                f"{agent} ({self.labels[agent]}) is still choosing its move: ask again once it has moved "
                "(the game's view says so while it thinks: its 'thinking' is null once it has moved)",
            )
        self.check_version(version, what)

    def check_version(self, version: Any, what: str) -> None:
        """Refuse a request made from a view older than the game (``version``: the view's
        ``version``, or None: not checked; ``what``: what the message calls the request,
        ``"move"``).  Another tab or window of the game may have played on since that view:
        a move chosen from it could be legal still, but not the one the user meant.

        Raises:
            ApiError: 400 ``version`` not an int >= 0, or later than the game's (no view had
                it: a client's bug, not another tab's move); 409 an earlier version than the
                game's.
        """
        if version is None:
            return
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise ApiError(
                400, f"version {shown(version)} is not a view's version (an int >= 0, the view's 'version'), or null"
            )
        if version > self.version:  # versions only grow: "another tab played on" would mislead
            raise ApiError(
                400,
                f"version {version} is later than game {self.id}'s version {self.version}: no view of the game "
                "had it (send the 'version' of the view the request was made from, or null)",
            )
        if version != self.version:
            raise ApiError(
                409,
                f"game {self.id} has changed since the view this {what} was made from (that view's version "
                f"{version}, the game's {self.version}: another tab or window played on); nothing was done, the "
                "game's view shows it as it is now",
            )

    def move(self, action: Any, version: Any = None) -> None:
        """The human plays ``action`` (an action id or its text), chosen from the view of
        ``version`` (None: whatever the game's version).

        Raises:
            ApiError: 409 the game is over, it changed since the view of ``version``, or
                another seat is to act; 400 not an action of the variant, or ``version``
                not an int >= 0 or later than the game's; 422 not legal now (the message lists
                some legal moves).
        """
        self._check_open(version, "move")
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

    def undo(self, version: Any = None) -> None:
        """Take back the last tile the human added to the Rummikub play it is building.

        The env has no action that takes a tile back, so the game is replayed from its
        seed through every move but that one (``experiments.play.undo_last``, as the
        terminal's ``undo``): the table, the events and the record are as if the tile had
        never been added.  No opponent has moved since, so the agents are not concerned.

        ``version``: as :meth:`move`'s (the view the undo was asked from).

        Raises:
            ApiError: 400 not Rummikub (every move of the other variants is final), or
                ``version`` not an int >= 0 or later than the game's; 409 the game is over, it
                changed since the view of ``version``, it is not the human's turn, or no tile
                was added yet.
        """
        self._check_open(version, "undo")
        if self.variant != RUMMIKUB:
            raise ApiError(400, f"undo takes back a tile of a Rummikub play; in {self.variant} every move is final")
        if self.to_act() != self.seat:
            raise ApiError(409, "undo takes back a tile of your play: it is not your turn")
        if not can_undo(self.raw):
            raise ApiError(409, "nothing to undo: no tile has been added to your play this turn")
        self.recorder = undo_last(self.env, self.recorder, self.seed)
        self.events.pop()
        self.version += 1  # not back to the version before the tile: another tile may follow

    def advance(self, version: Any = None) -> None:
        """The next opponent makes one move, asked from the view of ``version`` (None:
        whatever the game's version): two tabs of a game both ask for the opponents' moves,
        and the one that asks second from the same view gets a 409, not a second move.

        Called without the session's lock, which it takes itself: the agent chooses its
        move with the lock let go (``thinking`` set), so that the game's view and a quit
        answer at once meanwhile; the move is played under the lock, unless the game was
        ended (quit, dropped) while the agent thought.

        Raises:
            ApiError: 409 the game is over, it is the human's turn, or another request's
                opponent is still choosing its move (this one makes no second move), or the
                game ended while the agent thought (its move, or its failure to choose one,
                changes nothing), or the game changed since the view of ``version`` (400:
                ``version`` not an int >= 0 or later than the game's); 500 the agent chose a
                move that is not legal, or failed to choose one (the game stays as it was; the
                message names the agent; what an
                illegal choice was, with the seed and legal moves that tell hidden cards,
                goes to stderr only).
        """
        with self.lock:
            self._check_open(version, "request for an opponent's move")
            agent = self.to_act()
            if agent == self.seat:
                raise ApiError(409, "it is your turn: no opponent is to move")
            players = self.raw.possible_agents
            seated = [self.agents.get(p) for p in players]
            seat, obs, info = players.index(agent), self.env.observe(agent), self.raw.infos.get(agent, {})
            names = [self.labels[p] for p in players]
            self.thinking = (agent, time.monotonic(), self._view())
        failure: Exception | None = None
        try:
            action = agent_action(self.env, seated, seat, obs, info, self.seed, names)
        except Exception as err:  # told below, once it is known whether the game still goes on
            failure = err
        except BaseException:
            with self.lock:
                self.thinking = None
            raise
        with self.lock:
            # the store keeps a thinking game however long its think (not idle: this request
            # is open): its idle time counts from now, not from the request (set first: the
            # store reads both without this lock)
            self.touched = time.monotonic()
            self.thinking = None
            who = f"{agent} ({self.labels[agent]}) was choosing its move"
            if self.status != "playing":  # only a quit or the store's drop ends a game meanwhile
                if self.dropped is None:
                    how, ended = "it was quit", f"game {self.id} ended while {who} (it was quit)"
                else:
                    how = f"it was dropped {self.dropped}"
                    ended = f"game {self.id} was dropped {self.dropped} while {who}"
                if failure is not None:
                    print(
                        f"serve: game {self.id}: agent {self.labels[agent]!r} in seat {seat} failed to move once the "
                        f"game had ended ({how}), which the failure leaves as it was: {type(failure).__name__}: "
                        f"{failure}",
                        file=sys.stderr,
                    )
                raise ApiError(409, f"{ended}: that move was not played")
            if failure is not None:
                raise self._failed(agent, seat, failure)
            self._apply(agent, action)

    def _failed(self, agent: str, seat: int, err: Exception) -> ApiError:
        """The ApiError 500 of :meth:`advance` for the agent's failure ``err`` in a game still
        being played, written to stderr."""
        if isinstance(err, AgentActionError):
            # the full message names the game's seed (the whole deal) and the agent's legal
            # moves (its cards): the operator's log gets it, the human's browser must not
            print(f"serve: game {self.id}: {err}", file=sys.stderr)
            return ApiError(
                500,
                f"the server's agent {self.labels[agent]!r} in seat {seat} ({agent}) chose no legal move; the game "
                "is as it was (the server's log says what it chose: not shown here, as it names that seat's "
                "legal moves and the game's seed)",
            )
        # the agent's own failure: a JSON answer naming it, its traceback in the log; only the
        # error's type reaches the browser: an agent's message may quote what its seat sees (its
        # cards), as the illegal choice above would
        print(f"serve: game {self.id}: agent {self.labels[agent]!r} in seat {seat} failed to move:", file=sys.stderr)
        traceback.print_exception(err, file=sys.stderr)
        return ApiError(
            500,
            f"the server's agent {self.labels[agent]!r} in seat {seat} ({agent}) failed to move "
            f"({type(err).__name__}); the game is as it was (the server's log has the agent's message: not "
            "shown here, as it may quote that seat's cards)",
        )

    def hint(self, version: Any = None) -> dict:
        """The heuristic's move for the human seat: ``{"action", "text"}``, asked from the
        view of ``version`` (as :meth:`move`'s: a hint for a game another tab played on is
        not one for the view the page shows).

        Raises:
            ApiError: 409 the game is over, it changed since the view of ``version``, or it
                is not the human's turn; 400 ``version`` not an int >= 0 or later than the
                game's.
        """
        self._check_open(version, "hint")
        if self.to_act() != self.seat:
            raise ApiError(409, "a hint is for your turn: it is not your turn")
        action = int(self.hint_agent.act(self.env.observe(self.seat), self.raw.infos.get(self.seat, {})))
        return {"action": action, "text": self.raw.action_to_string(action)}

    def quit(self, version: Any = None) -> None:
        """End the game now (the record says ``"quit"``), asked from the view of ``version``
        (as :meth:`move`'s; None: whatever the game's version).  A quit is taken while an
        opponent chooses its move (that move is then not played): the game's version is
        still the one of the view that says so.

        Raises:
            ApiError: 409 the game is already over, or it changed since the view of
                ``version`` (another tab played on: the user quit a game it has not seen);
                400 ``version`` not an int >= 0 or later than the game's.
        """
        self._check_playing()
        self.check_version(version, "quit")
        self._finish("quit")

    def abandon(self, why: str) -> bool:
        """End the game as quit if it is still being played (the store drops it ``why``, as
        its fate says: ``"to make room for ..."``), saving its record (``record_name``) unless
        the server saves none; returns whether it did."""
        with self.lock:  # a move being played finishes first (an agent that thinks holds no lock)
            if self.status != "playing":
                return False
            self.dropped = why
            self._finish("quit")
            return True

"""The games in memory: :class:`GameStore` keeps the :class:`~experiments.serve.games.GameSession`
of each game id, bounded in count and age, and saves the games it drops before their end.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from experiments.serve.games import record_error
from experiments.serve.safety import ApiError

if TYPE_CHECKING:
    from experiments.serve.games import GameSession

#: games kept at once, and how long an untouched game is kept (seconds)
MAX_GAMES = 64
MAX_IDLE_SECONDS = 2 * 3600
#: dropped games whose fate a 404 still tells
MAX_GONE = 1024


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
    ``max_idle`` seconds untouched (but while its agent chooses a move a request asked
    for, and the end of that choice touches it); when full, the game touched least
    recently (a finished one first) makes room for a new one.

    A game dropped before its end is saved as quit (:meth:`GameSession.abandon`): a
    closed tab or a forgotten game leaves its record, with the moves played, once the store
    drops it (expiry is checked at each request), and the games still held when the server
    stops are saved the same way (:meth:`close`).  A record that cannot be written fails no
    request.  The ids of the last :data:`MAX_GONE` dropped games are remembered, so that a
    link to one says what became of it.

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
        # a game whose agent is thinking is not idle: a request is open for its move (the page
        # that asked polls nothing meanwhile), however long the agent takes
        for gid in [g for g, s in self._games.items() if now - s.touched > self.max_idle and s.thinking is None]:
            self._drop(gid, f"after {self.max_idle:g} s without a request", dropped)

    def _settle(self, dropped: list) -> list[str]:
        """Save the dropped games that were not over, outside the store's lock (a
        session's lock may be held by a request under way); returns what became of each."""
        fates = []
        for session, why in dropped:
            failed = None
            try:
                ended = not session.abandon(why)  # it may have ended since it was dropped
            except Exception as err:  # noqa: BLE001 - another user's game must not fail this request (or the stop)
                ended, failed = False, type(err).__name__  # an OSError of the save is caught in _finish
            unsaved = record_error(failed or session.save_error)
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

"""``ReferenceRummikubVec``: Rummikub games through ``rummikub_v0.raw_env``, one per game
(``vector.reference``), the judge of ``RummikubVec``'s differential tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.envs.rummikub import raw_env as rummikub_raw_env
from rummy_env.vector.batch import RUMMIKUB_BACKENDS, next64
from rummy_env.vector.reference import ReferenceVec
from rummy_env.vector.rummikub_world import RummikubDeals, draw_tiles, tile_strings
from rummy_env.vector.whole_games import WholeGames


class ReferenceRummikubVec(RummikubDeals, WholeGames, ReferenceVec):
    """Rummikub games (2-4 players, every ``rummikub_v0`` option, whole games too) through
    ``rummikub_v0.raw_env``; the API of ``RummikubVec``.  Pools and first players come from
    the games' deal streams (``vector.rummikub_world``); ``deal_of(i)`` is
    ``{"deck", "first_player"}`` (plus ``"next_hands"`` with ``episode="game"``)."""

    variant = "rummikub_v0"
    raw_env = rummikub_raw_env
    backends = RUMMIKUB_BACKENDS

    def threads_used(self, games: int | None = None) -> int:
        """Threads a call runs on: always 1 (``RummikubVec.threads_used``'s signature)."""
        return 1

    def _deal(self, i: int, deck: list[int] | None, dealer: int) -> None:
        if deck is None:
            deck = draw_tiles(self._deal_rng, i)
        if dealer < 0:
            dealer = next64(self._deal_rng, i) % self.num_players
        self._decks[i] = deck
        self._dealers[i] = dealer
        options = {"deck": tile_strings(self._decks[i]), "first_player": int(dealer)}
        if self.config.episode == "game":
            options["next_hands"] = self._peek_next_hand(i, 1)
            self._hands_seen[i] = 0
        self._envs[i].reset(seed=0, options=options)

    @staticmethod
    def _hand_starter(state: Any) -> int:
        return state.first_player

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) episode: float64
        ``(num_envs, num_players)`` (a shared win of R-RK-11 can score fractions)."""
        return np.array([env.game_state.scores for env in self._envs], dtype=np.float64)

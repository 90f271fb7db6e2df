"""What both batched Rummikub engines share: the tile deals from the games' streams,
the checks of stacked pools and first players, and ``deal_of``.

Deal streams (``vector.batch``'s splitmix64 generators).  A Rummikub hand draws its pool
then its first player: the 106 tile types in type order (two of each, ``R1 R1 R2 ..
JK JK``) shuffled by Fisher-Yates (``j = next() % (k + 1)`` for ``k = 105 .. 1``, 105
draws), then the first player ``next() % num_players`` (R-RK-02); a stacked pool
(``reset(decks=...)``) draws only the first player, and a given one (``dealers=``)
nothing.  So every later hand of a whole game (``episode="game"``) draws exactly 106
outputs (:attr:`RummikubDeals.later_hand_draws`) and ``whole_games`` reads them back.
The ``dealers`` argument of ``reset`` and the recorded ``dealers()`` are the hands'
first players (Rummikub has no dealer); ``deal_of(i)`` returns ``env.reset``'s keys
``{"deck": [106 tile strings, first drawn first], "first_player": k}`` (plus
``"next_hands"`` with whole games).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.cards import deck_faults
from rummy_env.core.tiles import NUM_TILE_TYPES, POOL_SIZE, tile_str
from rummy_env.games.options import check_int_entries
from rummy_env.games.rummikub.deal import parse_stacked_pool
from rummy_env.vector.batch import GOLDEN, MASK64, check_int_arg, mix64_array, next64, string_rows

#: The 106 tile types in type order, two of each: the pool a shuffle starts from.
TILE_ORDER = np.repeat(np.arange(NUM_TILE_TYPES, dtype=np.int8), 2)

_GOLDEN = np.uint64(GOLDEN)


def draw_tiles(state: np.ndarray, i: int) -> list[int]:
    """A shuffled pool from generator ``state[i]`` (Python ints, the reference's
    arithmetic): 106 tile types, first drawn first (see the module docstring)."""
    pool = [int(t) for t in TILE_ORDER]
    for k in range(POOL_SIZE - 1, 0, -1):
        j = next64(state, i) % (k + 1)
        pool[k], pool[j] = pool[j], pool[k]
    return pool


def next64_many(state: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Advance generators ``state[games]`` (``uint64``, distinct games) and return their
    next outputs (``uint64``): :func:`~rummy_env.vector.batch.next64` over many games."""
    s = state[games] + _GOLDEN
    state[games] = s
    return mix64_array(s)


def draw_tiles_many(state: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    """:func:`draw_tiles` for the distinct ``games`` at once, into ``out[games]`` (int8
    rows of 106)."""
    pools = np.tile(TILE_ORDER, (games.size, 1))
    rows = np.arange(games.size)
    for k in range(POOL_SIZE - 1, 0, -1):
        j = (next64_many(state, games) % np.uint64(k + 1)).astype(np.int64)
        held = pools[:, k].copy()
        pools[:, k] = pools[rows, j]
        pools[rows, j] = held
    out[games] = pools


def tile_strings(pool: np.ndarray) -> list[str]:
    """A pool row as ``env.reset``'s ``deck`` option: 106 tile strings, first drawn first."""
    return [tile_str(int(t)) for t in pool]


class RummikubDeals:
    """Mixin of both Rummikub batches (before ``WholeGames`` and the ``VecBase``
    subclass in the bases): pools of 106 tiles, first players, ``deal_of``."""

    deck_size = POOL_SIZE
    later_hand_draws = POOL_SIZE  #: a later hand: 105 shuffle draws, then its first player

    def _later_deal(self, stream: np.ndarray) -> dict:
        """One later hand's deal drawn from the one-game stream ``stream[0]``, as
        ``next_hands`` holds it: ``{"deck": [106 tile strings], "first_player": k}``."""
        pool = draw_tiles(stream, 0)
        first = next64(stream, 0) % self.num_players
        return {"deck": [tile_str(t) for t in pool], "first_player": int(first)}

    def deal_of(self, i: int) -> dict:
        """The reset options that replay game ``i`` in ``env()`` with the same actions:
        ``{"deck": [106 tile strings, first drawn first], "first_player": k}`` of its
        hand; with ``episode="game"`` those of its first hand plus ``"next_hands"``, the
        deals of its later hands so far (``[{"deck": [...], "first_player": k}, ...]``,
        hand 2 first).  After the step that ends an episode it is still that episode's.

        Raises:
            ValueError: ``i`` is not a game index.
            RuntimeError: before ``reset``, or (``episode="game"``) the game's deal stream does not
                replay its later hands (an internal inconsistency).
        """
        i = check_int_arg("game index", i, 0, self.num_envs - 1)
        self._check_started()
        if self.config.episode != "game":
            return {"deck": tile_strings(self._decks[i]), "first_player": int(self._dealers[i])}
        later = int(self.hands_played[i]) - (1 if self._episode_over()[i] else 0)
        stream = np.array([(int(self._deal_rng[i]) - later * self.later_hand_draws * GOLDEN) & MASK64], np.uint64)
        next_hands = [self._later_deal(stream) for _ in range(later)]
        if stream[0] != self._deal_rng[i]:  # the protocol of the module docstring was broken
            raise RuntimeError(f"game {i}'s deal stream does not replay its {later} later hands")
        first = {"deck": tile_strings(self._first_decks[i]), "first_player": int(self._first_dealers[i])}
        return {**first, "next_hands": next_hands}

    def _check_decks(self, decks: Any) -> np.ndarray:
        n = self.num_envs
        decks = string_rows(decks)
        if isinstance(decks, np.ndarray) and np.issubdtype(decks.dtype, np.integer):
            if decks.shape != (n, POOL_SIZE):
                raise ValueError(
                    f"decks of shape {decks.shape}: pass ({n}, {POOL_SIZE}) tile types 0..52, first drawn first"
                )
            bad = np.flatnonzero((np.sort(decks, axis=1) != TILE_ORDER).any(axis=1))
            if bad.size:
                g = int(bad[0])
                faults = deck_faults(decks[g], NUM_TILE_TYPES, 2, "tile type")
                raise ValueError(
                    f"deck of game {g} is not a Rummikub pool: it must hold each tile type 0..52 twice ({faults})"
                )
            return decks.astype(np.int8)
        if not isinstance(decks, (list, tuple)) or len(decks) != n:
            raise ValueError(f"decks must be an int array ({n}, {POOL_SIZE}) or {n} lists of {POOL_SIZE} tile strings")
        out = np.zeros((n, POOL_SIZE), np.int8)
        for i, deck in enumerate(decks):
            try:
                out[i] = parse_stacked_pool(deck)
            except (TypeError, ValueError) as err:
                raise ValueError(f"deck of game {i}: {err}") from None
        return out

    def _check_dealers(self, dealers: Any) -> np.ndarray:
        allowed = f"dealers (Rummikub: first players) are 0..{self.num_players - 1}, one per game"
        arr = check_int_entries("dealers", dealers, allowed)
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"dealers (Rummikub: first players) must be an int array of shape ({self.num_envs},), "
                f"got {arr.dtype} {arr.shape}"
            )
        bad = np.flatnonzero((arr < 0) | (arr >= self.num_players))
        if bad.size:
            raise ValueError(
                f"first player {int(arr[bad[0]])} of game {int(bad[0])} is not a seat: "
                f"dealers (Rummikub: first players) are 0..{self.num_players - 1}"
            )
        return arr.astype(np.int8)

"""Rules engine of Rummikub (``docs/rules/rummikub.md``), framework-free.

Same API as the card engines (OpenSpiel names).  Racks, the table and the play being
built are tile count vectors (``np.ndarray`` of shape (53,), ``core.tiles``); the pool is
a list of tile types with the next tile drawn *last*.  A turn is built one tile at a time:
the acting player adds tiles in non-decreasing type order, then commits the play, or
draws (passes when the pool is empty) before adding any (R-RK-06).  Legality comes from
the exact solver of ``core.rummikub_solver``: the table's arrangement never matters,
only whether table + play can be split into valid melds (R-RK-08).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rummy_env.core.cards import count_faults
from rummy_env.core.rummikub_solver import is_legal_play, ordered_extension_mask
from rummy_env.core.tiles import NUM_TILE_TYPES, POOL_SIZE, TILE_VALUES, counts_str, tile_str, tiles_to_counts
from rummy_env.games.base import TERMINAL, EngineGame, EngineState  # noqa: F401 - TERMINAL is re-exported
from rummy_env.games.deal import NextHand, stack_first_player
from rummy_env.games.options import check_rng, check_seat
from rummy_env.games.resample import resample_rummikub
from rummy_env.games.rummikub.actions import COMMIT, DRAW, NUM_ACTIONS, action_to_string
from rummy_env.games.rummikub.config import RummikubConfig
from rummy_env.games.rummikub.deal import RACK_SIZE, parse_stacked_pool


class RummikubView(NamedTuple):
    """What one player may know of a Rummikub state (input of the encoder).

    Per-player tuples are in seat order relative to the viewer (0 = viewer).

    Attributes:
        rack: the viewer's tile counts, int64 (53,).
        table: tile counts on the table (its arrangement does not matter, R-RK-08).
        chosen: the play the viewer is building (zeros unless the viewer is acting).
        last_tile: the last tile type added to that play, or -1.
        initial_meld: per relative seat, whether that player has made the initial meld.
        acting: relative seat of the acting player, -1 when the episode is over.
        rack_sizes: tiles on each rack, relative seats.
        pool_size: tiles left in the pool.
        scores: game totals, relative seats (points; signed).
        passes: passes in a row with an empty pool (R-RK-11).
        turn: turns completed in this hand.
    """

    rack: np.ndarray
    table: np.ndarray
    chosen: np.ndarray
    last_tile: int
    initial_meld: tuple[bool, ...]
    acting: int
    rack_sizes: tuple[int, ...]
    pool_size: int
    scores: tuple[int, ...]
    passes: int
    turn: int


class RummikubGame(EngineGame):
    """A Rummikub game definition: options plus a state factory.

    Raises:
        ValueError: a bad option (see :class:`RummikubConfig`).
    """

    config_class = RummikubConfig
    num_actions = NUM_ACTIONS
    next_hand_keys = ("deck", "first_player")  # each hand draws its first player again

    def _parse_next_hand(self, deal: dict) -> NextHand:
        return stack_first_player(deal, parse_stacked_pool, self.config.num_players)

    def new_initial_state(self, rng=None, deck: list[int] | None = None, first_player: int | None = None):
        """The state after the deal (R-RK-02).

        Random choices, in this order, from ``rng`` (an int seeds a new generator): the
        first player (unless given), the pool's order (unless stacked).

        Args:
            deck: the 106 tiles as tile types, first drawn first (``core.tiles.parse_pool``).
            first_player: the seat that plays first.

        Raises:
            ValueError: ``rng`` not a generator, None or an int seed >= 0, a deck that is
                not the 106 tiles, or a seat outside the table.
        """
        rng = check_rng(rng)
        n = self.config.num_players
        first_player = int(rng.integers(n)) if first_player is None else check_seat("first_player", first_player, n)
        if deck is None:
            deck = [int(t) for t in rng.permutation(np.repeat(np.arange(NUM_TILE_TYPES), 2))]
        else:
            deck = list(deck)
            counts = tiles_to_counts(deck)  # checks each entry: int() would read 0.9 as tile 0, True as 1
            if len(deck) != POOL_SIZE or counts.tolist() != [2] * NUM_TILE_TYPES:
                faults = count_faults(counts, 2, "tile type")
                raise ValueError(
                    f"deck must hold the 106 tiles: two of each tile type 0..52 (got {len(deck)} tiles: {faults})"
                )
            deck = [int(t) for t in deck]
        state = RummikubState(self, rng)
        state._deal(deck, first_player)
        return state


class RummikubState(EngineState):
    """A Rummikub state: one hand, or a game of hands with ``episode="game"``.

    Public attributes (read them, do not assign them): ``racks`` (count vectors),
    ``table`` (count vector), ``chosen`` (the play being built), ``last_tile``, ``pool``
    (tile types, next drawn last), ``initial_meld`` (per seat), ``first_player``,
    ``current``, ``passes`` (in a row, pool empty), ``turn``, ``scores`` (game totals),
    ``hands_played``, ``last_hand`` (``winner`` seat or -1 (several on a shared R-RK-11
    win: ``winners``), ``hand_scores``, ``rack_values``, ``total_scores``, ``truncated``: the hand reached
    ``max_turns``), ``truncated`` (the episode's, R-RK-13: its one hand reached
    ``max_turns``, or with ``episode="game"`` ``max_hands`` hands ended without a game
    winner), ``initial_deck``, ``initial_first_player``, ``hand_decks`` and ``history``.
    """

    num_actions = NUM_ACTIONS
    action_to_string = staticmethod(action_to_string)

    def __init__(self, game: RummikubGame, rng: np.random.Generator):
        cfg = game.config
        self.game, self.config, self.rng = game, cfg, rng
        n = cfg.num_players
        self._init_bookkeeping(n)
        self.scores = [0] * n
        self.hands_played = 0
        self.last_hand: dict | None = None
        self.game_winner = -1
        self.initial_deck: list[int] = []
        self.initial_first_player = -1
        self.hand_decks: list[list[int]] = []

    # ----------------------------------------------------------------- deal
    def _deal(self, deck: list[int], first_player: int) -> None:
        """Deal 14 tiles to each rack, one at a time from the first player (R-RK-02)."""
        n = self._n
        if not self.initial_deck:
            self.initial_deck, self.initial_first_player = list(deck), first_player
        self.hand_decks.append(list(deck))
        self.deck = list(deck)
        self.first_player = first_player
        racks = [np.zeros(NUM_TILE_TYPES, dtype=np.int64) for _ in range(n)]
        for i in range(RACK_SIZE * n):
            racks[(first_player + i) % n][deck[i]] += 1
        self.racks = racks
        self.pool = deck[: RACK_SIZE * n - 1 : -1]  # next tile drawn last
        self.table = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
        self.chosen = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
        self.last_tile = -1
        self.initial_meld = [False] * n
        self.passes = 0
        self.turn = 0
        self.current = first_player
        self._legal = None

    # ------------------------------------------------------------ queries
    def _compute_legal(self) -> list[int]:
        cfg, p = self.config, self.current
        args = (self.initial_meld[p], cfg.initial_meld_points, cfg.initial_meld_table_play)
        mask = ordered_extension_mask(self.table, self.racks[p], self.chosen, *args)
        out = [int(t) for t in np.flatnonzero(mask)]
        if self.last_tile < 0:
            out.append(DRAW)
        elif is_legal_play(self.table, self.racks[p], self.chosen, *args):
            out.append(COMMIT)
        return out

    def observation(self, player: int) -> RummikubView:
        """What ``player`` may know (see :class:`RummikubView`): no other rack, no pool order.

        Raises:
            ValueError: ``player`` is not an int seat ``0..num_players-1``.
        """
        player = self._seat(player)
        n = self._n
        seats = [(player + k) % n for k in range(n)]
        acting = -1 if self._terminal else (self.current - player) % n
        mine = acting == 0
        return RummikubView(
            rack=self.racks[player].copy(),
            table=self.table.copy(),
            chosen=self.chosen.copy() if mine else np.zeros(NUM_TILE_TYPES, dtype=np.int64),
            last_tile=self.last_tile if mine else -1,
            initial_meld=tuple(self.initial_meld[s] for s in seats),
            acting=acting,
            rack_sizes=tuple(int(self.racks[s].sum()) for s in seats),
            pool_size=len(self.pool),
            scores=tuple(self.scores[s] for s in seats),
            passes=self.passes,
            turn=self.turn,
        )

    # ------------------------------------------------------------- moves
    def _action_text(self, action: int) -> str:
        if action == DRAW and not self.pool:
            return "pass"
        return action_to_string(action)

    def _apply(self, action: int) -> None:
        self._legal = None
        p = self.current
        if action < COMMIT:
            self.chosen[action] += 1
            self.last_tile = action
            return
        if action == COMMIT:
            self.racks[p] -= self.chosen
            self.table += self.chosen
            self.chosen = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
            self.last_tile = -1
            self.initial_meld[p] = True
            self.passes = 0
            if not self.racks[p].any():
                self._end_hand(out=p)  # R-RK-10
                return
        elif self.pool:
            self.racks[p][self.pool.pop()] += 1  # R-RK-06: drawing ends the turn
            self.passes = 0
        else:
            self.passes += 1
            if self.passes == self._n:
                self._end_hand(out=-1)  # R-RK-11: every player passed in a row
                return
        self.turn += 1
        if self.turn >= self.config.max_turns:
            # R-RK-13: no winner, all 0; a truncation only of a one-hand episode
            self.truncated = self.config.episode == "hand"
            self._end_hand(out=-1, move_limit=True)
            return
        self.current = (p + 1) % self._n

    # ------------------------------------------------------------ scoring
    def _end_hand(self, out: int, move_limit: bool = False) -> None:
        """Score the hand (R-RK-10, 11), then end the episode or deal the next hand (R-RK-12);
        ``move_limit``: the hand reached ``max_turns`` (R-RK-13)."""
        n, cfg = self._n, self.config
        values = [int(TILE_VALUES @ r) for r in self.racks]  # a joker on a rack counts 30
        scores = [0] * n
        winners: list[int] = []
        if move_limit:
            pass  # R-RK-13: no winner, 0 for all
        elif out >= 0:
            winners = [out]
            for q in range(n):
                scores[q] = sum(values) if q == out else -values[q]  # R-RK-10
        else:
            best = min(values)
            winners = [q for q in range(n) if values[q] == best]
            for q in range(n):
                if q not in winners:
                    scores[q] = -(values[q] - best)  # R-RK-11
            share = -sum(scores) / len(winners)
            for q in winners:
                scores[q] = share
            if len(winners) == n:
                winners = []  # everyone tied: no one won
        scores = [int(s) if float(s).is_integer() else s for s in scores]
        for q in range(n):
            self.scores[q] += scores[q]
        self.hands_played += 1
        self.last_hand = {
            "winner": winners[0] if len(winners) == 1 else -1,
            "winners": winners,
            "went_out": out,
            "hand_scores": scores,
            "rack_values": values,
            "total_scores": list(self.scores),
            "truncated": move_limit,
        }
        if cfg.reward == "score" and not move_limit:
            for q in range(n):
                self._give(q, float(scores[q]))
        # a one-hand episode is no game: no target, no game winner (as Gin's R-GIN-13 reading)
        game_over = cfg.episode == "game" and any(s >= cfg.target_score for s in self.scores)
        if game_over:
            # only shared winners of an R-RK-11 hand can cross the target together with equal
            # totals: the lower seat is named here, and the "win" rewards below share the tie
            self.game_winner = max(range(n), key=lambda q: self.scores[q])
        elif cfg.episode == "game" and self.hands_played >= cfg.max_hands:
            self.truncated = True  # R-RK-13: the game-level limit
        if cfg.episode == "hand" or game_over or self.truncated:
            self._terminal = True
            if cfg.reward == "win":
                if cfg.episode == "hand":
                    episode_winners = winners
                else:
                    best = max(self.scores)
                    episode_winners = [q for q in range(n) if self.scores[q] == best] if game_over else []
                if 0 < len(episode_winners) < n:
                    for q in range(n):
                        self._give(
                            q, 1.0 / len(episode_winners) if q in episode_winners else -1.0 / (n - len(episode_winners))
                        )
            return
        stacked = self._pop_next_hand()
        if stacked is not None:
            self._deal(list(stacked[0]), stacked[1])
            return
        # each hand's first player is drawn again, as the rules' "highest tile starts" is
        first = int(self.rng.integers(n))
        self._deal([int(t) for t in self.rng.permutation(np.repeat(np.arange(NUM_TILE_TYPES), 2))], first)

    # ------------------------------------------------------------- worlds
    # resample() (EngineState) deals again the other racks and the pool
    _resample_world = staticmethod(resample_rummikub)

    # ------------------------------------------------------------- copies
    def _clone_into(self, other: RummikubState) -> None:
        other.racks = [r.copy() for r in self.racks]
        other.table = self.table.copy()
        other.chosen = self.chosen.copy()
        other.pool = list(self.pool)
        other.initial_meld = list(self.initial_meld)

    def __str__(self) -> str:
        who = "episode over" if self._terminal else f"player {self.current} to act"
        lines = [f"first player {self.first_player}, {who}, turn {self.turn}"]
        for q, r in enumerate(self.racks):
            lines.append(f"rack {q}: {counts_str(r)}")
        lines.append(f"table: {counts_str(self.table)}")
        lines.append(
            f"play being built: {counts_str(self.chosen)}"
            + (f" (last {tile_str(self.last_tile)})" if self.last_tile >= 0 else "")
        )
        lines.append(f"pool: {len(self.pool)} tiles")
        return "\n".join(lines)

"""``RummikubVec``: batched Rummikub, numpy state and the solver's compiled masks.

Per-game state lives in numpy arrays, game index first: racks ``(n, P, 53)`` and the
table and the play being built ``(n, 53)`` as int64 tile counts (``core.tiles``), each
game's pool as its recorded deck (int8 ``(n, 106)``) with the index of the next tile
drawn, and scalar columns (acting seat, last tile added, passes, turn, totals, hands).
A batch call runs three phases over every game at once:

* step (numpy, vectorised over the games): the actions (random ones drawn from the
  games' action streams), ``add`` / ``commit`` / ``draw`` / ``pass`` as
  ``RummikubState._apply``, hand ends scored per game as ``RummikubState._end_hand``
  (R-RK-10..13; rare), the deals of new episodes and of later hands
  (``vector.rummikub_world``);
* mask (``vector.rummikub_masks``): one compiled ``nogil`` call per thread computes the
  exact masks of every live game (the solver's sweeps; a table-play initial meld, the
  product sweep, goes through the solver's public functions);
* observation (numpy): the ``rummikub_v0`` layout (``encoding.rummikub``) written for
  every game.

``timings`` accumulates the seconds spent in each phase (``experiments.benchmark
--vector`` reports them per decision).  The mask is most of the cost: it is the exact
solver's, about 60 microseconds per decision in random play (from 10 us to 10 ms: tables
holding jokers cost the most) against about 7 for the rest
(``docs/results/rummikub-speed``).
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from rummy_env.core.compile_notice import compile_notice
from rummy_env.core.rummikub_solver import is_legal_play, ordered_extension_mask
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, POOL_SIZE, TILE_VALUES
from rummy_env.encoding import rummikub as rummikub_encoding
from rummy_env.games.rummikub import RummikubGame
from rummy_env.games.rummikub import actions as rummikub_actions
from rummy_env.games.rummikub.deal import RACK_SIZE
from rummy_env.vector.batch import RUMMIKUB_BACKENDS, Batch, VecBase
from rummy_env.vector.rummikub_masks import COMMIT, DRAW, masks_kernel
from rummy_env.vector.rummikub_world import RummikubDeals, draw_tiles_many, next64_many
from rummy_env.vector.whole_games import WholeGames

LIVE, TERMINATED, TRUNCATED = 0, 1, 2  #: ``_ended`` values
_VALUES = TILE_VALUES.astype(np.int64)  # a joker on a rack counts 30 (R-RK-10)


class RummikubEngine(VecBase):
    """The simulator of :class:`RummikubVec` (see the module docstring)."""

    variant = "rummikub_v0"
    game_class = RummikubGame
    actions = rummikub_actions
    encoder = rummikub_encoding
    backends = RUMMIKUB_BACKENDS
    #: below this many live games per thread, the masks run on the calling thread alone
    games_per_thread = 8

    def _allocate(self) -> None:
        super()._allocate()
        n, p = self.num_envs, self.num_players
        self._racks = np.zeros((n, p, NUM_TILE_TYPES), np.int64)
        self._table = np.zeros((n, NUM_TILE_TYPES), np.int64)
        self._chosen = np.zeros((n, NUM_TILE_TYPES), np.int64)
        self._last = np.full(n, -1, np.int64)  # last tile type added to the play, -1: none
        self._meld = np.zeros((n, p), np.bool_)  # initial meld made (R-RK-07)
        self._current = np.zeros(n, np.int64)
        self._pos = np.zeros(n, np.int64)  # index in _decks of the next tile drawn
        self._passes = np.zeros(n, np.int64)
        self._turn = np.zeros(n, np.int64)
        self._totals = np.zeros((n, p), np.float64)  # game totals (a shared win can score fractions)
        self._hands = np.zeros(n, np.int64)  # hands finished in the episode
        self._ended = np.full(n, TERMINATED, np.int8)  # no hand dealt yet
        self._legal = np.zeros((n, NUM_TILE_TYPES + 2), np.int8)
        self._fallback = np.zeros(n, np.bool_)
        self._dir_cost = np.full((n, 2), -1, np.int64)  # rummikub_masks: last sweep work per direction
        self._rewards = np.zeros((n, p), np.float64)  # rewards of the current move
        self._workers: ThreadPoolExecutor | None = None
        self.timings = {"step": 0.0, "mask": 0.0, "observation": 0.0}
        lay = self.layout
        self._at = {name: lay.offset(name) for name in ("play", "last_tile", "initial_meld", "acting")}
        self._at.update({name: lay.offset(name) for name in ("rack_sizes", "pool_size", "scores", "passes", "turn")})

    # ------------------------------------------------------------------ deals
    def _new_episodes(self, games: np.ndarray, shuffle: np.ndarray, dealers: np.ndarray) -> None:
        """Start an episode in ``games``: their pools shuffled from the deal streams where
        ``shuffle`` (else ``_decks`` holds them), then their first players drawn where
        ``dealers < 0`` (``vector.rummikub_world``'s order)."""
        if shuffle.any():
            draw_tiles_many(self._deal_rng, games[shuffle], self._decks)
        first = dealers.astype(np.int64)
        drawn = first < 0
        if drawn.any():
            first[drawn] = (next64_many(self._deal_rng, games[drawn]) % np.uint64(self.num_players)).astype(np.int64)
        self._dealers[games] = first
        self._totals[games] = 0
        self._hands[games] = 0
        self._setup_hands(games)

    def _setup_hands(self, games: np.ndarray) -> None:
        """Deal the recorded pools of ``games`` from their first players (R-RK-02)."""
        p, m = self.num_players, games.size
        dealt = RACK_SIZE * p
        first = self._dealers[games].astype(np.int64)
        seats = (first[:, None] + np.arange(dealt)[None, :]) % p
        racks = np.zeros((m, p, NUM_TILE_TYPES), np.int64)
        rows = np.repeat(np.arange(m), dealt)
        np.add.at(racks, (rows, seats.ravel(), self._decks[games, :dealt].astype(np.int64).ravel()), 1)
        self._racks[games] = racks
        self._table[games] = 0
        self._chosen[games] = 0
        self._last[games] = -1
        self._meld[games] = False
        self._current[games] = first
        self._pos[games] = dealt
        self._passes[games] = 0
        self._turn[games] = 0
        self._ended[games] = LIVE
        self._dir_cost[games] = -1  # a new table: the directions' costs are unknown again

    def _next_hand(self, g: int) -> None:
        """A whole game's next hand: its pool and first player from the deal stream."""
        one = np.array([g])
        draw_tiles_many(self._deal_rng, one, self._decks)
        self._dealers[g] = int(next64_many(self._deal_rng, one)[0] % np.uint64(self.num_players))
        self._setup_hands(one)

    # ------------------------------------------------------------------ rules
    def _apply(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Apply legal ``actions`` in the live ``games`` (``RummikubState._apply``); their
        rewards go to ``_rewards`` (zeroed first)."""
        self._rewards[games] = 0.0
        p = self._current[games]
        add = actions < COMMIT
        ga, aa = games[add], actions[add]
        self._chosen[ga, aa] += 1
        self._last[ga] = aa
        com = actions == COMMIT
        gc, pc = games[com], p[com]
        self._racks[gc, pc] -= self._chosen[gc]
        self._table[gc] += self._chosen[gc]
        self._chosen[gc] = 0
        self._last[gc] = -1
        self._meld[gc, pc] = True
        self._passes[gc] = 0
        out = ~self._racks[gc, pc].any(axis=1)
        drw = actions == DRAW
        gd, pd = games[drw], p[drw]
        has = self._pos[gd] < POOL_SIZE
        gh, ph = gd[has], pd[has]
        self._racks[gh, ph, self._decks[gh, self._pos[gh]]] += 1  # R-RK-06: drawing ends the turn
        self._pos[gh] += 1
        self._passes[gh] = 0
        gp = gd[~has]
        self._passes[gp] += 1
        passed = self._passes[gp] == self.num_players
        for g, seat in zip(gc[out].tolist(), pc[out].tolist(), strict=True):
            self._end_hand(g, seat, False)  # R-RK-10
        for g in gp[passed].tolist():
            self._end_hand(g, -1, False)  # R-RK-11: every player passed in a row
        turn_over = np.concatenate([gc[~out], gh, gp[~passed]])
        self._turn[turn_over] += 1
        limit = self._turn[turn_over] >= self.config.max_turns
        for g in turn_over[limit].tolist():
            self._end_hand(g, -1, True)  # R-RK-13
        rest = turn_over[~limit]
        self._current[rest] = (self._current[rest] + 1) % self.num_players

    def _end_hand(self, g: int, out: int, move_limit: bool) -> None:
        """Score game ``g``'s hand (R-RK-10, 11, 13) as ``RummikubState._end_hand``, then
        end the episode or deal the game's next hand (R-RK-12)."""
        n, cfg = self.num_players, self.config
        values = (self._racks[g] @ _VALUES).tolist()
        scores: list[float] = [0] * n
        winners: list[int] = []
        if move_limit:
            pass
        elif out >= 0:
            winners = [out]
            for q in range(n):
                scores[q] = sum(values) if q == out else -values[q]
        else:
            best = min(values)
            winners = [q for q in range(n) if values[q] == best]
            for q in range(n):
                if q not in winners:
                    scores[q] = -(values[q] - best)
            share = -sum(scores) / len(winners)
            for q in winners:
                scores[q] = share
            if len(winners) == n:
                winners = []
        scores = [int(s) if float(s).is_integer() else s for s in scores]
        for q in range(n):
            self._totals[g, q] += scores[q]
        self._hands[g] += 1
        if cfg.reward == "score" and not move_limit:
            for q in range(n):
                self._rewards[g, q] += float(scores[q])
        totals = self._totals[g].tolist()
        game_over = any(s >= cfg.target_score for s in totals)
        truncated = cfg.episode == "hand" and move_limit
        if not game_over and cfg.episode == "game" and self._hands[g] >= cfg.max_hands:
            truncated = True
        if cfg.episode == "hand" or game_over or truncated:
            self._ended[g] = TRUNCATED if truncated else TERMINATED
            if cfg.reward == "win":
                if cfg.episode == "hand":
                    won = winners
                else:
                    best = max(totals)
                    won = [q for q in range(n) if totals[q] == best] if game_over else []
                if 0 < len(won) < n:
                    for q in range(n):
                        self._rewards[g, q] += 1.0 / len(won) if q in won else -1.0 / (n - len(won))
            return
        self._next_hand(g)

    def _random_actions(self, games: np.ndarray) -> np.ndarray:
        """The ``next() % k``-th legal id (ascending) of each game, from its action stream."""
        legal = self._legal[games]
        counts = legal.sum(axis=1, dtype=np.int64)
        k = (next64_many(self._action_rng, games) % counts.astype(np.uint64)).astype(np.int64)
        return np.argmax(np.cumsum(legal, axis=1) > k[:, None], axis=1).astype(np.int64)

    # ------------------------------------------------------------------ masks
    def threads_used(self, games: int | None = None) -> int:
        """Threads the masks of ``games`` live games (default: all) run on:
        ``num_threads`` (None: numba's default), at most ``NUMBA_NUM_THREADS`` and one
        per ``games_per_thread`` games."""
        threads = numba.config.NUMBA_NUM_THREADS if self.num_threads is None else self.num_threads
        games = self.num_envs if games is None else games
        return max(1, min(threads, numba.config.NUMBA_NUM_THREADS, games // self.games_per_thread))

    def _compute_masks(self, games: np.ndarray) -> None:
        """The legal ids of the acting player of every (live) game of ``games`` into ``_legal``."""
        m = games.size
        if not m:
            return
        cfg = self.config
        masks_range, tables = masks_kernel()
        args = (
            games,
            self._racks,
            self._table,
            self._chosen,
            self._last,
            self._current,
            self._meld,
            cfg.initial_meld_points,
            cfg.initial_meld_table_play,
            tables,
            self._legal,
            self._fallback,
            self._dir_cost,
        )
        threads = self.threads_used(m)
        with compile_notice("the Rummikub masks", call="rummikub_masks.masks_range"):
            if threads < 2:
                masks_range(0, m, *args)
            else:
                self._masks_threaded(masks_range, args, threads)
        for g in games[self._fallback[games]].tolist():  # the table-play initial meld (R-RK-07 option)
            p = int(self._current[g])
            flags = (False, cfg.initial_meld_points, True)
            row = self._legal[g]
            row[:] = 0
            row[:NUM_TILE_TYPES] = ordered_extension_mask(self._table[g], self._racks[g, p], self._chosen[g], *flags)
            if self._last[g] < 0:
                row[DRAW] = 1
            elif is_legal_play(self._table[g], self._racks[g, p], self._chosen[g], *flags):
                row[COMMIT] = 1

    def _masks_threaded(self, masks_range: Any, args: tuple, threads: int) -> None:
        """``masks_range`` over ``args[0]`` (the games) on ``threads`` workers that take small
        chunks as they finish, the games with the costliest tables first.

        A mask's cost spans three orders of magnitude (10 us to 10 ms: tables holding
        jokers cost 3-12x more, ``docs/results/rummikub-speed``), so with two fixed halves
        one thread could wait while the other finished a few costly games; the costliest
        first in small chunks (a greedy schedule) leaves at most about one chunk's work
        unshared at the end.  The order changes nothing else: each game's mask is its own."""
        games = args[0]
        m = games.size
        table = self._table[games]
        cost = table[:, JOKER] * 128 + table.sum(axis=1)  # jokers on the table dominate the sweep
        ordered = games[np.argsort(-cost, kind="stable")]
        args = (ordered, *args[1:])
        size = max(1, m // (threads * 32))
        bounds = list(range(0, m, size)) + [m]
        chunks = itertools.count()

        def work() -> None:
            while True:
                c = next(chunks)  # atomic under the GIL
                if c >= len(bounds) - 1:
                    return
                masks_range(bounds[c], bounds[c + 1], *args)

        if self._workers is None:
            self._workers = ThreadPoolExecutor(threads, thread_name_prefix="rummikub-vec")
        jobs = [self._workers.submit(work) for _ in range(threads)]
        for job in jobs:
            job.result()

    def close(self) -> None:
        """Stop the worker threads (they also stop with the interpreter)."""
        if self._workers is not None:
            self._workers.shutdown()
            self._workers = None

    # ------------------------------------------------------------ observation
    def _observe(self, games: np.ndarray, seats: np.ndarray, out: Batch) -> None:
        """Rows ``games`` of ``out`` from ``seats``' views (``encoding.rummikub.encode``):
        observation, mask (the legal ids if that seat is acting), acting seat."""
        p, m, at = self.num_players, games.size, self._at
        obs = np.zeros((m, self.observation_size), np.float32)
        t = NUM_TILE_TYPES
        obs[:, :t] = self._racks[games, seats]
        obs[:, t : 2 * t] = self._table[games]
        live = self._ended[games] == LIVE
        mine = live & (self._current[games] == seats)
        obs[mine, at["play"] : at["play"] + t] = self._chosen[games[mine]]
        last = self._last[games]
        sel = np.flatnonzero(mine & (last >= 0))
        obs[sel, at["last_tile"] + last[sel]] = 1
        rel = (seats[:, None] + np.arange(p)[None, :]) % p
        rows = games[:, None]
        obs[:, at["initial_meld"] : at["initial_meld"] + p] = self._meld[rows, rel]
        acting = np.flatnonzero(live)
        obs[acting, at["acting"] + (self._current[games[acting]] - seats[acting]) % p] = 1
        sizes = self._racks[games].sum(axis=2)
        obs[:, at["rack_sizes"] : at["rack_sizes"] + p] = sizes[np.arange(m)[:, None], rel]
        obs[:, at["pool_size"]] = POOL_SIZE - self._pos[games]
        obs[:, at["scores"] : at["scores"] + p] = self._totals[rows, rel]
        obs[:, at["passes"]] = self._passes[games]
        obs[:, at["turn"]] = self._turn[games]
        out.observation[games] = obs
        out.action_mask[games] = np.where(mine[:, None], self._legal[games], 0)
        out.current_player[games] = seats

    # --------------------------------------------------------------- VecBase
    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        t0 = time.perf_counter()
        games = np.arange(self.num_envs)
        if given.any():
            self._decks[:] = decks
        self._new_episodes(games, ~given, dealers)
        t1 = time.perf_counter()
        self._compute_masks(games)
        t2 = time.perf_counter()
        self._observe(games, self._current.copy(), out)
        out.rewards[:] = 0
        out.terminated[:] = False
        out.truncated[:] = False
        self._tally(t0, t1, t2)

    def _advance(self, actions: np.ndarray | None, out: Batch) -> None:
        """One step of every game: ``actions`` (None: random legal ones) in the live games,
        a new episode in the others (autoreset)."""
        t0 = time.perf_counter()
        live = np.flatnonzero(self._ended == LIVE)
        starting = np.flatnonzero(self._ended != LIVE)
        moves = self._random_actions(live) if actions is None else actions[live]
        movers = self._current[live].copy()
        self._apply(live, moves)
        if starting.size:
            self._new_episodes(starting, np.ones(starting.size, np.bool_), np.full(starting.size, -1, np.int64))
        t1 = time.perf_counter()
        self._compute_masks(np.flatnonzero(self._ended == LIVE))
        t2 = time.perf_counter()
        seats = self._current.copy()
        over = self._ended[live] != LIVE
        seats[live[over]] = movers[over]  # the final view is the mover's
        self._observe(np.arange(self.num_envs), seats, out)
        out.rewards[:] = self._rewards
        out.rewards[starting] = 0
        out.terminated[:] = self._ended == TERMINATED
        out.truncated[:] = self._ended == TRUNCATED
        out.terminated[starting] = False
        out.truncated[starting] = False
        self._tally(t0, t1, t2)

    def _tally(self, t0: float, t1: float, t2: float) -> None:
        now = time.perf_counter()
        self.timings["step"] += t1 - t0
        self.timings["mask"] += t2 - t1
        self.timings["observation"] += now - t2

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        self._advance(actions, out)

    def _step_random_games(self, out: Batch) -> None:
        self._advance(None, out)

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        total = np.zeros((self.num_envs, self.num_players), np.float32)
        moved = np.zeros(self.num_envs, np.bool_)
        t_step = t_mask = 0.0
        t0 = time.perf_counter()
        while True:
            games = np.flatnonzero((self._ended == LIVE) & (self._current != seats))
            if not games.size:
                break
            t1 = time.perf_counter()
            self._apply(games, self._random_actions(games))
            total[games] += self._rewards[games].astype(np.float32)
            moved[games] = True
            t2 = time.perf_counter()
            self._compute_masks(games[self._ended[games] == LIVE])
            t3 = time.perf_counter()
            t_step += t2 - t1
            t_mask += t3 - t2
        t4 = time.perf_counter()
        games = np.flatnonzero(moved)
        self._observe(games, seats[games], out)
        out.rewards[games] = out.rewards[games] + total[games]
        out.terminated[games] = self._ended[games] == TERMINATED
        out.truncated[games] = self._ended[games] == TRUNCATED
        self.timings["step"] += t_step
        self.timings["mask"] += t_mask
        self.timings["observation"] += time.perf_counter() - t4 + (t4 - t0 - t_step - t_mask)

    def _illegal_game(self, actions: np.ndarray) -> int:
        live = self._ended == LIVE
        ok = (actions >= 0) & (actions < self.num_actions)
        legal = self._legal[np.arange(self.num_envs), np.where(ok, actions, 0)] != 0
        bad = np.flatnonzero(live & ~(ok & legal))
        return int(bad[0]) if bad.size else -1

    def _episode_over(self) -> np.ndarray:
        return self._ended != LIVE

    def _acting_seat(self, i: int) -> int:
        return int(self._current[i])

    @property
    def hands_played(self) -> np.ndarray:
        """Hands finished in every game's current (or just ended) episode: int64 ``(num_envs,)``."""
        return self._hands.copy()

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) episode: float64
        ``(num_envs, num_players)`` (a shared win of R-RK-11 can score fractions)."""
        return self._totals.copy()

    def state_bytes_per_game(self) -> int:
        """Bytes of simulator state per game (the output buffers not included)."""
        arrays = (
            self._racks,
            self._table,
            self._chosen,
            self._decks,
            self._legal,
            self._totals,
            self._meld,
            self._dir_cost,
        )
        return sum(a.nbytes for a in arrays) // self.num_envs + 8 * 10


class RummikubVec(RummikubDeals, WholeGames, RummikubEngine):
    """``num_envs`` Rummikub games stepped together (rules ``docs/rules/rummikub.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks (exact:
    the solver's), rewards and terminations are those of ``rummikub_v0.env(**env_options)``
    with the same deal and actions (the differential tests check it), and the same seed
    gives the games of :class:`~rummy_env.vector.ReferenceRummikubVec`.  ``reset``'s
    ``decks`` are pools of 106 tiles (int tile types or tile strings, first drawn first)
    and its ``dealers`` the hands' first players; ``deal_of(i)`` is ``{"deck",
    "first_player"}`` (plus ``"next_hands"`` with ``episode="game"``).

    Args:
        num_envs: games, >= 1.
        seed: int 0..2**64-1 (``batch.MAX_SEED``).
        num_threads: threads for the masks (at most ``NUMBA_NUM_THREADS``, one per 8
            live games); None: numba's default (all cores).
        backend: ``"threads"`` (the only one: the masks' compiled slices run on
            ``nogil`` worker threads).
        **env_options: ``rummikub_v0.env`` options (``num_players`` 2..4,
            ``initial_meld_points``, ``initial_meld_table_play``, ``target_score``,
            ``max_turns``, ``max_hands``, ``episode``, ``reward``); with
            ``episode="game"`` each episode is a whole game (``vector.whole_games``).

    Raises:
        ValueError: a bad argument or option.
    """

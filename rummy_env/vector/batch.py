"""The batch API every batched engine shares: :class:`Batch`, seeding, argument checks.

:class:`VecBase` holds what does not depend on how games are simulated: the options
(validated by the variant's config class, ``games.<variant>.config``, as ``env()``
validates them, so a batched engine takes exactly the env's options), the observation
layout (``encoding.<variant>.layout_of``), the per-game random streams, the recorded deals,
the output buffers and every argument check.  A simulator subclasses it and writes
five methods: ``_reset_games``, ``_step_games``, ``_step_random_games``,
``_step_opponents_games`` and ``_illegal_game`` (and ``_deal_extras`` when a hand needs
more than its deck and dealer to replay, as Crazy Rummy's wild rank); the pure-Python
reference (``vector.reference``) and the numba kernels (``vector.gin_vec``,
``vector.rummy_vec``, ``vector.crazy_vec``) are such subclasses, so their public API is
one and the same.

Random streams.  Game ``i`` owns two splitmix64 generators (64-bit states in
``uint64`` arrays): one for its deals (Fisher-Yates shuffle of the 52 card ids, then
the dealer ``next() % num_players``, then for Crazy Rummy without the ``wild_rank``
option the wild rank ``next() % 13 + 1``) and one for the random actions of
``step_random`` (the ``next() % k``-th legal action id, ascending).  They are seeded
from ``(seed, i)`` alone, so the same seed gives the same deals and the same random
games in every implementation, whatever the thread count; ``reset(seed=[...])`` gives each
game its own seed, game ``i``'s streams then coming from ``(seed[i], i)``.  The generators
are in :mod:`rummy_env.vector.streams`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from rummy_env.core.cards import NUM_CARDS, card_str, deck_faults, parse_deck
from rummy_env.games.options import check_int, check_int_entries, check_known
from rummy_env.vector.streams import (  # noqa: F401 - the stream helpers, also imported from here
    GOLDEN,
    MASK64,
    MAX_SEED,
    SEED_FORMS,
    SeedArg,
    check_game_seeds,
    draw_dealer,
    draw_deck,
    draw_wild_rank,
    mix64,
    mix64_array,
    next64,
    seed_streams,
)

#: the most games one engine holds: 2**24 games of 4-player Rummikub take about 60 GiB (its
#: arrays and buffers); a larger ``num_envs`` is refused at once instead of failing to
#: allocate later
MAX_NUM_ENVS = 1 << 24


class Batch(NamedTuple):
    """One step of every game of a batch (arrays, game index first).

    Attributes:
        observation: float32 ``(num_envs, observation_size)``: the observation of
            ``current_player``, in exactly the layout of
            ``env().observe(agent)["observation"]``.
        action_mask: int8 ``(num_envs, num_actions)``: 1 at the legal action ids of
            ``current_player``; all 0 in a game whose episode just ended.
        current_player: int64 ``(num_envs,)``: the seat to act; in a game whose
            episode just ended, the seat that made the last move (whose view
            ``observation`` is).
        rewards: float32 ``(num_envs, num_players)``: every seat's reward for this step
            (what ``env().rewards`` holds after it).
        terminated, truncated: bool ``(num_envs,)``: the episode ended in this step.

    An engine returns its own buffers (the same ``Batch`` at every call) unless given
    ``out=``: the next call overwrites them, so copy what is kept across steps.
    """

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


def empty_batch(num_envs: int, observation_size: int, num_actions: int, num_players: int) -> Batch:
    """A :class:`Batch` of zeroed arrays of the given sizes (for ``out=``)."""
    return Batch(
        np.zeros((num_envs, observation_size), np.float32),
        np.zeros((num_envs, num_actions), np.int8),
        np.zeros(num_envs, np.int64),
        np.zeros((num_envs, num_players), np.float32),
        np.zeros(num_envs, np.bool_),
        np.zeros(num_envs, np.bool_),
    )


#: ``backend`` values: the card engines' kernels run on nogil worker threads or numba's
#: ``prange``; Rummikub's masks (and so ``RummikubVec``) on threads only
CARD_BACKENDS: tuple[str, ...] = ("threads", "prange")
RUMMIKUB_BACKENDS: tuple[str, ...] = ("threads",)


def check_backend(backend: Any, allowed: tuple[str, ...]) -> str:
    """``backend`` if it is one of ``allowed`` (:data:`CARD_BACKENDS`, :data:`RUMMIKUB_BACKENDS`).

    Raises:
        ValueError: any other value; the message lists ``allowed``.
    """
    if not isinstance(backend, str) or backend not in allowed:  # `in` would ask an array's truth
        what = {"threads": "nogil worker threads", "prange": "numba's parallel loops"}
        raise ValueError(
            f"backend={backend!r}: use {' or '.join(map(repr, allowed))} ("
            + "; ".join(f"{b!r}: {what[b]}" for b in allowed)
            + ")"
        )
    return str(backend)


def check_int_arg(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``low..high``; ``ValueError`` naming ``name`` (an argument,
    not an option) otherwise."""
    return int(check_int(name, value, low, high, kind=""))


def string_rows(decks: Any) -> Any:
    """A 2-D array of strings (``np.array([vec.deal_of(i)["deck"] for i in ...])``) as the list of
    its rows, lists of Python str (so that a bad card is named as in a list), the form
    ``reset(decks=...)`` reads strings in; anything else as it is."""
    if isinstance(decks, np.ndarray) and decks.ndim == 2 and decks.dtype.kind in "UO":
        return decks.tolist()
    return decks


class VecBase:
    """The batch API (see the module docstring); variants set the class attributes.

    Args:
        num_envs: games in the batch, 1..2**24 (``MAX_NUM_ENVS``).
        seed: int 0..2**64-1 (``MAX_SEED``; larger seeds would repeat smaller ones);
            game ``i``'s deals and random actions come from ``(seed, i)``.
        num_threads: threads of the kernels (None: numba's default); the reference
            accepts and ignores it.
        backend: how a call spreads over the threads, one of the class's ``backends``
            (:func:`check_backend`); the reference checks it as its compiled twin does.
        **env_options: the variant's ``env()`` options (``render_mode`` excluded).

    Attributes:
        seed: the seed last given: the constructor's int, then a reset's int, or after
            ``reset(seed=[...])`` that list as a tuple of ``num_envs`` Python ints and None
            (``reset(seed=[None, 9, None])`` leaves ``(None, 9, None)``: games 0 and 2 kept
            their streams, whose seed the tuple does not repeat).  ``reset(seed=None)``
            leaves it as it was.

    Raises:
        ValueError: a bad argument or option; ``episode="game"`` in an engine that plays
            one hand per episode (whole games need ``vector.whole_games.WholeGames``).
    """

    variant = ""  #: the env module, e.g. ``"gin_rummy_v0"``
    game_class: Any = None  #: the variant's game (``games.<variant>``); its ``config_class`` takes the options
    actions: Any = None  #: the variant's actions module (``NUM_ACTIONS``, ``action_to_string``)
    encoder: Any = None  #: the variant's encoding module (``layout_of``)
    whole_games = False  #: plays ``episode="game"`` (``vector.whole_games.WholeGames``)
    deck_size = NUM_CARDS  #: entries of a recorded deal's deck (Rummikub: its 106 tiles)
    backends: tuple[str, ...] = CARD_BACKENDS  #: the ``backend`` values (Rummikub: RUMMIKUB_BACKENDS)

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        num_threads: int | None = None,
        backend: str = "threads",
        **env_options: Any,
    ):
        self.backend = check_backend(backend, self.backends)
        self.num_envs = check_int_arg("num_envs", num_envs, 1, MAX_NUM_ENVS)
        self.seed: int | tuple[int | None, ...] = check_int_arg("seed", seed, 0, MAX_SEED)
        if num_threads is not None:
            num_threads = check_int_arg("num_threads", num_threads, 1)
        self.num_threads = num_threads
        if "render_mode" in env_options:
            raise ValueError("option render_mode is not an option of a batched engine: it renders nothing")
        config_class = self.game_class.config_class
        check_known(env_options, config_class.option_names(), self.variant)  # as env() checks them
        self.config = config_class(**env_options)
        if self.config.episode != "hand" and not self.whole_games:
            raise ValueError(
                f"option episode={self.config.episode!r} is not supported by {type(self).__name__} yet: "
                "it plays episode='hand' (one hand per episode)"
            )
        # the options given, as the config holds them (Python ints and bools, not numpy's)
        self.env_options = {name: getattr(self.config, name) for name in env_options}
        self.layout = self.encoder.layout_of(self.config)
        self.observation_size = self.layout.size
        self.num_actions = self.actions.NUM_ACTIONS
        self.num_players = self.game_class(self.config).num_players
        self.action_to_string = self.actions.action_to_string
        n = self.num_envs
        self._deal_rng, self._action_rng = seed_streams(self.seed, n)
        self._decks = np.zeros((n, self.deck_size), np.int8)  # each game's current deck, top first
        self._dealers = np.zeros(n, np.int8)
        self._done = np.zeros(n, np.bool_)  # the episode ended at the last step: reset at the next
        self._buffer = empty_batch(n, self.observation_size, self.num_actions, self.num_players)
        self._started = False
        self._allocate()

    def _allocate(self) -> None:
        """The engine's own arrays, once the arguments are checked: each subclass and mixin
        calls ``super()._allocate()`` first, then adds its own (one ``__init__``, one
        signature, for every engine)."""

    # ------------------------------------------------------------------ API
    def reset(
        self,
        seed: SeedArg = None,
        decks: Any = None,
        dealers: Any = None,
        out: Batch | None = None,
    ) -> Batch:
        """Deal a new episode (its first hand) in every game.

        Args:
            seed: int 0..2**64-1 (a NumPy integer too): reseed every game's streams (as
                the constructor does); None: continue them; a list or tuple of ``num_envs``
                entries, each an int 0..2**64-1 or None, or a 1-D array ``(num_envs,)`` of
                an integer dtype (or object dtype holding ints and None): game ``i``'s
                streams come from ``(seed[i], i)``, as game ``i`` of a reset with the int
                ``seed[i]`` (so ``[s] * num_envs`` is the int ``s``; equal seeds at other
                indexes deal other games), and a None entry continues that game's streams.
                Other sequences (a ``range``, a set) are refused.  The :attr:`seed`
                attribute then holds the int, or the list as a tuple of ints and None.
            decks: stacked first hands, top card first: an int array ``(num_envs, 52)``
                of card ids, or ``num_envs`` lists of 52 card strings (``deal_of``'s
                form; a 2-D array of strings is such rows).  None: shuffled from the deal
                streams.  Later hands (after an episode ends, or later in a game) always
                come from the streams.  Rummikub:
                ``(num_envs, 106)`` tile types 0..52 or lists of 106 tile strings.
            dealers: int array ``(num_envs,)`` of seats (Rummikub: first players); None:
                drawn from the deal streams (after the shuffle, also when ``decks`` are given).
            out: a :class:`Batch` of caller-owned arrays to write into (shapes and
                dtypes of :func:`empty_batch`); None: the engine's own buffers, which
                the next call overwrites.

        Returns:
            the first step of every game (rewards 0, not terminated).

        Raises:
            ValueError: a bad seed, deck, dealer or ``out``; the games are unchanged.
        """
        out = self._check_out(out)
        n = self.num_envs
        deck_ids = None if decks is None else self._check_decks(decks)
        seats = None if dealers is None else self._check_dealers(dealers)
        if isinstance(seed, (list, tuple, np.ndarray)):
            seeds = check_game_seeds(seed, n)
            new = seeds != None  # noqa: E711 - elementwise on an object array
            deal, act = seed_streams(np.where(new, seeds, 0).astype(np.uint64), n)
            self._deal_rng[new], self._action_rng[new] = deal[new], act[new]
            self.seed = tuple(seeds.tolist())
        elif seed is not None:
            self.seed = self._check_seed(seed)
            self._deal_rng, self._action_rng = seed_streams(self.seed, n)
        given = np.zeros(n, np.bool_) if deck_ids is None else np.ones(n, np.bool_)
        use_deck = deck_ids if deck_ids is not None else np.zeros((n, self.deck_size), np.int8)
        use_dealer = seats if seats is not None else np.full(n, -1, np.int8)
        self._reset_games(use_deck, given, use_dealer, out)
        self._done[:] = False
        self._started = True
        return out

    def _check_seed(self, seed: Any) -> int:
        """A reset's seed that is not a list: an int 0..MAX_SEED, refused with every form a
        reset takes (:data:`~rummy_env.vector.streams.SEED_FORMS`) otherwise."""
        try:
            return check_int_arg("seed", seed, 0, MAX_SEED)
        except ValueError:
            whole = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
            why = "is out of range" if whole else "is not an int, None or a list"
            raise ValueError(f"seed={seed!r} {why}: {SEED_FORMS.format(max=MAX_SEED, n=self.num_envs)}") from None

    def step(self, actions: Any, out: Batch | None = None) -> Batch:
        """Apply one action in every game.

        A game whose episode ended at the previous step ignores its action and deals
        its next episode instead: it returns that episode's first step (rewards 0, not
        terminated) -- Gymnasium's "next step" autoreset.  The step that ends an
        episode returns the final view of the seat that moved (mask all 0), every
        seat's rewards and ``terminated`` or ``truncated``.  (With ``episode="game"``
        the step that ends a hand inside a game returns its rewards and the first
        step of the game's next hand, ``vector.whole_games``.)

        Args:
            actions: int array ``(num_envs,)`` of action ids.
            out: caller-owned output arrays, as in :meth:`reset`.

        Raises:
            ValueError: actions of the wrong shape or type, or an action that is not
                legal in some live game (the message names the first such game, the
                action and its text); no game is changed.  Also an ``out`` that is not a
                :class:`Batch` of writeable C-contiguous arrays with the shapes and dtypes of
                :func:`empty_batch`.
            RuntimeError: before :meth:`reset`.
        """
        out = self._check_out(out)
        self._check_started()
        actions = self._check_actions(actions)
        bad = self._illegal_game(actions)
        if bad >= 0:
            a = int(actions[bad])
            text = self.action_to_string(a) if 0 <= a < self.num_actions else "out of range"
            raise ValueError(
                f"action {a} ({text}) is not legal in game {bad} for player {self._acting_seat(bad)}: "
                f"actions must be legal ids of that game's action_mask; no game was changed"
            )
        self._step_games(actions, out)
        return out

    def step_random(self, out: Batch | None = None) -> Batch:
        """One step of uniformly random legal actions, drawn inside the engine from each
        game's action stream (the same autoreset as :meth:`step`).

        Args:
            out: caller-owned output arrays, as in :meth:`reset`.

        Raises:
            ValueError: ``out`` is not a :class:`Batch` of writeable C-contiguous arrays with the
                shapes and dtypes of :func:`empty_batch`.
            RuntimeError: before :meth:`reset`.
        """
        out = self._check_out(out)
        self._check_started()
        self._step_random_games(out)
        return out

    def step_opponents(self, seats: Any, out: Batch | None = None) -> Batch:
        """Let random opponents move, inside the engine, until ``seats[i]`` is to act.

        In every live game where another seat is to act, uniformly random legal
        actions (from the game's action stream) are played until ``seats[i]`` is to act
        or the episode ends; those games' rows are then rewritten from ``seats[i]``'s
        view (``current_player[i] == seats[i]``, also when the episode ended), with
        the opponents' rewards added to the row's rewards.  Other rows are left as
        they are.  ``step(actions)`` then ``step_opponents(seats)`` is one decision of
        a learner in ``seats[i]`` against random players (the ``VectorEnv`` view,
        ``rummy_env.envs.vector_view``).

        Args:
            seats: int array ``(num_envs,)`` of seats 0..num_players-1.
            out: the :class:`Batch` the last call wrote (None: the engine's buffers).

        Raises:
            ValueError: bad ``seats``, or an ``out`` that is not a :class:`Batch` of writeable
                C-contiguous arrays with the shapes and dtypes of :func:`empty_batch`.
            RuntimeError: before :meth:`reset`.
        """
        out = self._check_out(out)
        self._check_started()
        arr = check_int_entries("seats", seats, f"seats are 0..{self.num_players - 1}, one per game")
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"seats must be an int array of shape ({self.num_envs},), got {arr.dtype} {arr.shape}")
        if ((arr < 0) | (arr >= self.num_players)).any():
            raise ValueError(f"seats must be 0..{self.num_players - 1}, got {sorted(set(arr.tolist()))}")
        self._step_opponents_games(np.ascontiguousarray(arr, dtype=np.int64), out)
        return out

    def deal_of(self, i: int) -> dict:
        """The reset options of game ``i``'s current hand as ``env()`` takes them:
        ``{"deck": [52 card strings, top first], "dealer": k}``, plus Crazy Rummy's
        ``"wild_rank": r`` (1..13); with the same actions,
        ``env.reset(options=vec.deal_of(i))`` replays the game.  After the step that
        ends an episode it is still that episode's hand.

        Raises:
            ValueError: ``i`` is not a game index.
            RuntimeError: before :meth:`reset`.
        """
        i = check_int_arg("game index", i, 0, self.num_envs - 1)
        self._check_started()
        deal = {"deck": [card_str(int(c)) for c in self._decks[i]], "dealer": int(self._dealers[i])}
        return {**deal, **self._deal_extras(i)}

    def decks(self) -> np.ndarray:
        """Every game's current deck, top first (a copy): int8 ``(num_envs, deck_size)``, card ids
        0..51 (``deck_size`` 52) or, in the Rummikub engines, tile types 0..52 (106, first drawn
        first)."""
        return self._decks.copy()

    def dealers(self) -> np.ndarray:
        """Every game's current dealer: int8 ``(num_envs,)`` (a copy); in the Rummikub engines
        the hand's first player (R-RK-02)."""
        return self._dealers.copy()

    # --------------------------------------------------------------- checks
    def _check_started(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step(), step_random() or deal_of()")

    def _check_out(self, out: Batch | None) -> Batch:
        if out is None:
            return self._buffer
        if not isinstance(out, Batch):
            raise ValueError(f"out={type(out).__name__} is not a Batch: pass vector.empty_batch(...) or None")
        want = self._buffer
        for name, have, like in zip(Batch._fields, out, want, strict=True):
            if (
                not isinstance(have, np.ndarray)
                or have.shape != like.shape
                or have.dtype != like.dtype
                or not have.flags.c_contiguous
                or not have.flags.writeable
            ):
                if isinstance(have, np.ndarray) and have.shape == like.shape and have.dtype == like.dtype:
                    why = "it is read-only" if not have.flags.writeable else "it is not C-contiguous"
                else:
                    why = f"got {getattr(have, 'dtype', type(have).__name__)} {getattr(have, 'shape', '')}"
                raise ValueError(
                    f"out.{name} must be a writeable C-contiguous {like.dtype} array of shape {like.shape}: {why}"
                )
        return out

    def _check_actions(self, actions: Any) -> np.ndarray:
        allowed = f"action ids are integers 0..{self.num_actions - 1}"
        arr = check_int_entries("actions", actions, allowed)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions of shape {arr.shape}: pass one action id per game, shape ({self.num_envs},)")
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"actions of dtype {arr.dtype}: {allowed}")
        if arr.dtype == np.uint64 and (arr > np.iinfo(np.int64).max).any():  # would wrap to negative ids
            big = int(arr[arr > np.iinfo(np.int64).max][0])
            raise ValueError(f"action {big} is out of range: {allowed}")
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _check_decks(self, decks: Any) -> np.ndarray:
        n = self.num_envs
        decks = string_rows(decks)
        if isinstance(decks, np.ndarray) and np.issubdtype(decks.dtype, np.integer):
            if decks.shape != (n, NUM_CARDS):
                raise ValueError(f"decks of shape {decks.shape}: pass ({n}, 52) card ids, top card first")
            bad = np.flatnonzero((np.sort(decks, axis=1) != np.arange(NUM_CARDS)).any(axis=1))
            if bad.size:
                g = int(bad[0])
                faults = deck_faults(decks[g], NUM_CARDS, 1, "card id")
                raise ValueError(f"deck of game {g} is not a deck: it must hold each card id 0..51 once ({faults})")
            return decks.astype(np.int8)
        if not isinstance(decks, (list, tuple)) or len(decks) != n:
            raise ValueError(f"decks must be an int array ({n}, 52) or {n} lists of 52 card strings")
        out = np.zeros((n, NUM_CARDS), np.int8)
        for i, deck in enumerate(decks):
            try:
                out[i] = parse_deck(deck)
            except ValueError as err:
                raise ValueError(f"deck of game {i}: {err}") from None
        return out

    def _check_dealers(self, dealers: Any) -> np.ndarray:
        arr = check_int_entries("dealers", dealers, f"dealers are 0..{self.num_players - 1}, one per game")
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"dealers must be an int array of shape ({self.num_envs},), got {arr.dtype} {arr.shape}")
        bad = np.flatnonzero((arr < 0) | (arr >= self.num_players))
        if bad.size:
            raise ValueError(
                f"dealer {int(arr[bad[0]])} of game {int(bad[0])} is not a seat: dealers are 0..{self.num_players - 1}"
            )
        return arr.astype(np.int8)

    # ------------------------------------------------------------ simulator
    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        """Deal every game: ``decks[i]`` if ``given[i]`` else a shuffle from the deal
        stream; ``dealers[i]`` if >= 0 else drawn; record the deal; write ``out``."""
        raise NotImplementedError

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        """Apply checked ``actions`` (games in ``_done`` deal instead); write ``out``."""
        raise NotImplementedError

    def _step_random_games(self, out: Batch) -> None:
        raise NotImplementedError

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        raise NotImplementedError

    def _illegal_game(self, actions: np.ndarray) -> int:
        """Index of the first live game whose action is not legal, or -1."""
        raise NotImplementedError

    def _acting_seat(self, i: int) -> int:
        """The seat to act in game ``i``, from the engine's state (not from a ``Batch``: the
        caller's ``out=`` arrays may be another buffer)."""
        raise NotImplementedError

    def _deal_extras(self, i: int) -> dict:
        """Reset options of game ``i``'s hand besides its deck and dealer (a variant's)."""
        return {}

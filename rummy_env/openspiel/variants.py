"""The four variants as OpenSpiel games see them: engine, deal order, hidden draws,
observation encoding and the bounds of ``GameInfo``.

A :class:`Variant` says, for one rules engine, what the generic OpenSpiel state of
``rummy_env.openspiel.core.Core`` needs: the chance steps before the cards of a hand (the
dealer, Crazy Rummy's wild rank, Rummikub's first player), who receives the ``i``-th card
of the deal, how the engine is built from a dealt deck, which decisions draw a card from
the stock (or a tile from the pool), and the observation layout of ``env()``.  Nothing
here changes the rules: the engines play, this module only describes them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.core.tiles import FULL_POOL_COUNTS, NUM_TILE_TYPES, POOL_SIZE, tile_str
from rummy_env.encoding import crazy_rummy as crazy_encoding
from rummy_env.encoding import gin_rummy as gin_encoding
from rummy_env.encoding import rummikub as rummikub_encoding
from rummy_env.encoding import rummy as rummy_encoding
from rummy_env.encoding.layout import Layout
from rummy_env.games.crazy_rummy import actions as crazy_actions
from rummy_env.games.crazy_rummy.config import NUM_ROUNDS, CrazyRummyConfig
from rummy_env.games.crazy_rummy.deal import HAND_SIZE as CRAZY_HAND_SIZE
from rummy_env.games.crazy_rummy.state import CrazyRummyGame
from rummy_env.games.gin_rummy import actions as gin_actions
from rummy_env.games.gin_rummy.config import GinRummyConfig
from rummy_env.games.gin_rummy.deal import HAND_SIZE as GIN_HAND_SIZE
from rummy_env.games.gin_rummy.state import OFFER, GinRummyGame
from rummy_env.games.rummikub import actions as rummikub_actions
from rummy_env.games.rummikub.config import RummikubConfig
from rummy_env.games.rummikub.deal import RACK_SIZE
from rummy_env.games.rummikub.state import RummikubGame
from rummy_env.games.rummy import actions as rummy_actions
from rummy_env.games.rummy.config import RummyConfig
from rummy_env.games.rummy.state import RummyGame

#: The cap of ``max_game_length`` and of ``max_chance_nodes_in_history`` (e.g. ``max_turns``
#: of 10**9): OpenSpiel adds the two in an int32 (``max_history_length``, ``max_move_number``).
UNBOUNDED_LENGTH = 2**30 - 1
#: ``min_utility`` / ``max_utility`` magnitude when the options bound no total (Gin's box
#: bonuses with a zero hand bonus, see ``encoding.gin_rummy.max_total``).
UNBOUNDED_UTILITY = 1e9

DEALER, WILD_RANK, FIRST_PLAYER = "dealer", "wild rank", "first player"  # setup chance steps


class Variant:
    """One variant's description (see the module docstring); subclasses fill it in.

    Attributes:
        key: the short name's tail (``python_rummy_env_<key>``).
        long_name: OpenSpiel's ``long_name``.
        engine_game: the engine's game class.  config_class: its options dataclass.
        actions: the actions module (``action_to_string``, ``NUM_ACTIONS``).
        min_players, max_players: the player counts the rules allow.
        tiles: Rummikub (tile types with two copies) rather than cards.
    """

    key = ""
    long_name = ""
    engine_game: Any = None
    config_class: Any = None
    actions: Any = None
    min_players = max_players = 2
    tiles = False

    # ------------------------------------------------------------- options
    def defaults(self) -> dict[str, Any]:
        """The OpenSpiel parameter specification: every engine option with its default."""
        return {f.name: f.default for f in dataclasses.fields(self.config_class)}

    def config(self, params: dict[str, Any]) -> Any:
        """The engine's config for OpenSpiel parameters (unknown names refused).

        Raises:
            ValueError: an unknown parameter or a bad value (the config's message).
        """
        unknown = sorted(set(params) - set(self.defaults()))
        if unknown:
            raise ValueError(
                f"unknown python_rummy_env_{self.key} parameter(s) {', '.join(map(repr, unknown))}: "
                f"known parameters are {', '.join(self.defaults())}"
            )
        return self.config_class(**params)

    # ---------------------------------------------------------------- deal
    @property
    def num_outcomes(self) -> int:
        """Distinct chance outcomes of a card (52) or a tile type (53)."""
        return NUM_TILE_TYPES if self.tiles else NUM_CARDS

    def setup_steps(self, cfg: Any, first_hand: bool) -> list[tuple[str, int]]:
        """The chance steps (name, number of equally likely outcomes) before a hand's cards."""
        return [(DEALER, cfg.num_players)] if first_hand else []

    def deal_size(self, cfg: Any) -> int:
        """Chance outcomes of a deal: the hands' cards, then the upcard if there is one."""
        raise NotImplementedError

    def recipient(self, i: int, lead: int, cfg: Any) -> int:
        """Seat that receives the ``i``-th card of the deal led by ``lead`` (the dealer or
        Rummikub's first player), or -1 for the face-up upcard."""
        raise NotImplementedError

    def lead(self, engine: Any) -> int:
        """The seat a deal is led from in an engine state (its dealer)."""
        return engine.dealer

    def full_deck(self, dealt: list[int]) -> list[int]:
        """``dealt`` (card ids or tile types, first dealt first) completed into a deck:
        the rest follows in ascending order, a placeholder for the stock's unknown order."""
        if self.tiles:
            left = FULL_POOL_COUNTS - np.bincount(dealt, minlength=NUM_TILE_TYPES)
            return dealt + np.repeat(np.arange(NUM_TILE_TYPES), left).tolist()
        seen = set(dealt)
        return dealt + [c for c in range(NUM_CARDS) if c not in seen]

    def new_engine(self, games: dict, cfg: Any, setup: dict[str, int], deck: list[int]) -> Any:
        """The engine's state of the first hand, dealt from ``deck``."""
        game = games[None]
        return game.new_initial_state(rng=np.random.default_rng(0), deck=deck, dealer=setup[DEALER])

    def redeal(self, engine: Any, setup: dict[str, int], deck: list[int]) -> None:
        """Deal a later hand of ``episode="game"`` again from ``deck``, replacing the deal the
        engine just made from its own generator (the hand's dealer kept)."""
        engine._deal(deck, engine.dealer)

    # ---------------------------------------------------------------- play
    def pile(self, engine: Any) -> list[int]:
        """The engine's stock (or pool): a list whose *last* item is drawn next."""
        return engine.stock

    def draw_receiver(self, engine: Any, action: int) -> int:
        """Seat that draws the top of the pile if ``action`` is applied, or -1."""
        return engine.current if action == self.actions.DRAW_STOCK and engine.stock else -1

    def holdings(self, engine: Any, seat: int) -> Any:
        """What a seat holds: a card bitmask, or a tile count vector."""
        return engine.hands[seat]

    def outcome_text(self, outcome: int) -> str:
        """Text of a chance outcome: a card (``"7H"``) or a tile (``"R13"``, ``"JK"``).

        Raises:
            ValueError: not a card id 0..51 or a tile type 0..52.
        """
        return tile_str(outcome) if self.tiles else card_str(outcome)

    # ----------------------------------------------------------- encoding
    def layout(self, cfg: Any) -> Layout:
        """The observation layout of ``env()`` with these options."""
        raise NotImplementedError

    def encode(self, view: Any, layout: Layout) -> np.ndarray:
        """The float32 ``(layout.size,)`` observation of an engine view, as ``env()`` makes it."""
        raise NotImplementedError

    # -------------------------------------------------------------- bounds
    def utility_range(self, cfg: Any) -> tuple[float, float]:
        """(min_utility, max_utility): the least and most any player's return can be."""
        raise NotImplementedError

    def max_game_length(self, cfg: Any) -> int:
        """Most decisions (not chance outcomes) of an episode, or :data:`UNBOUNDED_LENGTH`."""
        raise NotImplementedError

    def max_chance_nodes(self, cfg: Any) -> int:
        """Most chance nodes of an episode, capped at :data:`UNBOUNDED_LENGTH`: each hand's
        setup steps and deal, and at most one draw per decision (a draw follows the decision
        to draw, or Gin's second pass of the upcard, R-GIN-03)."""
        hands = 1 if cfg.episode == "hand" else cfg.max_hands
        setup = max(len(self.setup_steps(cfg, True)), len(self.setup_steps(cfg, False)))
        return min(UNBOUNDED_LENGTH, hands * (setup + self.deal_size(cfg)) + self.max_game_length(cfg))


def _win_range(n: int, shared: bool) -> tuple[float, float]:
    # reward="win": +1 for the winner, -1/(n-1) for the others; a shared win (Crazy
    # Rummy, Rummikub) can leave one loser with -1
    return (-1.0 if shared else -1.0 / (n - 1), 1.0)


class Rummy(Variant):
    """Basic Rummy (``docs/rules/rummy.md``)."""

    key = "rummy"
    long_name = "Rummy (rummy_env)"
    engine_game, config_class, actions = RummyGame, RummyConfig, rummy_actions
    min_players, max_players = 2, 6

    def deal_size(self, cfg):
        return cfg.num_players * cfg.hand_size + 1  # R-RUMMY-03: the hands, then the upcard

    def recipient(self, i, lead, cfg):
        n = cfg.num_players
        return (lead + 1 + i) % n if i < n * cfg.hand_size else -1

    def layout(self, cfg):
        return rummy_encoding.layout_of(cfg)

    def encode(self, view, layout):
        return rummy_encoding.encode(view, layout)

    def utility_range(self, cfg):
        n = cfg.num_players
        if cfg.reward == "win":
            return _win_range(n, shared=False)
        hand = float(rummy_encoding.MAX_HAND_POINTS)  # every card, doubled by going rummy (R-RUMMY-16)
        if cfg.episode == "hand":
            return -hand, hand
        # a scored hand adds >= 1 point to its winner's total, so a game has at most
        # n * (target - 1) + 1 of them (R-RUMMY-17); a hand without a winner scores 0
        hands = n * (cfg.target_score - 1) + 1
        return -hands * hand, cfg.target_score - 1 + hand

    def max_game_length(self, cfg):
        # a turn: one draw, melds and lay-offs (each takes a card), one discard (R-RUMMY-06..11)
        per_hand = cfg.max_turns * (cfg.hand_size + 3)
        if cfg.episode == "hand":
            return per_hand
        # hands that reach max_turns have no winner and the game goes on (R-RUMMY-13): only
        # max_hands bounds the number of hands
        return min(UNBOUNDED_LENGTH, cfg.max_hands * per_hand)


class GinRummy(Variant):
    """Gin Rummy (``docs/rules/gin_rummy.md``)."""

    key = "gin_rummy"
    long_name = "Gin Rummy (rummy_env)"
    engine_game, config_class, actions = GinRummyGame, GinRummyConfig, gin_actions

    def defaults(self):
        return {"num_players": 2, **super().defaults()}  # OpenSpiel asks every game for num_players

    def config(self, params):
        params = dict(params)
        n = params.pop("num_players", 2)
        if n != 2:
            raise ValueError(f"parameter num_players={n!r} is not allowed: Gin Rummy has exactly 2 players")
        return super().config(params)

    def setup_steps(self, cfg, first_hand):
        return [(DEALER, 2)] if first_hand else []

    def deal_size(self, cfg):
        return 2 * GIN_HAND_SIZE + 1  # R-GIN-02: ten cards each, non-dealer first, then the upcard

    def recipient(self, i, lead, cfg):
        return (lead + 1 + i) % 2 if i < 2 * GIN_HAND_SIZE else -1

    def draw_receiver(self, engine, action):
        if action == gin_actions.DRAW_STOCK:
            return engine.current
        if action == gin_actions.PASS and engine.phase == OFFER and engine.passes == 1:
            return 1 - engine.dealer  # R-GIN-03: both passed, the non-dealer draws from the stock
        return -1

    def layout(self, cfg):
        return gin_encoding.layout_of(cfg)

    def encode(self, view, layout):
        return gin_encoding.encode(view)

    def utility_range(self, cfg):
        if cfg.reward == "win":
            return -1.0, 1.0
        bound = min(gin_encoding.max_total(cfg), UNBOUNDED_UTILITY)  # a return is one total minus the other
        return -bound, bound

    def max_game_length(self, cfg):
        per_hand = 2 + 2 * cfg.max_turns  # the upcard offer's passes, then a draw and a discard a turn
        # dead hands score nothing and are dealt again (R-GIN-09): only max_hands bounds a game
        return per_hand if cfg.episode == "hand" else min(UNBOUNDED_LENGTH, cfg.max_hands * per_hand)


class CrazyRummy(Variant):
    """Crazy Rummy (``docs/rules/crazy_rummy.md``); ``wild_rank=0`` (the default) draws the
    one round's wild rank at a chance node, as the engine's ``wild_rank=None`` does."""

    key = "crazy_rummy"
    long_name = "Crazy Rummy (rummy_env)"
    engine_game, config_class, actions = CrazyRummyGame, CrazyRummyConfig, crazy_actions
    min_players, max_players = 3, 6

    def defaults(self):
        return {**super().defaults(), "wild_rank": 0}  # OpenSpiel parameters have no None

    def config(self, params):
        params = dict(params)
        rank = params.get("wild_rank")
        if rank == 0:
            params["wild_rank"] = None
        elif isinstance(rank, int) and not isinstance(rank, bool) and not 1 <= rank <= NUM_ROUNDS:
            # the engine would say 1..13: here 0 is allowed too
            raise ValueError(
                f"option wild_rank={rank} is out of range: wild_rank must be an int from 1 to {NUM_ROUNDS} "
                "(or 0: drawn by chance, the default of the OpenSpiel game)"
            )
        return super().config(params)

    def setup_steps(self, cfg, first_hand):
        steps = super().setup_steps(cfg, first_hand)
        if first_hand and cfg.episode == "hand" and cfg.wild_rank is None:
            steps.append((WILD_RANK, NUM_ROUNDS))  # outcome r: rank r + 1 (R-CRAZY-02)
        return steps

    def deal_size(self, cfg):
        return CRAZY_HAND_SIZE * cfg.num_players + 1  # R-CRAZY-03: seven each, an eighth to the left

    def recipient(self, i, lead, cfg):
        n = cfg.num_players
        return (lead + 1 + i) % n if i < CRAZY_HAND_SIZE * n else (lead + 1) % n

    def new_engine(self, games, cfg, setup, deck):
        rank = setup[WILD_RANK] + 1 if WILD_RANK in setup else None
        game = games.get(rank)
        if game is None:
            game = games[rank] = CrazyRummyGame(dataclasses.replace(cfg, wild_rank=rank))
        return game.new_initial_state(rng=np.random.default_rng(0), deck=deck, dealer=setup[DEALER])

    def redeal(self, engine, setup, deck):
        engine._deal(deck, engine.dealer, engine.round)

    def layout(self, cfg):
        return crazy_encoding.layout_of(cfg)

    def encode(self, view, layout):
        return crazy_encoding.encode(view, layout)

    def utility_range(self, cfg):
        if cfg.reward == "win":
            return _win_range(cfg.num_players, shared=True)
        rounds = 1 if cfg.episode == "hand" else NUM_ROUNDS
        bound = float(rounds * crazy_encoding.MAX_ROUND_PENALTY)  # mean penalty minus one's own, per round
        return -bound, bound

    def max_game_length(self, cfg):
        # a turn: a draw, then melds, lay-offs and swaps, each lowering 2 * (cards in hand)
        # + (wild cards on the table) <= 2 * 9 + 4, then a discard (R-CRAZY-06..10)
        per_round = cfg.max_turns * (2 + 2 * (CRAZY_HAND_SIZE + 2) + 4)
        return per_round * (1 if cfg.episode == "hand" else cfg.max_hands)  # max_hands <= 13 rounds


class Rummikub(Variant):
    """Rummikub (``docs/rules/rummikub.md``); chance outcomes are tile types, each as likely
    as its count among the tiles not yet seen."""

    key = "rummikub"
    long_name = "Rummikub (rummy_env)"
    engine_game, config_class, actions = RummikubGame, RummikubConfig, rummikub_actions
    min_players, max_players = 2, 4
    tiles = True

    def setup_steps(self, cfg, first_hand):
        # every hand of a game (R-RK-12) draws its first player again (R-RK-02)
        return [(FIRST_PLAYER, cfg.num_players)]

    def deal_size(self, cfg):
        return RACK_SIZE * cfg.num_players  # R-RK-02: 14 tiles each, one at a time from the first player

    def recipient(self, i, lead, cfg):
        return (lead + i) % cfg.num_players

    def lead(self, engine):
        return engine.first_player

    def new_engine(self, games, cfg, setup, deck):
        return games[None].new_initial_state(rng=np.random.default_rng(0), deck=deck, first_player=setup[FIRST_PLAYER])

    def redeal(self, engine, setup, deck):
        engine._deal(deck, setup[FIRST_PLAYER])

    def pile(self, engine):
        return engine.pool

    def draw_receiver(self, engine, action):
        return engine.current if action == rummikub_actions.DRAW and engine.pool else -1

    def holdings(self, engine, seat):
        return engine.racks[seat]

    def layout(self, cfg):
        return rummikub_encoding.layout_of(cfg)

    def encode(self, view, layout):
        return rummikub_encoding.encode(view, layout)

    def utility_range(self, cfg):
        n = cfg.num_players
        if cfg.reward == "win":
            return _win_range(n, shared=True)
        hand = float(rummikub_encoding.ALL_TILES_VALUE)  # every tile on the racks (R-RK-10)
        if cfg.episode == "hand":
            return -hand, hand
        # the totals sum to zero and are all below the target before the last hand (R-RK-12)
        return -((n - 1) * (cfg.target_score - 1) + hand), cfg.target_score - 1 + hand

    def max_game_length(self, cfg):
        # a turn ends with one commit or draw; every tile added is committed, at most all 106
        per_hand = cfg.max_turns + POOL_SIZE
        # hands where every rack ties, or that reach max_turns, score nothing (R-RK-11, 13):
        # only max_hands bounds a game
        return per_hand if cfg.episode == "hand" else min(UNBOUNDED_LENGTH, cfg.max_hands * per_hand)


VARIANTS: dict[str, Variant] = {v.key: v for v in (Rummy(), GinRummy(), CrazyRummy(), Rummikub())}

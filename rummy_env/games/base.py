"""The bookkeeping every rules engine shares: OpenSpiel's state API around a variant's
own rules.

A variant's state subclasses :class:`EngineState` and provides ``_compute_legal()`` (the
acting player's legal action ids, sorted) and ``_apply(action)`` (the move, already
checked), plus the class attributes ``num_actions`` and ``action_to_string``.  This class
keeps the acting player, the terminal flag, per-step rewards and episode returns, the
history of actions and the cache of legal actions, and checks every action before it
touches the state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rummy_env.games.deal import NextHand, check_next_hands, parse_next_card_deck
from rummy_env.games.errors import IllegalActionError, to_action_id
from rummy_env.games.options import check_seat

TERMINAL = -4  #: ``current_player()`` of a finished episode (OpenSpiel's kTerminalPlayerId)


class EngineGame:
    """Base of the variants' games: options (a validated config) plus a state factory.

    Subclasses set ``config_class`` and ``num_actions`` and write ``new_initial_state``.

    Args:
        config: an instance of ``config_class``; or pass its fields as keyword arguments.

    Raises:
        TypeError: ``config`` is not a ``config_class``.
        ValueError: both a config and options, or a bad option (see the config class).
    """

    config_class: type = type(None)
    num_actions: int = 0

    def __init__(self, config: Any = None, **options: Any):
        if config is not None and options:
            raise ValueError(f"pass either a {self.config_class.__name__} or keyword options, not both")
        if config is not None and not isinstance(config, self.config_class):
            raise TypeError(
                f"config must be a {self.config_class.__name__}, got {type(config).__name__}: "
                f"pass a {self.config_class.__name__}(...) or its fields as keyword options"
            )
        self.config = config if config is not None else self.config_class(**options)

    @property
    def num_players(self) -> int:
        """Seats of the games this game makes (its config's ``num_players``)."""
        return self.config.num_players

    def num_distinct_actions(self) -> int:
        """Size of the action id space."""
        return self.num_actions

    #: keys of one later hand's deal in ``next_hands`` (the first hand's stacking less the dealer)
    next_hand_keys: tuple[str, ...] = ("deck",)

    def max_game_hands(self) -> int:
        """The most hands one episode deals: ``max_hands`` with ``episode="game"``, else 1."""
        return self.config.max_hands if self.config.episode == "game" else 1

    def parse_next_hands(self, deals: Any, dealt: int = 1) -> list[NextHand]:
        """The stacked deals of later hands (reset option ``next_hands``), checked.

        Args:
            deals: a list of dicts, one per later hand in the order they are dealt, each
                with exactly the keys :attr:`next_hand_keys` (card variants: ``{"deck":
                [52 card strings, top first]}``; Rummikub also ``"first_player"``).
            dealt: hands already dealt or stacked in this episode (1 at a reset).

        Returns:
            one :data:`~rummy_env.games.deal.NextHand` per deal: (deck ids, first player
            or -1 where the rules name the dealer).

        Raises:
            ValueError: not a list of such dicts, a bad deck or seat (the message names the
                entry), deals in a one-hand episode, or more deals than the episode can
                still deal (:meth:`max_game_hands`).
        """
        return check_next_hands(
            deals,
            self.next_hand_keys,
            self._parse_next_hand,
            self.max_game_hands() - dealt,
            self.config.episode,
            self.max_game_hands(),
        )

    def _parse_next_hand(self, deal: dict) -> NextHand:
        """One checked later-hand deal (the card variants': a 52-card deck)."""
        return parse_next_card_deck(deal)


class EngineState:
    """Base of the variants' states (see the module docstring).

    Attributes:
        history: action ids applied in this episode.
        truncated: whether the episode ended by reaching ``max_turns``.
        current: seat of the acting player (meaningless once terminal).
        next_hands: the stacked deals of the coming hands of a game, dealt first to last
            (:meth:`stack_next_hands`): (deck ids, first player or -1) tuples.
    """

    num_actions: int = 0
    action_to_string: Callable[[int], str] = staticmethod(str)

    def _init_bookkeeping(self, num_players: int) -> None:
        self._n = num_players
        self._returns = [0.0] * num_players
        self._rewards = [0.0] * num_players
        self._terminal = False
        self.truncated = False
        self.history: list[int] = []
        self._legal: list[int] | None = None  # legal actions of the acting player, until the next move
        self.current = 0
        self.next_hands: list[NextHand] = []  # stacked deals of the coming hands, dealt first to last

    @property
    def num_players(self) -> int:
        """Seats of this game."""
        return self._n

    def _seat(self, player: Any) -> int:
        """``player`` as a seat for :meth:`observation`; the env's plain ints in range pass
        at once (the observation is on the step's hot path), anything else gets the full check.

        Raises:
            ValueError: ``player`` is not an int seat ``0..num_players-1``.
        """
        if type(player) is int and 0 <= player < self._n:
            return player
        return check_seat("player", player, self._n)

    def current_player(self) -> int:
        """Seat of the player to act, or :data:`TERMINAL`."""
        return TERMINAL if self._terminal else self.current

    def is_terminal(self) -> bool:
        """Whether the episode (a hand, or a whole game with ``episode="game"``) is over."""
        return self._terminal

    def returns(self) -> list[float]:
        """Sum of the rewards of this episode, per seat."""
        return list(self._returns)

    def rewards(self) -> list[float]:
        """Rewards of the last applied action, per seat."""
        return list(self._rewards)

    def _give(self, player: int, reward: float) -> None:
        self._rewards[player] += reward
        self._returns[player] += reward

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal action ids of ``player`` (default: the acting one); [] if not acting.

        Raises:
            ValueError: ``player`` is neither None nor an int seat ``0..num_players-1``.
        """
        if player is not None and self._seat(player) != self.current or self._terminal:
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _action_text(self, action: int) -> str:
        """Text of an action id in this state (variants may name an id by context)."""
        return type(self).action_to_string(action)

    def check_action(self, action: Any) -> int:
        """``action`` as an int id if the acting player may play it now; the state is not
        touched (callers that must refuse a move before they record it, e.g. the OpenSpiel
        games, ask first).

        Raises:
            IllegalActionError: (a ``ValueError``) the id is out of range or not legal now;
                the message names the action and the legal ones.
            ActionTypeError: (a ``TypeError`` and ``ValueError``) not an integer.
        """
        if type(action) is not int or not 0 <= action < self.num_actions:
            action = to_action_id(action, self.num_actions)
        if self._terminal:
            raise IllegalActionError(f"action {action} ({self._action_text(action)}): the episode is over")
        if not self._is_legal(action):
            legal = ", ".join(self._action_text(a) for a in self.legal_actions())
            raise IllegalActionError(
                f"action {action} ({self._action_text(action)}) is not legal for player {self.current} now; "
                f"legal: {legal}"
            )
        return action

    def _is_legal(self, action: int) -> bool:
        """Whether the acting player may play the in-range id ``action`` (the episode is not over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

    def apply_action(self, action: int) -> None:
        """Apply the acting player's action.

        Raises:
            IllegalActionError: (a ``ValueError``) the id is out of range or not legal now;
                the message names the action and the legal ones.  The state is unchanged.
            ActionTypeError: (a ``TypeError`` and ``ValueError``) not an integer.
        """
        action = self.check_action(action)
        self._rewards = [0.0] * self._n
        self.history.append(action)
        self._apply(action)

    def stack_next_hands(self, deals: Any) -> None:
        """Stack the deals of the coming hands of this ``episode="game"`` game, after any
        already stacked: the next hand is dealt from the first one still stacked, and the
        engine's generator deals only once none is left (it is not drawn for a stacked
        hand).  ``reset(options={"next_hands": deals})`` of every env is this call on the
        new state; a replay tool (``vector.reference``) calls it mid-game.  They are
        hidden information: ``observation`` never shows them and ``resample`` drops them.

        Args:
            deals: as :meth:`EngineGame.parse_next_hands`.

        Raises:
            ValueError: a bad deal (see :meth:`EngineGame.parse_next_hands`), or deals for
                an episode that is over; the state is unchanged.
        """
        dealt = self.hands_played + len(self.next_hands) + (0 if self._terminal else 1)
        parsed = self.game.parse_next_hands(deals, dealt)
        if parsed and self._terminal:
            raise ValueError("next_hands: the episode is over, no hand will be dealt")
        self.next_hands.extend(parsed)

    def _pop_next_hand(self) -> NextHand | None:
        """The first stacked deal, removed from ``next_hands``; None when none is left
        (the engine's generator deals)."""
        return self.next_hands.pop(0) if self.next_hands else None

    _resample_world: Callable[[Any, int, Any], Any]  #: the variant's sampler in rummy_env.games.resample

    def resample(self, player: int, rng: Any) -> Any:
        """A new state that ``player`` cannot tell from this one, drawn uniformly from all
        such states: what the player knows stays (its own hand or rack, the table, the
        discard pile, cards others are known to hold, hand sizes, the public history,
        scores), everything else is dealt again (OpenSpiel's ``resample_from_infostate``;
        the variant's reading is in ``rummy_env.games.resample``).  This state is unchanged.

        Args:
            player: the seat whose information is kept.
            rng: a ``numpy.random.Generator``: the deal, and the seed of the new state's
                own generator (later hands of an ``episode="game"`` game).

        Raises:
            ValueError: ``player`` is not a seat.
            TypeError: ``rng`` is not a Generator.
        """
        return type(self)._resample_world(self, player, rng)

    def clone(self) -> Any:
        """An independent copy: the variant's containers (``_clone_into``), the episode's
        bookkeeping (stacked ``next_hands`` included), and the generator when later hands
        of a game will use it (one hand needs no randomness after its deal, so a clone may
        share it)."""
        other = copy.copy(self)
        other._returns = list(self._returns)
        other._rewards = list(self._rewards)
        other.history = list(self.history)
        other.hand_decks = list(self.hand_decks)
        other.scores = list(self.scores)
        other.next_hands = list(self.next_hands)  # its entries are tuples
        if self.config.episode == "game":
            other.rng = copy.deepcopy(self.rng)
        self._clone_into(other)
        return other

    def _clone_into(self, other: Any) -> None:
        """Copy the variant's own mutable containers into ``other`` (a shallow copy)."""
        raise NotImplementedError

    def _compute_legal(self) -> list[int]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        raise NotImplementedError

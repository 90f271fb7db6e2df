"""The check of a player id that the OpenSpiel states and observers take, and the state
methods that take one.

pyspiel's binding of a ``State`` method converts a player with anything that has
``__int__`` or ``__index__`` (``True`` is player 1) and refuses the rest (a float, a
string, an int past int32) with a ``TypeError`` whose message prints the whole state,
hidden cards included; an int outside the seats reaches a C++ check whose ``SpielError``
names a source line (``python_games.cc:321 player < NumPlayers()``).  The methods here
refuse a bad player first, with an error naming the value and the players allowed, of a
type that both the project's ``except ValueError`` and OpenSpiel's own types catch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel


class PlayerTypeError(TypeError, ValueError):
    """A player that is not an integer: a ``TypeError`` (what pyspiel's binding raises
    for it) and a ``ValueError`` (what the project raises for bad input)."""


class PlayerIdError(ValueError, pyspiel.SpielError):
    """An integer player that is not one of the game's: a ``ValueError`` (the project's)
    and a ``pyspiel.SpielError`` (what OpenSpiel's C++ games raise for it)."""


def check_player(player: Any, num_players: int, chance: bool = False) -> int:
    """``player`` as a Python int, a seat ``0..num_players-1`` (or -1, the chance player,
    when ``chance``).

    Raises:
        PlayerTypeError: not an int or a NumPy integer (a bool, float, string...).
        PlayerIdError: an integer outside those players.
    """
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise PlayerTypeError(f"player {player!r} has type {type(player).__name__}: players are integer seats")
    if chance and not -1 <= player < num_players:
        raise PlayerIdError(f"player {player} is neither a seat 0..{num_players - 1} nor -1 (chance)")
    if not chance and not 0 <= player < num_players:
        raise PlayerIdError(f"player {player} is not a seat: players are 0..{num_players - 1}")
    return int(player)


class PlayerMethods:
    """The ``pyspiel.State`` methods that take a player, checked (a mixin placed before
    ``pyspiel.State``).  Called without a player, the observation methods take the acting
    one, as OpenSpiel's do; at a chance node or a terminal state there is none.

    Raises (each method):
        TypeError: more than one argument.
        PlayerTypeError: a player that is not an integer.
        PlayerIdError: a player that is not a seat (``legal_actions`` and
            ``legal_actions_mask``: neither a seat nor -1, the chance player), or no
            player given at a chance node or a terminal state.
    """

    def _player(self, method: str, args: tuple, chance: bool = False) -> int:
        if len(args) != 1:
            raise TypeError(f"{method} takes (player) or no argument, got {len(args)} arguments")
        return check_player(args[0], self.get_game().num_players(), chance)

    def _seat(self, method: str, args: tuple) -> int:
        if args:
            return self._player(method, args)
        player = self.current_player()
        if player < 0:
            where = "a chance node" if player == pyspiel.PlayerId.CHANCE else "a terminal state"
            raise PlayerIdError(
                f"{method}() without a player is the acting player's, and at {where} no seat acts "
                f"(current_player() is {player}): give a player 0..{self.get_game().num_players() - 1}"
            )
        return player

    def observation_string(self, *player: Any) -> str:
        """``player``'s observation as text (default: the acting player)."""
        return super().observation_string(self._seat("observation_string", player))

    def observation_tensor(self, *player: Any) -> list[float]:
        """``player``'s observation, the env's encoding (default: the acting player)."""
        return super().observation_tensor(self._seat("observation_tensor", player))

    def information_state_string(self, *player: Any) -> str:
        """``player``'s perfect-recall record as text (default: the acting player)."""
        return super().information_state_string(self._seat("information_state_string", player))

    def information_state_tensor(self, *player: Any) -> list[float]:
        """``player``'s information-state tensor (default: the acting player)."""
        return super().information_state_tensor(self._seat("information_state_tensor", player))

    def player_return(self, player: Any) -> float:
        """``returns()[player]``."""
        return super().player_return(check_player(player, self.get_game().num_players()))

    def player_reward(self, player: Any) -> float:
        """``rewards()[player]``."""
        return super().player_reward(check_player(player, self.get_game().num_players()))

    # pyspiel's Python games give a seat's legal_actions(seat) at a chance node the chance
    # outcomes, and stop legal_actions(-1) at a decision with a fatal error; OpenSpiel's C++
    # games (gin_rummy) give a player who is not acting none, which these follow
    def legal_actions(self, *player: Any) -> list[int]:
        """The legal actions (default: of the acting player, or the chance outcomes at a
        chance node); of a player who is not acting (a seat at a chance node or during
        another's turn, -1 at a decision), none, as in OpenSpiel's C++ games."""
        if not player:
            return super().legal_actions()
        if self._player("legal_actions", player, chance=True) != self.current_player():
            return []
        return super().legal_actions()

    def legal_actions_mask(self, *player: Any) -> list[int]:
        """:meth:`legal_actions` as 0/1 over the action ids (``num_distinct_actions()``
        long; for -1, the chance outcomes: ``max_chance_outcomes()`` long)."""
        if not player:
            return super().legal_actions_mask()
        seat = self._player("legal_actions_mask", player, chance=True)
        if seat == self.current_player():
            return super().legal_actions_mask()
        game = self.get_game()
        return [0] * (game.max_chance_outcomes() if seat == pyspiel.PlayerId.CHANCE else game.num_distinct_actions())

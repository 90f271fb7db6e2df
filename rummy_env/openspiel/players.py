"""The check of a player id that the OpenSpiel states and observers take, and the state
methods that take one.

pyspiel's binding of a ``State`` method converts a player with anything that has
``__int__`` or ``__index__`` (``True`` is player 1, ``np.array(1.5)`` player 1) and refuses
the rest (a float, a string, an int past int32) with a ``TypeError`` whose message prints
the whole state, hidden cards included; an int outside the seats reaches a C++ check whose
``SpielError`` names a source line (``python_games.cc:321 player < NumPlayers()``).  The
methods here refuse a bad player first, with an error naming the value and the players
allowed, of a type that both the project's ``except ValueError`` and OpenSpiel's own types
catch.  They take a Python int, a NumPy integer or a 0-d integer array, as the actions do,
and are stricter than pyspiel on one point: a bool (or a 0-d array of another dtype) is
refused, not taken as a player, since a bool given as a player is most likely a mistake.
``legal_actions(p)`` and ``legal_actions_mask(p)`` take any int32 id, as OpenSpiel's C++
games do: a player who is not acting has none.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from rummy_env.games.errors import integer_id


class PlayerTypeError(TypeError, ValueError):
    """A player that is not an integer, or (``legal_actions``) one past int32: a
    ``TypeError`` (what pyspiel's binding raises for it) and a ``ValueError`` (what the
    project raises for bad input)."""


class PlayerIdError(ValueError, pyspiel.SpielError):
    """An integer player that is not one of the game's: a ``ValueError`` (the project's)
    and a ``pyspiel.SpielError`` (what OpenSpiel's C++ games raise for it)."""


def player_int(player: Any) -> int:
    """``player`` as a Python int if it is a Python int, a NumPy integer or a 0-d integer
    array (pyspiel's binding takes the array through ``__index__``).

    Raises:
        PlayerTypeError: anything else (a bool, float, string...).
    """
    return integer_id(player, "players are integer seats", "player", PlayerTypeError)


def check_player(player: Any, num_players: int, chance: bool = False) -> int:
    """``player`` as a Python int, a seat ``0..num_players-1`` (or -1, the chance player,
    when ``chance``).

    Raises:
        PlayerTypeError: not an int, a NumPy integer or a 0-d integer array.
        PlayerIdError: an integer outside those players.
    """
    player = player_int(player)
    if chance and not -1 <= player < num_players:
        raise PlayerIdError(f"player {player} is neither a seat 0..{num_players - 1} nor -1 (chance)")
    if not chance and not 0 <= player < num_players:
        raise PlayerIdError(f"player {player} is not a seat: players are 0..{num_players - 1}")
    return player


def any_player(player: Any) -> int:
    """``player`` as a Python int that OpenSpiel's C++ ``Player`` (an int32) holds: what
    ``legal_actions(player)`` takes, any id, a seat or not.

    Raises:
        PlayerTypeError: not an integer (:func:`player_int`), or one past int32, which
            pyspiel's binding refuses with a ``TypeError``.
    """
    player = player_int(player)
    if not -(2**31) <= player < 2**31:
        raise PlayerTypeError(f"player {player} does not fit OpenSpiel's player ids, int32: -2147483648..2147483647")
    return player


class PlayerMethods:
    """The ``pyspiel.State`` methods that take a player, checked (a mixin placed before
    ``pyspiel.State``).  Called without a player, the observation methods take the acting
    one, as OpenSpiel's do; at a chance node or a terminal state there is none.

    Raises (each method):
        TypeError: more than one argument.
        PlayerTypeError: a player that is not an integer (``legal_actions`` and
            ``legal_actions_mask``: or one past int32).
        PlayerIdError: a player that is not a seat (not raised by ``legal_actions`` and
            ``legal_actions_mask``, which give a player who is not acting none), or no
            player given at a chance node or a terminal state.
    """

    @staticmethod
    def _one(method: str, args: tuple) -> Any:
        if len(args) != 1:
            raise TypeError(f"{method} takes (player) or no argument, got {len(args)} arguments")
        return args[0]

    def _player(self, method: str, args: tuple) -> int:
        return check_player(self._one(method, args), self.get_game().num_players())

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
    # games (State::LegalActions(Player)) give any other int32 id none, which these follow
    def legal_actions(self, *player: Any) -> list[int]:
        """The legal actions (default: of the acting player, or the chance outcomes at a
        chance node); of any other player id (a seat at a chance node or during another's
        turn, -1 at a decision, an id that is no player's such as 7 or -2), none, as in
        OpenSpiel's C++ games."""
        if not player:
            return super().legal_actions()
        if any_player(self._one("legal_actions", player)) != self.current_player():
            return []
        return super().legal_actions()

    def legal_actions_mask(self, *player: Any) -> list[int]:
        """:meth:`legal_actions` as 0/1 over the action ids, as OpenSpiel's C++
        ``State::LegalActionsMask``: ``max_chance_outcomes()`` long for -1 (the chance
        player), ``num_distinct_actions()`` long for any other id."""
        if not player:
            return super().legal_actions_mask()
        seat = any_player(self._one("legal_actions_mask", player))
        if seat == self.current_player():
            return super().legal_actions_mask()
        game = self.get_game()
        return [0] * (game.max_chance_outcomes() if seat == pyspiel.PlayerId.CHANCE else game.num_distinct_actions())

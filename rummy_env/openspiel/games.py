"""The pyspiel ``Game``, ``State`` and observer classes of the four variants, and their
registration (``pyspiel.register_game``) as ``python_rummy_env_<variant>``.

Modelled on OpenSpiel's own Python games ``block_dominoes.py`` (a deal by chance nodes,
imperfect information) and ``pokerkit_wrapper.py`` (a game backed by an external
engine).  The contents of a state live in one :class:`rummy_env.openspiel.core.Core`, so
that OpenSpiel's ``clone`` (a ``deepcopy`` of each attribute) and ``serialize`` (a pickle
of them) copy the engine through its own fast ``clone``.
"""

from __future__ import annotations

import base64
import pickle
from typing import Any

import numpy as np
import pyspiel

from rummy_env.games.errors import IllegalActionError, integer_id
from rummy_env.openspiel.core import OVER, Core, game_data
from rummy_env.openspiel.players import PlayerMethods, check_player, player_int
from rummy_env.openspiel.variants import UNBOUNDED_LENGTH, VARIANTS, Variant

PREFIX = "python_rummy_env_"
_INTEGER_ACTIONS = "actions and chance outcomes are integer ids (see legal_actions and chance_outcomes)"


class SerializedStateError(ValueError):
    """Contents of a serialized state that are not this game's state (``deserialize_state``)."""


def game_type(variant: Variant, cfg: Any = None) -> pyspiel.GameType:
    """OpenSpiel's ``GameType`` of a variant (of its options, when ``cfg`` is given).

    Every reward mode is zero-sum (``reward="win"``: +1 shared by the winners, the
    losers share -1; ``"score"``: the hands' points, which the rules make zero-sum).  The
    reward model is terminal unless ``reward="score"`` pays each hand of an
    ``episode="game"`` as it ends.
    """
    rewards_each_hand = cfg is not None and cfg.reward == "score" and cfg.episode == "game"
    return pyspiel.GameType(
        short_name=PREFIX + variant.key,
        long_name=variant.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=(
            pyspiel.GameType.RewardModel.REWARDS if rewards_each_hand else pyspiel.GameType.RewardModel.TERMINAL
        ),
        max_num_players=variant.max_players,
        min_num_players=variant.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=variant.defaults(),
        default_loadable=True,
        provides_factored_observation_string=False,
    )


class RummyEnvGame(pyspiel.Game):
    """A variant as an OpenSpiel game; subclasses set ``variant``.

    Args:
        params: the env options (``num_players``, ``episode``, ``reward``, ...); missing
            ones take the env's defaults.

    Raises:
        ValueError: a bad value (the env's message), or, constructing the class directly, an
            unknown parameter or one that is not a str name with a bool, int, float or str
            value.
        pyspiel.SpielError: an unknown parameter name through ``pyspiel.load_game`` (pyspiel
            checks the names before the constructor runs), or an int too big for pyspiel's
            C++ ``int`` in a game string (``"python_rummy_env_rummy(max_turns=10000000000)"``;
            ``RuntimeError`` "Unable to cast" in a parameter dict): pyspiel refuses it before
            the constructor's own range check.
    """

    variant: Variant

    def __init__(self, params: dict[str, Any] | None = None):
        variant = self.variant
        params = {**variant.defaults(), **dict(params or {})}
        for name, value in params.items():  # OpenSpiel's parameter types; game_data hashes them
            if not isinstance(name, str) or not isinstance(value, (bool, int, float, str)):
                raise ValueError(
                    f"parameter {name!r}={value!r}: OpenSpiel game parameters are str names with bool, int, "
                    "float or str values"
                )
        self._data = game_data(variant.key, tuple(sorted(params.items())))
        cfg = self._data.cfg
        low, high = variant.utility_range(cfg)
        info = pyspiel.GameInfo(
            num_distinct_actions=variant.actions.NUM_ACTIONS,
            max_chance_outcomes=variant.num_outcomes,
            num_players=self._data.n,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0,
            max_game_length=min(variant.max_game_length(cfg), UNBOUNDED_LENGTH),  # pyspiel's int32
        )
        # pyspiel takes a Python game's chance nodes to be at most its decisions, which a
        # hand's deal alone exceeds with a small max_turns
        self._max_chance_nodes = variant.max_chance_nodes(cfg)
        super().__init__(game_type(variant, cfg), info, params)

    def max_chance_nodes_in_history(self) -> int:
        """Most chance nodes of an episode (``Variant.max_chance_nodes``): with
        ``max_game_length`` it bounds ``max_history_length`` and ``max_move_number``."""
        return self._max_chance_nodes

    def new_initial_state(self) -> RummyEnvState:
        """The first chance node (the dealer, or Rummikub's first player)."""
        return RummyEnvState(self)

    def __reduce__(self) -> tuple:
        """Pickled as its registered name and parameters (for worker processes, Ray): the
        unpickled game is ``pyspiel.load_game`` of them, through this module, which
        registers the games when it is imported."""
        return (_load_game, (self.get_type().short_name, self.get_parameters()))

    def deserialize_state(self, serialized: str) -> RummyEnvState:
        """OpenSpiel's ``deserialize_state`` (the text of ``state.serialize()``), checked.

        The text is OpenSpiel's format for Python games: the history, and the state's
        contents as a base64 pickle.  Unpickling runs code the text names, so deserialize
        only text you (or this package) serialized.  These checks run when Python calls
        this method (``resample_from_infostate`` does); OpenSpiel's C++ paths
        (``pyspiel.deserialize_game_and_state``, pickling a state) refuse another game's
        contents (``SerializedStateError``) but not an edited history.

        Raises:
            ValueError: text this game cannot decode (damaged), a state another game
                (variant or options) serialized, or contents that do not match the
                history (an entry or ``move_number`` edited, entries added or dropped,
                contents missing or written by a rummy_env without ``Core.actions``).
            TypeError: ``serialized`` is not a string.
        """
        if not isinstance(serialized, str):
            raise TypeError(f"serialized must be the str of state.serialize(), got {type(serialized).__name__}")
        try:
            state = super().deserialize_state(serialized)
        except SerializedStateError:  # RummyEnvState.__setattr__'s refusals, already clear
            raise
        except Exception as err:  # base64, pickle (its ValueErrors too) or pyspiel's parse of a damaged text
            name = f"{PREFIX}{self._data.variant.key}"
            raise ValueError(f"the text is not a serialized state of {name}: {type(err).__name__}: {err}") from None
        core = state._core
        moves, history = core.moves, [(h.player, h.action) for h in state.full_history()]
        if moves != len(history):
            raise ValueError(
                f"the serialized contents have {moves} moves applied but the history lists {len(history)}: "
                "the text was edited or its contents are missing"
            )
        for i, (said, done) in enumerate(zip(history, core.actions.view(), strict=True)):
            if tuple(said) != tuple(done):
                raise ValueError(
                    f"history entry {i} is {said[0]}:{said[1]} (player:action) but the serialized contents "
                    f"applied {done[0]}:{done[1]} there: the text was edited"
                )
        if state.move_number() != moves:
            raise ValueError(
                f"move_number={state.move_number()} but the serialized contents have {moves} moves applied: "
                "the text was edited"
            )
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> RummyEnvObserver:
        """The observer of OpenSpiel's ``observation_*`` (default) and ``information_state_*``
        (``perfect_recall=True``) methods.

        Raises:
            ValueError: observer parameters, or an observation type other than these two.
        """
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        perfect_recall = False
        if iig_obs_type is not None:
            if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                given = (
                    f"public_info={iig_obs_type.public_info}, perfect_recall={iig_obs_type.perfect_recall}, "
                    f"private_info={iig_obs_type.private_info}"
                )
                raise ValueError(
                    f"observation type ({given}) is not provided: only the player's own observation "
                    "(public and single-player private information), with or without perfect recall"
                )
            perfect_recall = iig_obs_type.perfect_recall
        return RummyEnvObserver(self._data.layout, perfect_recall)


class RummyEnvState(PlayerMethods, pyspiel.State):
    """A state of a variant's OpenSpiel game (see ``rummy_env.openspiel.core``).

    The methods that take a player refuse one that is not an integer
    (``PlayerTypeError``, a ``TypeError`` and ``ValueError``) or not a seat
    (``PlayerIdError``, a ``ValueError`` and ``pyspiel.SpielError``), before pyspiel sees it
    (``rummy_env.openspiel.players``); ``legal_actions(p)`` and ``legal_actions_mask(p)``
    take any int32 id, and give a player who is not acting none.

    ``apply_action`` raises ``IllegalActionError`` (a ``ValueError``) for an action id out of
    range or not legal now, or a chance outcome this node does not offer, and
    ``ActionTypeError`` (a ``TypeError`` and ``ValueError``) for anything but an integer
    (Python int, NumPy integer, 0-d integer array); the state is unchanged.  So do ``child``
    and ``apply_action_with_legality_check``.
    """

    def __init__(self, game: RummyEnvGame):
        super().__init__(game)
        self._core = Core(game._data)

    def __setattr__(self, name: str, value: Any) -> None:
        # OpenSpiel's deserialize_state sets the unpickled contents through setattr: a state
        # that another game (variant or options) serialized is refused now, not at its first
        # observation.  Reads of _core stay plain attribute lookups (every step reads it).
        if name == "_core":
            if not isinstance(value, Core):
                raise SerializedStateError(
                    f"the serialized contents hold {type(value).__name__} as _core, not a state's Core"
                )
            if "actions" not in vars(value):  # every path that unpickles a state comes here
                raise SerializedStateError(
                    "the serialized contents hold no action list: a rummy_env before 2026-12-07 serialized them; "
                    "load it with that version and apply its history() to this version's new_initial_state()"
                )
            mine = self.get_game()._data
            if value.data is not mine and value.data.__reduce__() != mine.__reduce__():
                theirs = value.data.__reduce__()[1]
                raise SerializedStateError(
                    f"the state was serialized by {PREFIX}{theirs[0]} with parameters {dict(theirs[1])}, not by "
                    f"this game ({PREFIX}{mine.variant.key}, {mine.params}): deserialize it with the game that "
                    "serialized it"
                )
        super().__setattr__(name, value)

    def current_player(self) -> int:
        """The acting seat; -1 at chance nodes, -4 when terminal (``pyspiel.PlayerId``)."""
        return self._core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._core.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability)]``, outcomes ascending, float probabilities summing to 1:
        a setup outcome (a dealer or Rummikub's first player 0..n-1; Crazy Rummy's wild rank
        0..12 for ranks 1..13), a card id 0..51 or a tile type 0..52.

        Raises:
            ValueError: at a decision node or a terminal state.
        """
        return self._core.chance_outcomes()

    # pyspiel's binding takes anything with __int__ (np.float32(105.9) would apply 105, True
    # apply 1), and stops -1 (kInvalidAction) with an internal check before the game sees it:
    # Python callers get the env's type check and this game's error first.  C++ callers pass ints.
    def _action_id(self, action: Any) -> int:
        action = integer_id(action, _INTEGER_ACTIONS)
        # -1 is pyspiel's kInvalidAction; past int64 its binding refuses the call with a
        # message that prints the whole state
        if action == pyspiel.INVALID_ACTION or not -(2**63) <= action < 2**63:
            game = self.get_game()
            raise IllegalActionError(
                f"action {action} is not an action id: decisions are 0..{game.num_distinct_actions() - 1}, "
                f"chance outcomes 0..{game.max_chance_outcomes() - 1} (see legal_actions and chance_outcomes)"
            )
        return action

    def apply_action(self, action: Any) -> None:
        """Apply ``action`` (a decision or a chance outcome); see the class docstring."""
        super().apply_action(self._action_id(action))

    def apply_action_with_legality_check(self, action: Any) -> None:
        """As :meth:`apply_action`, which checks legality anyway (pyspiel's own check would
        fail with a ``SpielError`` holding the whole serialized state)."""
        self.apply_action(action)

    def child(self, action: Any) -> RummyEnvState:
        """A copy of the state with ``action`` applied; see the class docstring."""
        return super().child(self._action_id(action))

    def action_to_string(self, *args: Any) -> str:
        """OpenSpiel's ``action_to_string(action)`` or ``action_to_string(player, action)``:
        the player, not the state, says how the id reads, as in OpenSpiel's ``gin_rummy``: a
        seat (the acting one or not) reads a decision (the env's text), -1 a chance
        outcome (a card or tile, at a setup node the setup's outcome), whoever acts.
        Without a player, or with ``current_player()`` (-4), a terminal state reads
        decisions (``gin_rummy``: ``"Player: -4 Action: ..."``).

        Raises:
            ActionTypeError: an action that is not an integer (pyspiel's binding refused
                it, and a player that is not one, with a message printing the whole state,
                hidden cards included).
            TypeError: a player that is not an integer (``PlayerTypeError``), or not one
                or two arguments.
            ValueError: not an action id (an ``IllegalActionError``), or a player that is
                neither a seat nor -1 (chance) (``PlayerIdError``; -4 is taken at a
                terminal state only).
        """
        if len(args) not in (1, 2):
            raise TypeError(f"action_to_string takes (action) or (player, action), got {len(args)} arguments")
        players = []
        if len(args) == 2:
            # past pyspiel's int32 its binding would refuse the player with the whole state in the message
            player = player_int(args[0])
            if not (player == pyspiel.PlayerId.TERMINAL and self.is_terminal()):
                check_player(player, self.get_game().num_players(), chance=True)
            players = [player]
        return super().action_to_string(*players, self._action_id(args[-1]))

    def _apply_action(self, action: int) -> None:
        self._core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._core.action_text(player, int(action))

    def is_terminal(self) -> bool:
        """The game is over (``current_player() == -4``)."""
        return self._core.phase == OVER

    def returns(self) -> list[float]:
        """Each seat's total reward so far, floats in the units of the ``reward`` option (win
        shares, or points); all 0 before the first deal is complete."""
        return self._core.returns()

    def rewards(self) -> list[float]:
        """Rewards since the last decision (a hand's end may come after a chance node).

        So that ``rl_environment`` (which reads them after sampling the chance nodes) sees a
        hand's score, the chance nodes of the next deal repeat it: with ``reward="score"``
        and ``episode="game"``, a sum of ``rewards()`` over every state counts a hand's score
        once per chance node that follows it.  Sum over decision nodes and the terminal
        state, or read ``returns()``."""
        return list(self._core.rewards)

    def __str__(self) -> str:
        return str(self._core)

    @property
    def engine(self) -> Any:
        """The rules engine's state (None before the first deal is complete); read it,
        do not change it."""
        return self._core.engine

    def resample_from_infostate(self, player_id: int, probability_sampler) -> RummyEnvState:
        """A state ``player_id`` cannot tell from this one, the rest drawn again: the
        engine's ``resample(player, rng)`` with a generator seeded from the sampler, the
        other seats' information states and the history's chance outcomes rewritten to
        match (so that the history replays the new state's cards).

        The engines' ``resample`` keeps every card the player knows and deals the rest
        again uniformly (``rummy_env.games.resample``); in Rummikub, resampled for a
        player who is not acting while another builds a play, only deals from which the
        builder can finish that play count (R-RK-08), so the world always has a legal
        action.  In Crazy Rummy a meld or lay-off action names the cards stood for, not
        which wild card filled them (the engine takes the one taken from the discard pile,
        then the lowest it holds), so a resampled hand may hold other wild cards than the
        ones the real player used: the resampled state is consistent and plays to the end,
        and the player's information is unchanged, but its rewritten ``history()`` may
        replay to a state with other wild cards on the table, or not replay at all (an
        audit found this in about 1 resample in 9, for the acting player too).  Search
        from the returned state, not from a replay of its history.

        Args:
            player_id: the seat whose information is kept.
            probability_sampler: OpenSpiel's sampler (a callable giving a float in [0, 1)).

        Raises:
            ValueError: ``player_id`` is not a seat (``PlayerIdError``), or the sampler gave
                no number in [0, 1).
            TypeError: ``probability_sampler`` is not callable, or ``player_id`` is not an
                integer (``PlayerTypeError``, a ``ValueError`` too).
        """
        player_id = check_player(player_id, self.get_game().num_players())
        if not callable(probability_sampler):
            raise TypeError(
                f"probability_sampler must be a callable giving a float in [0, 1), got {probability_sampler!r}"
            )
        u = probability_sampler()
        if isinstance(u, bool) or not isinstance(u, (float, int, np.floating)) or not 0 <= u < 1:
            raise ValueError(f"probability_sampler() gave {u!r}: a sampler gives a float in [0, 1)")
        rng = np.random.default_rng(int(u * 2**53))
        core, changes = self._core.resampled(player_id, rng)
        history = [[item.player, item.action] for item in self.full_history()]
        for index, outcome in changes.items():
            history[index][1] = outcome
        text = (
            "history="
            + ",".join(f"{p}:{a}" for p, a in history)
            + f"\nmove_number={self.move_number()}\n__dict__="
            + base64.b64encode(pickle.dumps({"_core": core})).decode()
        )
        return self.get_game().deserialize_state(text)


class RummyEnvObserver:
    """OpenSpiel's Python observer: ``tensor`` (float32, the env's observation layout),
    ``dict`` (views of it by field name) and ``string_from``.

    Args:
        layout: the variant's observation layout.
        perfect_recall: strings are information states (the player's whole record)
            rather than the current observation.  The tensor is the project's encoding
            in both cases: it summarises the record (``Layout`` fields), it does not
            list it, so two information states can share a tensor (all zeros during the
            deal; in Rummikub, another player's tiles added before its commit).
    """

    def __init__(self, layout, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(layout.size, dtype=np.float32)
        self.dict = {f.name: self.tensor[layout.slice(f.name)] for f in layout.fields}

    def set_from(self, state: RummyEnvState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor`` (float32 ``(layout.size,)``).

        Raises:
            PlayerTypeError: ``player`` is not an integer (``tensor`` is unchanged).
            PlayerIdError: ``player`` is not a seat 0..n-1.
        """
        core = state._core
        self.tensor[:] = core.observation_tensor(check_player(player, core.data.n))

    def string_from(self, state: RummyEnvState, player: int) -> str:
        """``player``'s information state string (``perfect_recall``) or observation string.

        Raises:
            PlayerTypeError: ``player`` is not an integer.
            PlayerIdError: ``player`` is not a seat 0..n-1.
        """
        core = state._core
        player = check_player(player, core.data.n)
        return core.information_state_string(player) if self.perfect_recall else core.observation_string(player)


def _load_game(name: str, params: dict[str, Any]) -> pyspiel.Game:
    """``pyspiel.load_game(name, params)`` (the unpickling of :class:`RummyEnvGame`)."""
    return pyspiel.load_game(name, params)


def _game_class(variant: Variant) -> type:
    name = "".join(part.title() for part in variant.key.split("_")) + "Game"
    return type(name, (RummyEnvGame,), {"variant": variant, "__doc__": f"{variant.long_name} as an OpenSpiel game."})


GAME_CLASSES: dict[str, type] = {PREFIX + key: _game_class(v) for key, v in VARIANTS.items()}

for _name, _cls in GAME_CLASSES.items():
    pyspiel.register_game(game_type(_cls.variant), _cls)

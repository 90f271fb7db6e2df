"""The generic PettingZoo AEC driver shared by every variant.

A variant module subclasses :class:`TurnBasedEnv` and supplies the engine (an
OpenSpiel-style game object), the observation encoder and layout, the action text
functions, the reset options it accepts and its text renderer.  The driver does the
PettingZoo bookkeeping (agents, rewards, terminations, infos, seeding, caching) the
same way for all of them, and never touches engine internals: all it reads is the
engine's public API (``current_player``, ``legal_actions``, ``apply_action``,
``rewards``, ``is_terminal``, ``observation``, ``hands_played``, ``last_hand``).
"""

from __future__ import annotations

import difflib
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from rummy_env.core.cards import parse_deck
from rummy_env.encoding.layout import Layout
from rummy_env.encoding.masks import mask_from_legal
from rummy_env.games.options import check_int, check_known

#: Every reset option some variant of this package understands; a variant given one it
#: does not understand refuses it, naming its own (the variants' ``reset_option_names``).
RESET_OPTION_NAMES = frozenset({"deck", "dealer", "first_player", "wild_rank", "next_hands"})


class TurnBasedEnv(AECEnv, EzPickle):
    """AEC environment over a turn-based engine; subclasses fill in the variant.

    Subclass contract (class attributes and methods):
        metadata: with ``"name"`` equal to the module name and ``"render_modes"``.
        num_actions: size of the ``Discrete`` action space.
        reset_option_names: the keys ``reset(options=...)`` understands.
        game_class, actions, encoder, renderer: the variant's engine game, actions
            module, encoding module and text renderer.
        _layout() -> Layout: the observation layout of ``self.game.config``.
        _new_state(rng, options): override for reset options other than a card deck
            and a dealer.

    Args:
        render_mode: ``"ansi"``, ``"human"``, ``"rgb_array"`` (needs Pillow) or None.
        **options: the variant's options (its config class: ``num_players``, ...).

    Raises:
        ValueError: an unknown ``render_mode``, or an option the variant refuses (its
            message names it and what is allowed).
        ImportError: ``render_mode="rgb_array"`` without Pillow (the message gives the
            install command).
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "turn_based",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_actions: int = 0
    reset_option_names: tuple[str, ...] = ()
    game_class: Any = None  #: the engine's game class (a ``games.base.EngineGame``)
    actions: Any = None  #: the variant's actions module (``action_to_string``, ``string_to_action``)
    encoder: Any = None  #: the variant's encoding module (``encode(view, layout)``)
    renderer: Any = None  #: ``render(state, viewer) -> str`` (a staticmethod)

    def __init__(self, render_mode: str | None = None, **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported: use one of {self.metadata['render_modes']} or None"
            )
        if render_mode == "rgb_array":
            from rummy_env.render.image import require_pillow

            require_pillow()  # fail now, with the install command, rather than at the first frame
        self.render_mode = render_mode
        self.game = self._make_game(options)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout: Layout = self._layout()
        box = spaces.Box(low=self.layout.low, high=self.layout.high, shape=(self.layout.size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        # the engine's state; not named ``state``, which is AECEnv's global-state method
        self.game_state: Any = None
        self.agents: list[str] = []
        self._obs_cache: dict[int, dict] = {}
        self.last_move: tuple[int, int] | None = None  #: (seat, action id) of the last step, for pictures

    @property
    def illegal_reward(self) -> float:
        """The reward ``env()`` gives for an illegal action (PettingZoo's
        ``TerminateIllegalWrapper``): -1 with ``reward="win"``; with ``reward="score"``
        minus the most one hand can cost, so that an illegal move never pays better than
        losing the hand (over a whole ``episode="game"`` the losses of several hands can
        add up to more).  That ending is not zero-sum: the other players get 0."""
        return -1.0 if self.game.config.reward == "win" else -float(self.max_hand_loss)

    #: The most points one hand can cost a player (variants set it; used by ``illegal_reward``).
    max_hand_loss: float = 1.0

    # -------------------------------------------------------------- copies
    def __getstate__(self) -> dict[str, Any]:
        """The whole env, mid-game included, for ``copy.deepcopy`` and ``pickle``.

        ``EzPickle`` (still a base class, for PettingZoo's conventions) would rebuild an
        un-reset env from the constructor's arguments; a copy must instead continue the
        same game: same state, generator, rewards and infos, and independent of the
        original.  The observation cache is left out (it hands out read-only arrays the
        copy rebuilds on demand).  ``env.unwrapped.game_state.clone()`` is the cheap
        engine-level copy, for search."""
        state = dict(self.__dict__)
        state["_obs_cache"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """``Dict(observation=Box(float32, (layout.size,)), action_mask=Box(int8, (num_actions,)))``
        of ``agent``, with the bounds of ``layout`` and a 0/1 mask.

        Raises:
            KeyError: ``agent`` is not one of ``possible_agents`` (naming the agents allowed).
        """
        return self._space(self.observation_spaces, agent)

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(num_actions)``.

        Raises:
            KeyError: ``agent`` is not one of ``possible_agents`` (naming the agents allowed).
        """
        return self._space(self.action_spaces, agent)

    def _space(self, spaces_of: dict[str, spaces.Space], agent: str) -> spaces.Space:
        space = spaces_of.get(agent) if isinstance(agent, str) else None
        if space is None:
            raise KeyError(f"agent {agent!r} is not an agent of this env: agents are {', '.join(self.possible_agents)}")
        return space

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator; every random choice of the game goes through it."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    # --------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode.

        Args:
            seed: ``int``: a new generator seeded with it; ``None``: continue the
                current generator (Gymnasium's seeding contract).
            options: reset options of the variant (``reset_option_names``, e.g. a
                stacked ``"deck"``, and ``"next_hands"``: the stacked deals of the later
                hands of an ``episode="game"`` game, ``EngineState.stack_next_hands``).  A
                dict without any of them is ignored with a warning, as Gymnasium's
                ``options`` convention has it (PettingZoo's ``api_test`` passes
                ``{"options": 1}``); next to a known key an unknown one is an error,
                because a stacked deal with a misspelt seat key would silently deal to
                other seats, and so is a key of another variant of this package
                (:data:`RESET_OPTION_NAMES`, e.g. ``dealer`` for Rummikub) or a near
                miss of one (``decks``, ``Dealer``: ``difflib``'s ratio 0.75).

        Raises:
            ValueError: a seed that is not an int >= 0 (NumPy ints are ints; ``True``
                is not), a bad value for a known option, an unknown key next to a
                known one, another variant's key or a near miss of a key; the env is
                left as it was.
        """
        if seed is not None:
            seed = int(check_int("seed", seed, 0))  # gymnasium's seeding takes Python ints only, and True as 1
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options={options!r} is not a dict: pass e.g. options={{'deck': [...]}}")
        known = {k: v for k, v in (options or {}).items() if k in self.reset_option_names}
        # a key another variant understands is a mistake for this one (Rummikub's
        # first_player passed to Rummy, a dealer to Rummikub), never a foreign convention
        foreign = any(k in RESET_OPTION_NAMES and k not in self.reset_option_names for k in options or {})
        # a near miss of a reset option ("decks") is a typo that would lose a stacked deal
        misspelt = any(
            difflib.get_close_matches(k, RESET_OPTION_NAMES, n=1, cutoff=0.75)
            for k in options or {}
            if isinstance(k, str) and k not in RESET_OPTION_NAMES
        )
        if known or foreign or misspelt:
            check_known(options, self.reset_option_names, f"{self.metadata['name']} reset")
        elif options:
            # ignored (Gymnasium's convention), but said: a stacked deal under a wrong key
            # ("cards") would otherwise be lost without a word
            warnings.warn(
                f"{self.metadata['name']} reset: option(s) {', '.join(map(repr, sorted(options, key=str)))} "
                f"unknown, ignored; its reset options are {', '.join(self.reset_option_names)}",
                UserWarning,
                stacklevel=2,
            )
        next_hands = known.get("next_hands")
        if next_hands is not None:
            self.game.parse_next_hands(next_hands)  # refused before the generator draws the first deal
        rng = self.np_random if seed is None else seeding.np_random(seed)[0]
        # build the new state before touching the env, so a bad option leaves it as it was
        state = self._new_state(rng, known)
        if next_hands is not None:
            state.stack_next_hands(next_hands)
        if seed is not None:
            self._np_random, self._np_random_seed = rng, seed
        self.game_state = state
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._nonzero_rewards = False
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._hands_seen = state.hands_played
        self._obs_cache: dict[int, dict] = {}
        self.last_move = None
        self.agent_selection = self.possible_agents[state.current_player()]
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        """Apply ``action`` for ``agent_selection``.

        Raises:
            IllegalActionError: (a ``ValueError``) out of range or illegal now; the
                state is unchanged.  ``env()`` turns illegal ids into a loss instead
                (PettingZoo's ``TerminateIllegalWrapper``).
            ActionTypeError: (a ``TypeError`` and ``ValueError``) not an integer.
            RuntimeError: ``step`` before ``reset``, or after the episode ended (every
                agent's done step taken).
        """
        if self.game_state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode has ended (every agent is done): call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        state.apply_action(action)
        self.last_move = (self.agent_name_mapping[agent], state.history[-1])
        if self._obs_cache:
            self._obs_cache = {}
        self._cumulative_rewards[agent] = 0.0
        rewards = state.rewards()
        # most steps reward no one: then the zero rewards dict of the last step stands
        nonzero = any(rewards)
        if nonzero or self._nonzero_rewards:
            self.rewards = dict(zip(self.agents, rewards, strict=False))
            self._nonzero_rewards = nonzero
        if state.hands_played != self._hands_seen:
            self._hands_seen = state.hands_played
            for a, info in zip(self.agents, self._hand_infos(), strict=False):
                self.infos[a] = info
        if state.is_terminal():
            done = self.truncations if state.truncated else self.terminations
            for a in self.agents:
                done[a] = True
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        if nonzero:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_infos(self) -> list[dict]:
        """Per seat: ``hand_score`` and ``total_score`` of the hand just finished, plus
        the variant's public facts of it (``last_hand`` of the engine).

        The infos contract: every key has one type in every step where it appears (ints,
        floats, bools, strings; no None and no lists of varying length), so that infos stack."""
        last = self.game_state.last_hand
        return [
            {
                "hand_score": last["hand_scores"][i],
                "total_score": last["total_scores"][i],
                "hand": self.game_state.hands_played,
                **self._public_hand_facts(last, i),
            }
            for i in range(self.game.num_players)
        ]

    def _public_hand_facts(self, last: dict, seat: int) -> dict:
        """Extra public facts of a finished hand for ``infos`` (variants extend this)."""
        return {"winner": self._agent_name(last["winner"])}

    def _agent_name(self, seat: int) -> str:
        """The agent name of ``seat``; ``""`` for none (-1): every ``infos`` key keeps one
        type, so that learners that stack infos (Tianshou's buffers) can."""
        return self.possible_agents[seat] if seat >= 0 else ""

    # ------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 (layout.size,), "action_mask": int8 (num_actions,)}``.

        The mask is all zeros unless ``agent`` is acting in a live episode.  The arrays
        are read-only (the env keeps them until the next step): copy them to change them.

        Raises:
            RuntimeError: before ``reset``.
            KeyError: ``agent`` is not one of ``possible_agents`` (a ``dict``'s error, as
                PettingZoo's envs raise it, with the agents allowed).
        """
        if self.game_state is None:
            raise RuntimeError("call reset() before observe()")
        seat = self.agent_name_mapping.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise KeyError(f"agent {agent!r} is not an agent of this env: agents are {', '.join(self.possible_agents)}")
        cached = self._obs_cache.get(seat)
        if cached is None:
            obs, mask = self._observe_arrays(seat)
            obs.flags.writeable = False  # the cache hands out the same arrays until the next step
            mask.flags.writeable = False
            cached = self._obs_cache[seat] = {"observation": obs, "action_mask": mask}
        # an episode ended by a wrapper (an illegal move under TerminateIllegalWrapper)
        # leaves the game state live: the agent that is done still has no legal action
        if (self.terminations.get(agent, True) or self.truncations.get(agent, True)) and cached["action_mask"].any():
            mask = np.zeros_like(cached["action_mask"])
            mask.flags.writeable = False
            return {"observation": cached["observation"], "action_mask": mask}
        return cached

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last``: ``(observation, cumulative reward, termination,
        truncation, info)`` of ``agent_selection``.

        Raises:
            RuntimeError: before ``reset``, or after the episode ended (every agent's
                done step taken): call ``reset()``.
        """
        if self.game_state is None:
            raise RuntimeError("call reset() before last()")
        if not self.agents:
            raise RuntimeError("the episode has ended (every agent is done): call reset() before last()")
        return super().last(observe)

    # -------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        """The game as the acting player sees it.

        Returns the text table with ``render_mode="ansi"``; prints it with ``"human"``;
        with ``"rgb_array"`` returns the picture as a ``uint8`` array of shape
        ``(560, 960, 3)`` (``rummy_env.render.image``, Pillow): that player's hand face up,
        the other hands face down with their sizes, the table, the piles, the scores and
        the last move.  The size never changes within an env, so frames make a video.
        Without a ``render_mode``: Gymnasium's warning, and None.

        Raises:
            RuntimeError: before ``reset`` (with a ``render_mode``).  Through ``env()``:
                PettingZoo's ``AssertionError`` instead (``envs.wrappers.OrderEnforcingWrapper``).
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game_state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            from rummy_env.render.image import render_rgb

            return render_rgb(self.game_state, self.agent_name_mapping[self.agent_selection], self.last_move)
        text = self._render_text(self.agent_name_mapping[self.agent_selection])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_svg(self, agent: str | None = None):
        """SVG of the picture ``render_mode="rgb_array"`` draws, from ``agent``'s seat
        (default: the acting agent), for any ``render_mode``.  Standard library only.

        Returns:
            a ``rummy_env.render.svg.SvgPicture``: a ``str`` holding the SVG document
            whose ``_repr_svg_`` makes a Jupyter cell show the table.

        Raises:
            RuntimeError: before ``reset``.
            KeyError: ``agent`` is not one of ``possible_agents``.
        """
        from rummy_env.render.svg import render_svg

        if self.game_state is None:
            raise RuntimeError("call reset() before render_svg()")
        if agent is not None and (not isinstance(agent, str) or agent not in self.agent_name_mapping):
            raise KeyError(f"agent {agent!r} is not an agent of this env: agents are {', '.join(self.possible_agents)}")
        seat = self.agent_name_mapping[agent or self.agent_selection]
        return render_svg(self.game_state, seat, self.last_move)

    def close(self) -> None:
        """Nothing to release (PettingZoo API)."""

    # ------------------------------------------------------------ variants
    def _observe_arrays(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The observation (float32) and int8 action mask of ``seat`` (all zeros if not
        acting); a variant whose encoder makes both in one pass overrides this."""
        state = self.game_state
        return self._encode(state.observation(seat)), mask_from_legal(state.legal_actions(seat), self.num_actions)

    def _make_game(self, options: dict) -> Any:
        """The engine's game; unknown or bad options raise ``ValueError``."""
        config_class = self.game_class.config_class
        # render_mode was taken by the constructor already, but it is an option too: list it
        check_known(options, [*config_class.option_names(), "render_mode"], self.metadata["name"])
        return self.game_class(config_class(**options))

    def _layout(self) -> Layout:
        raise NotImplementedError

    def _encode(self, view: Any) -> np.ndarray:
        return self.encoder.encode(view, self.layout)

    def _new_state(self, rng: np.random.Generator, options: dict) -> Any:
        """A dealt state; the card variants' reset options: a stacked ``deck`` (52 card
        strings, top first) and the ``dealer``."""
        deck = parse_deck(options["deck"]) if options.get("deck") is not None else None
        return self.game.new_initial_state(rng=rng, deck=deck, dealer=options.get("dealer"))

    def _render_text(self, viewer: int) -> str:
        return self.renderer(self.game_state, viewer)

    @classmethod
    def action_to_string(cls, action: int) -> str:
        """Text of an action id (the grammar is in the variant's documentation).

        Raises:
            ValueError: not an action id of this variant.
        """
        return cls.actions.action_to_string(action)

    @classmethod
    def string_to_action(cls, text: str) -> int:
        """Action id of an action's text; the inverse of :meth:`action_to_string`.

        Raises:
            ValueError: text outside the grammar, or naming an unknown card or tile.
        """
        return cls.actions.string_to_action(text)

"""A Gymnasium ``VectorEnv`` over a batched engine: one learning seat per game against
random opponents that move inside the engine.

    from rummy_env.envs.vector_view import SeatVectorEnv
    envs = SeatVectorEnv("gin_rummy", num_envs=1024, seed=0)
    obs, infos = envs.reset(seed=0)             # obs: float32 (1024, 485)
    mask = infos["action_mask"]                 # int8 (1024, 108), also envs.action_masks()
    obs, rewards, terminated, truncated, infos = envs.step(actions)

Each step is one decision of the learner: its action, then the opponents' random legal
moves (``VecBase.step_opponents``) until the learner is to act again or the episode
ends.  The learner's seat in game ``i`` is ``seat`` or, by default, ``i % num_players``
(every seat is learnt).  Rewards are the learner's (``env()``'s rewards for its seat,
summed over the opponents' moves).  Autoreset is Gymnasium's ``NEXT_STEP`` mode: the
step that ends an episode returns the learner's final observation (mask all 0) with
``terminated`` or ``truncated``; the next step ignores that game's action and returns the
first observation of a new episode (reward 0, neither flag).  An episode that ends before
the learner's first decision (after ``reset``, or on that autoreset step: in Gin Rummy the
opponent may take the upcard and knock at once) is skipped: the learner had no choice in
it, so its row returns reward 0, neither flag and a mask all 0, ``infos["skipped_episodes"]``
marks it, and the next step deals a new one.  With
``episode="game"`` an episode is a whole game (``rummy_env.vector.whole_games``): a hand that ends inside it returns the
hand's rewards and the game goes on with the next hand, the opponents moving until the
learner is to act in it.  Returned arrays are copies.

For self-play, where one policy plays every seat, use the raw API
(``rummy_env.vector.GinRummyVec`` / ``RummyVec`` / ``CrazyRummyVec`` / ``RummikubVec``: ``step`` returns the acting seat's
observation, and ``Batch.rewards`` holds every seat's reward).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

try:
    from gymnasium.vector import AutoresetMode
except ImportError:  # gymnasium 1.0 (the pin's lower bound): NEXT_STEP is its only autoreset, unnamed
    AutoresetMode = None

ENGINES = {
    ("crazy_rummy", "kernel"): ("rummy_env.vector", "CrazyRummyVec"),
    ("crazy_rummy", "reference"): ("rummy_env.vector", "ReferenceCrazyRummyVec"),
    ("gin_rummy", "kernel"): ("rummy_env.vector", "GinRummyVec"),
    ("gin_rummy", "reference"): ("rummy_env.vector", "ReferenceGinRummyVec"),
    ("rummy", "kernel"): ("rummy_env.vector", "RummyVec"),
    ("rummy", "reference"): ("rummy_env.vector", "ReferenceRummyVec"),
    ("rummikub", "kernel"): ("rummy_env.vector", "RummikubVec"),
    ("rummikub", "reference"): ("rummy_env.vector", "ReferenceRummikubVec"),
}


class SeatVectorEnv(VectorEnv):
    """One learning seat per game against random opponents (see the module docstring).

    Args:
        variant: ``"gin_rummy"``, ``"rummy"``, ``"crazy_rummy"`` or ``"rummikub"``.
        num_envs: games, >= 1.
        seed: int >= 0, the engine's seed (``reset(seed=...)`` reseeds).
        seat: the learner's seat in every game; None: ``i % num_players`` in game ``i``.
        engine: ``"kernel"`` (numba) or ``"reference"`` (pure Python, same games).
        num_threads: the kernel's threads.
        **env_options: the variant's ``env()`` options.

    Raises:
        ValueError: an unknown variant or engine, a bad seat or option.
        ImportError: ``engine="kernel"`` without numba (``rummy_env.vector``'s message).
    """

    # gymnasium >= 1.1's vector wrappers read the mode here (and assume NEXT_STEP without it)
    metadata = {} if AutoresetMode is None else {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        variant: str,
        num_envs: int,
        seed: int = 0,
        seat: int | None = None,
        engine: str = "kernel",
        num_threads: int | None = None,
        **env_options: Any,
    ):
        key = (variant.removesuffix("_v0"), engine) if isinstance(variant, str) and isinstance(engine, str) else None
        if key not in ENGINES:
            raise ValueError(
                f"variant={variant!r}, engine={engine!r}: batched engines exist for "
                "'gin_rummy', 'rummy', 'crazy_rummy' and 'rummikub', engine 'kernel' or 'reference'"
            )
        import importlib

        module, name = ENGINES[key]
        self.vec = getattr(importlib.import_module(module), name)(num_envs, seed, num_threads, **env_options)
        self.num_envs = self.vec.num_envs
        p = self.vec.num_players
        if seat is None:
            self.seats = np.arange(self.num_envs, dtype=np.int64) % p
        else:
            if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < p:
                raise ValueError(f"seat={seat!r} is not a seat: seats are 0..{p - 1} (or None for i % {p})")
            self.seats = np.full(self.num_envs, int(seat), np.int64)
        layout = self.vec.layout
        self.single_observation_space = spaces.Box(layout.low, layout.high, (layout.size,), np.float32)
        self.single_action_space = spaces.Discrete(self.vec.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rows = np.arange(self.num_envs)
        self._mask: np.ndarray | None = None
        self._ended = np.zeros(self.num_envs, np.bool_)  # the engine deals these anew at the next step

    def reset(
        self, *, seed: int | Sequence[int | None] | np.ndarray | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """Deal every game anew and let the opponents move up to the learner's first decision.

        ``seed``, as Gymnasium's vector envs take it: None continues every game's random
        streams; an int reseeds the engine (game ``i``'s deals and opponents' moves come
        from ``(seed, i)``, :mod:`rummy_env.vector.batch`); a list of ``num_envs`` entries
        (tuple or 1-D array too) gives game ``i`` the seed ``seed[i]``: it plays what game
        ``i`` of a reset with that int plays (``[s] * num_envs`` is ``s``; unlike
        ``SyncVectorEnv``'s sub-envs, equal seeds at two indexes deal two different games,
        the index being part of a game's seed), and a None entry continues game ``i``'s
        streams.  A list leaves :attr:`np_random` as it is (``SyncVectorEnv`` too).  The
        forms taken: an int 0..2**64-1 (a NumPy integer too), None, a list or tuple of
        ``num_envs`` such ints or None, a 1-D array ``(num_envs,)`` of an integer dtype or
        of object dtype holding ints and None; another sequence (a ``range``) is refused.
        ``self.vec.seed`` then holds the int, or the list as a tuple of ints and None
        (:class:`rummy_env.vector.batch.VecBase`).

        Returns:
            (observation float32 ``(num_envs, obs_size)``, ``{"action_mask": int8
            (num_envs, num_actions), "skipped_episodes": int64 (num_envs,)}``, each key with
            its ``_key`` bool ``(num_envs,)`` companion, all True, as Gymnasium's vector envs
            give).
            ``skipped_episodes[i]`` is 1 when game ``i``'s episode ended before the
            learner's first decision (in Gin Rummy the opponent may take the upcard and
            knock at once): its row's mask is all 0, the learner had no choice in it, and
            the next step deals a new episode (reward 0), as ``SingleAgentEnv`` deals
            again and counts ``skipped_episodes``.

        Raises:
            ValueError: non-empty ``options`` (none are taken), a seed not of those forms,
                out of range, or a list of another length or with such an entry (not None);
                no game is dealt then.
        """
        if options:
            raise ValueError(f"options={options!r}: SeatVectorEnv.reset takes no options")
        if isinstance(seed, np.integer):
            seed = int(seed)  # the engine takes NumPy ints, Gymnasium's seeding only Python ints
        self.vec.reset(seed=seed)  # checks the seed (or each game's) before it deals
        if not isinstance(seed, (list, tuple, np.ndarray)):
            super().reset(seed=seed)  # Gymnasium's own np_random follows an int seed too
        batch = self.vec.step_opponents(self.seats)
        self._mask = batch.action_mask.copy()
        self._ended = batch.terminated | batch.truncated
        return batch.observation.copy(), self._infos(self._ended)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One decision of the learner in every game (see the module docstring).

        Returns:
            (observation float32 ``(num_envs, obs_size)``, rewards float32 ``(num_envs,)``: the
            learner's, summed over the opponents' moves, in the units of the ``reward`` option,
            terminated bool ``(num_envs,)``, truncated bool ``(num_envs,)``,
            ``{"action_mask": int8 (num_envs, num_actions), "skipped_episodes": int64
            (num_envs,)}``: 1 where the episode dealt on this autoreset step ended before the
            learner's first decision (reward 0, neither flag, mask all 0; the next step deals
            again); each key with its ``_key`` companion as in :meth:`reset`).

        Raises:
            ValueError: an action of the wrong shape or not legal in some live game.
            RuntimeError: before :meth:`reset`.
        """
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        self.vec.step(actions)
        batch = self.vec.step_opponents(self.seats)
        ended = batch.terminated | batch.truncated
        skipped = self._ended & ended  # dealt on this step and over before the learner acted
        self._ended = ended
        self._mask = batch.action_mask.copy()
        rewards = np.where(skipped, 0.0, batch.rewards[self._rows, self.seats]).astype(np.float32)
        terminated, truncated = batch.terminated & ~skipped, batch.truncated & ~skipped
        return batch.observation.copy(), rewards, terminated, truncated, self._infos(skipped)

    def _infos(self, skipped: np.ndarray) -> dict[str, np.ndarray]:
        """The infos of a step: each key with Gymnasium's ``_key`` companion (bool
        ``(num_envs,)``, True where the row holds the key: every row here), as
        ``gymnasium.vector.SyncVectorEnv`` aggregates its sub-envs' infos."""
        every = np.ones(self.num_envs, np.bool_)
        return {
            "action_mask": self._mask.copy(),
            "_action_mask": every,
            "skipped_episodes": skipped.astype(np.int64),
            "_skipped_episodes": every.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: int8 ``(num_envs, num_actions)`` (sb3-contrib's name).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

"""Agents by name, for jobs that take agent names on the command line."""

from __future__ import annotations

import importlib
import inspect
import warnings
from pathlib import Path
from typing import Any

from agents.base import Agent, env_name
from agents.heuristics import HEURISTICS, STYLES, heuristic_style, heuristic_styles, style_id  # noqa: F401 - public here
from agents.policy import SHAPE_MISMATCH  # noqa: F401 - public here (experiments.evaluate reads it)
from agents.random_agent import RandomAgent
from rummy_env.games.options import check_seed


def agent_names(variant: str) -> list[str]:
    """The plain agent names of ``variant`` (``"rummy_v0"`` or ``"rummy"``, as the jobs and
    :func:`agents.panel.panel` take it): ``["random", "heuristic"]``.

    These take no options and no path; :func:`make_agent` also takes ``champion``, the
    heuristic's styles, the search agents, ``policy:``/``rllib:`` models, import paths and,
    on Gin Rummy, ``openspiel_gin_bot``.

    Raises:
        ValueError: ``variant`` is not an env name of the package (the message lists them).
    """
    full = env_name(variant, HEURISTICS)
    if not isinstance(full, str) or full not in HEURISTICS:
        raise ValueError(f"variant {variant!r} is not an env name: use one of {', '.join(sorted(HEURISTICS))}")
    return ["random", "heuristic"]


POLICY_PREFIX = "policy:"
RLLIB_PREFIX = "rllib:"


def is_import_spec(name: str) -> bool:
    """Whether ``name`` names an agent by import path, ``"package.module:Name"`` (not
    ``policy:PATH`` or ``rllib:PATH``, nor a search agent ``ismcts:...`` / ``pimc:...``)."""
    from agents.search import is_search_spec

    return ":" in name and not name.startswith((POLICY_PREFIX, RLLIB_PREFIX)) and not is_search_spec(name)


def _rllib_agent(path: str, env: Any, seed: int | None) -> Agent:
    """The shared policy of an RLlib checkpoint (``experiments.train --backend rllib``)."""
    if not path:  # not read as "." (the working directory)
        raise ValueError("agent 'rllib:' names no checkpoint folder: give rllib:PATH of an RLlib checkpoint")
    try:
        from agents.rllib_policy import RLlibAgent  # needs the rllib extra (ray[rllib], torch)
    except ImportError as err:
        raise ValueError(
            f"agent 'rllib:{path}' needs the rllib extra ({err}): "
            'pip install torch==2.13.0 && pip install -e ".[rllib]"'
        ) from None
    agent = RLlibAgent(path, seed=seed)
    expected = (env.unwrapped.layout.size,)
    if agent.observation_shape != expected:
        raise ValueError(
            f"rllib policy {path!r} was trained on observations of shape {agent.observation_shape}, "
            f"this env's are {expected}"
        )
    return agent


def _import_agent(spec: str, env: Any, seed: int | None) -> Agent:
    """Build the agent named by ``"package.module:Name"``.

    ``Name`` is either an :class:`Agent` subclass, built as ``Name(env, seed=seed)`` when
    its constructor takes an ``env`` (as the package's own agents do) and as
    ``Name(seed=seed)`` otherwise, or a factory called as ``Name(env, seed)`` that returns
    an agent.
    """
    module_name, _, attr = spec.partition(":")
    try:
        if not module_name or not attr:
            raise ImportError("the module or the name is empty")
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and not (module_name == err.name or module_name.startswith(err.name + ".")):
            # the module was found: what it imports is missing
            raise ValueError(f"agent {spec!r}: importing {module_name} failed ({err})") from err
        raise ValueError(
            f"agent {spec!r} cannot be imported ({err}): write package.module:Name, with the "
            "module importable from the current directory or the environment"
        ) from None
    except (ImportError, TypeError, ValueError) as err:  # TypeError: a relative module
        raise ValueError(
            f"agent {spec!r} cannot be imported ({err}): write package.module:Name, with the "
            "module importable from the current directory or the environment"
        ) from None
    except Exception as err:  # the module's own code failed (a SyntaxError, an error at import)
        raise ValueError(f"agent {spec!r}: importing {module_name} failed ({type(err).__name__}: {err})") from err
    try:
        target = getattr(module, attr)
    except AttributeError as err:
        raise ValueError(
            f"agent {spec!r} cannot be imported ({err}): write package.module:Name, with the "
            "module importable from the current directory or the environment"
        ) from None
    if isinstance(target, type) and not issubclass(target, Agent) or not callable(target):
        raise ValueError(
            f"agent {spec!r} is a {type(target).__name__} {attr!r}: write an agents.Agent subclass, "
            "or a factory called as factory(env, seed) that returns one"
        )
    if isinstance(target, type) and inspect.isabstract(target):
        raise ValueError(
            f"agent {spec!r} is the abstract class {attr!r} (it leaves {', '.join(sorted(target.__abstractmethods__))} "
            "to subclasses): name a subclass that implements them"
        )
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # a callable without one (a builtin): called as it is
        signature = None
    if isinstance(target, type):
        takes_env = signature is None or "env" in signature.parameters
        args, kwargs = ((env,) if takes_env else ()), {"seed": seed}
    else:
        args, kwargs = (env, seed), {}
    try:  # the call's arguments checked apart: an error inside the constructor keeps its traceback
        if signature is not None:
            signature.bind(*args, **kwargs)
    except TypeError as err:  # a constructor or factory with other arguments
        raise ValueError(
            f"agent {spec!r} could not be built ({err}): a class is built as Name(env, seed=seed) "
            "when it takes env, else Name(seed=seed); a factory is called as Name(env, seed)"
        ) from None
    agent = target(*args, **kwargs)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent {spec!r} built a {type(agent).__name__}, not an agents.Agent")
    return agent


#: the stride between the agent seeds of a game's seats (a prime, so that the seeds of
#: nearby deals and seats do not coincide)
SEAT_SEED_STRIDE = 7919


def seat_seed(seed: int, seat: int) -> int:
    """The agent seed of ``seat`` (0-based) in a game dealt with reset seed ``seed``, as
    every job seats agents (``make_agent(name, env, seed=seat_seed(seed, seat))``), so that
    a game of a tournament, an evaluation or the web arena replays with the same agents'
    choices: ``seed + 7919 * seat``.  (``rummy_env.envs.single_agent.SingleAgentEnv`` reseeds its
    opponents by the same rule.)"""
    return seed + SEAT_SEED_STRIDE * seat


def make_agent(name: str, env: Any, seed: int | None = None) -> Agent:
    """A new agent called ``name`` for the env ``env`` (wrapped or raw).

    Args:
        name: ``"random"``, ``"heuristic"`` (the variant's heuristic), ``"champion"`` (the
            strongest agent of the variant, :data:`agents.champion.CHAMPIONS`),
            ``"heuristic:style=NAME"`` (the heuristic in another style of play, one of
            :func:`heuristic_styles`; ``style=default`` is ``"heuristic"``),
            ``"policy:PATH"`` (a model saved by ``experiments.train``, played by
            :class:`agents.policy.PolicyAgent`), a search agent ``"ismcts"`` or
            ``"pimc"`` with options after a colon, comma-separated
            (``"ismcts:simulations=400"``, ``"pimc:worlds=20,rollout=random"``; see
            :mod:`agents.search` for the options and their per-variant defaults; the
            first part is never an import path), ``"rllib:PATH"`` (the checkpoint
            folder of ``experiments.train --backend rllib``, played by
            :class:`agents.rllib_policy.RLlibAgent`), or an import path
            ``"package.module:Name"`` of an :class:`Agent` subclass or of a factory
            ``(env, seed) -> Agent`` (your own agent), or ``"openspiel_gin_bot"``
            (Gin Rummy: OpenSpiel's simple bot, :mod:`agents.openspiel_bot`; the
            ``reference`` extra).
        env: the environment the agent will play in (its layout and options are read).
        seed: seed of the agent's own generator.

    Raises:
        ValueError: an unknown name, options after ``random``, an option of
            ``heuristic`` other than a style of the variant, no heuristic for this
            variant, a bad search option, an import path that does not give an agent, or
            ``openspiel_gin_bot`` without open_spiel or not on Gin, options after
            ``champion``, or a ``seed`` that is not an int >= 0 (bools refused) or None.
        TypeError: a name that is not a string, or an ``env`` that is not an env.
        Exception: what your own ``package.module:Name`` raises while it is built, as it
            raised it (its traceback into your code kept).
    """
    from agents.search import is_search_spec, make_search_agent

    if not isinstance(name, str):
        raise TypeError(f"agent name {name!r} has type {type(name).__name__}: names are strings such as 'heuristic'")
    try:
        check_seed("seed", seed)
    except ValueError:
        raise ValueError(
            f"agent {name!r}: seed {seed!r} is not a seed: an agent's seed is an int >= 0 or None"
        ) from None
    if not isinstance(getattr(getattr(env, "unwrapped", None), "metadata", None), dict):
        raise TypeError(f"env {env!r} is not an env of rummy_env: pass the env the agent will play in")
    base, colon, _ = name.partition(":")
    if colon and base in ("random", "champion", "openspiel_gin_bot"):
        raise ValueError(f"agent {name!r}: {base} takes no options; write {base!r}")
    if base == "heuristic":
        variant = env.unwrapped.metadata["name"]
        if variant in HEURISTICS:
            return HEURISTICS[variant](env, seed, heuristic_style(name, variant))
    if name == "champion":
        from agents.champion import GAME_CHAMPIONS, champion_name

        variant, episode = env.unwrapped.metadata["name"], env.unwrapped.game.config.episode
        if episode == "game" and variant in GAME_CHAMPIONS:
            warnings.warn(
                f"champion on {variant} with episode='game' plays {GAME_CHAMPIONS[variant]}, the agent "
                "measured on whole games (agents.champion.GAME_CHAMPIONS)",
                stacklevel=2,
            )
        return make_agent(champion_name(variant, episode), env, seed)
    if is_search_spec(name):
        return make_search_agent(name, env, seed)
    if name.startswith(POLICY_PREFIX):
        from agents.policy import PolicyAgent, check_fits, check_trained_on  # loading needs the train extra

        agent = PolicyAgent(name[len(POLICY_PREFIX) :], seed=seed)
        check_fits(agent.model, env, f"policy {name!r}")
        check_trained_on(agent.model, env, f"policy {name!r}")
        return agent
    if name.startswith(RLLIB_PREFIX):
        return _rllib_agent(name[len(RLLIB_PREFIX) :], env, seed)
    if name == "openspiel_gin_bot":
        try:
            from agents.openspiel_bot import OpenSpielGinBot  # needs the reference extra (open_spiel)
        except ImportError as err:
            raise ValueError(
                f'agent {name!r} needs the reference extra ({err}): pip install -e ".[reference]"'
            ) from None
        return OpenSpielGinBot(env, seed=seed)
    if is_import_spec(name):
        return _import_agent(name, env, seed)
    variant = env.unwrapped.metadata["name"]
    if name == "random":
        return RandomAgent(seed)
    from agents.champion import CHAMPIONS

    extra = ["champion"] if variant in CHAMPIONS else []
    if variant in STYLES:
        extra.append(f"heuristic:style=NAME ({', '.join(STYLES[variant][1:])})")
    if variant == "gin_rummy_v0":
        extra.append("openspiel_gin_bot")
    raise ValueError(
        f"unknown agent {name!r} for {variant}: known agents are {', '.join(agent_names(variant) + extra)}, "
        "ismcts:... or pimc:... with search options, policy:PATH of a trained model, "
        "rllib:PATH of an RLlib checkpoint, "
        "or package.module:Name of your own Agent class"
    )


def same_agent(a: str, b: str, env: Any) -> bool:
    """Whether the names ``a`` and ``b`` build the same agent for ``env``: the same name
    once ``champion`` is replaced by what it names, or two search agents with the same
    class and settings (:func:`agents.search.search_settings`: ``pimc`` and ``pimc:model=1``
    on Crazy Rummy, where the fast playouts' uniform worlds are the default).

    Raises:
        ValueError: a bad search option in either name.
    """
    from agents.search import is_search_spec, search_settings

    def identity(name: str) -> Any:
        if name == "champion":
            from agents.champion import champion_name

            name = champion_name(env.unwrapped.metadata["name"], env.unwrapped.game.config.episode)
        if name == "heuristic:style=default":
            return "heuristic"
        if not is_search_spec(name):
            return name
        cls, settings = search_settings(name, env)
        if settings.get("guide") is not None:  # a guide named from the working folder or absolute
            settings["guide"] = str(Path(settings["guide"]).resolve())
        if settings.get("playout_style") == "default":
            settings["playout_style"] = None
        return cls, settings

    return identity(a) == identity(b)

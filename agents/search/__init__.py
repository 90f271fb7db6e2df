"""Search agents for every variant: ``pimc`` (determinized rollouts) and ``ismcts``
(single-observer information-set MCTS), built by name with options in the name::

    ismcts                                  # the defaults
    ismcts:simulations=400                  # one option
    pimc:worlds=20,rollout=random,depth=60  # several, comma-separated, no spaces

Options: ``ismcts``: ``simulations`` (int), ``c`` (float), ``fpu`` (float), ``rollout``
(``heuristic``/``random``), ``depth`` (int), ``prior`` (float), ``time`` (seconds, float);
``pimc``: ``worlds`` (int), ``rollouts`` (int), ``rollout`` (also ``fast``: compiled
heuristic playouts, Gin Rummy, basic Rummy and Crazy Rummy), ``depth``, ``prior``, ``playouts`` (int),
``time``, ``model`` (0..1, ``rollout=fast`` on Gin Rummy: worlds weighted by the
opponent's revealed decisions, 1 = uniform worlds; ``mix``: weighted by a mixture over
the Gin heuristic's styles, the opponent's playout style drawn from the posterior:
:class:`PIMCAgent`), ``guide`` (a learned policy's file: its choice gets the ``prior``
bonus instead of the heuristic's), ``halving`` (int: rounds of sequential halving over
the legal actions, ``rollout=fast``; 1, the default, is none), ``playout_style`` (Crazy
Rummy, ``rollout=fast``: the heuristic style the searching seat plays in its own
playouts, ``crazy_heuristic.STYLES``; the default style if not named; where the defaults
give Python rollouts, without numba, it is dropped with a warning).  Defaults depend on the variant
(:data:`DEFAULTS`; for ``pimc`` on Gin Rummy, basic Rummy and Crazy Rummy :data:`FAST_DEFAULTS` unless
another ``rollout`` is named) to keep a decision near 100 ms or less.

On Rummikub ``pimc`` searches whole plays by default (``plan=plays``,
:mod:`agents.search.rummikub_plan`: ``worlds``, ``candidates`` (int, plays per turn),
``depth`` (turns), ``rollout`` (``patient``/``heuristic``), ``prior``, ``time``,
``late`` (int: search only when a rack or the pool is that small), ``model`` (0, 1 or ``mix``: the
opponents' playout style from their turns, :mod:`agents.search.rummikub_mix`);
defaults :data:`agents.search.rummikub_plan.PLAN_DEFAULTS`); ``pimc:plan=steps`` is the
search over single env steps.
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any

from agents.search import fast
from agents.search.ismcts import ISMCTSAgent
from agents.search.pimc import PIMCAgent

SEARCH_AGENTS = {"ismcts": ISMCTSAgent, "pimc": PIMCAgent}


def _model(value: str) -> float | str:
    """``pimc``'s ``model``: a number (0..1) or ``mix`` (a mixture over the Gin styles)."""
    return value if value == "mix" else float(value)


#: Option types of each search agent (name -> converter).
OPTIONS = {
    "ismcts": {
        "simulations": int,
        "c": float,
        "fpu": float,
        "rollout": str,
        "depth": int,
        "prior": float,
        "time": float,
    },
    "pimc": {
        "worlds": int,
        "rollouts": int,
        "rollout": str,
        "depth": int,
        "prior": float,
        "playouts": int,
        "time": float,
        "model": _model,
        "plan": str,
        "candidates": int,
        "late": int,
        "guide": str,
        "halving": int,
        "playout_style": str,
    },
}

#: Per-variant defaults of each agent (options not named in the agent's name).
DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {
    "ismcts": {
        "gin_rummy_v0": {"simulations": 40, "depth": 8, "prior": 0.1},
        "rummy_v0": {"simulations": 25, "depth": 8, "prior": 0.1},
        "crazy_rummy_v0": {"simulations": 15, "depth": 8, "prior": 0.1},
        "rummikub_v0": {"simulations": 6, "rollout": "random", "depth": 2},
    },
    "pimc": {
        "gin_rummy_v0": {"worlds": 10, "depth": 8, "prior": 0.1, "playouts": 150},
        "rummy_v0": {"worlds": 6, "depth": 8, "prior": 0.1, "playouts": 100},
        "crazy_rummy_v0": {"worlds": 3, "depth": 8, "prior": 0.1, "playouts": 40},
        "rummikub_v0": {"worlds": 2, "rollout": "random", "depth": 4, "playouts": 30},
    },
}


#: ``pimc``'s defaults where compiled playouts exist (``rollout=fast``, numba installed);
#: naming ``rollout=heuristic`` or ``rollout=random`` gives :data:`DEFAULTS` instead.
FAST_DEFAULTS: dict[str, dict[str, Any]] = {
    "gin_rummy_v0": {"rollout": "fast", "worlds": 500, "depth": 400, "prior": 0.0, "playouts": 8000, "model": 0.0},
    "rummy_v0": {"rollout": "fast", "worlds": 200, "depth": 400, "prior": 0.0, "playouts": 4000},
    "crazy_rummy_v0": {"rollout": "fast", "worlds": 500, "depth": 400, "prior": 0.0, "playouts": 6000},
}


def _numba_available() -> bool:
    return fast.numba_available()  # looked up at each call: tests replace it there


#: The largest count a search option takes (worlds, simulations, playouts, ...) and the
#: longest ``time`` in seconds: a typo of a count (10**11 worlds) would run for days or fill
#: the memory; the defaults are hundreds to thousands, a day a decision is no budget.
MAX_COUNT, MAX_TIME_S = 10_000_000, 86_400.0


#: The options whose value is a file path, the values likely to hold a comma.
PATH_OPTIONS = frozenset({"guide"})


def is_search_spec(name: str) -> bool:
    """Whether ``name`` names a search agent: ``ismcts``, ``pimc``, or either with
    ``:options``."""
    return name.partition(":")[0] in SEARCH_AGENTS


def quote_option(value: str) -> str:
    """``value`` as an option value of a search agent's name: as it is, or in double quotes
    (a ``"`` inside doubled) when it holds a comma or starts with a quote, so that
    :func:`split_options` gives it back (``guide=`` + ``quote_option(path)``)."""
    if "," not in value and not value.startswith('"'):
        return value
    return '"' + value.replace('"', '""') + '"'


def split_options(rest: str, name: str) -> list[tuple[str, str, str]]:
    """The ``key=value`` items of the options ``rest`` of the agent ``name``, as
    ``(item as written, key, value)`` (``value`` ``""`` and the item without ``=`` when it
    has none).  Items are separated by commas; a value in double quotes (``guide="a,b.pt"``)
    may hold commas, a ``""`` in it standing for one ``"``, as in CSV.

    Raises:
        ValueError: a quoted value without its closing quote, or with text after it
            before the next comma.
    """
    items, start = [], 0
    while True:
        key, sep, after = rest[start:].partition("=")
        if sep and "," not in key and after.startswith('"'):
            at = start + len(key) + 2  # the quoted text starts here
            parts = []
            while True:
                close = rest.find('"', at)
                if close < 0:
                    raise ValueError(
                        f'agent {name!r}: the value of {key} opens a quote that is not closed; write {key}="..." '
                        'with "" for a quote inside'
                    )
                parts.append(rest[at:close])
                if rest[close + 1 : close + 2] != '"':
                    break
                parts.append('"')
                at = close + 2
            end = close + 1
            if end < len(rest) and rest[end] != ",":
                raise ValueError(
                    f"agent {name!r}: text after the closing quote of {key}: {rest[end:].split(',')[0]!r}; "
                    "a quoted value ends the option, before a comma or the end"
                )
            items.append((rest[start:end], key, "".join(parts)))
        else:
            comma = rest.find(",", start)
            end = len(rest) if comma < 0 else comma
            item = rest[start:end]
            key, _, value = item.partition("=")
            items.append((item, key, value))
        if end >= len(rest):
            return items
        start = end + 1


def parse_search_spec(name: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=20,rollout=random"`` -> ``("pimc", {"worlds": 20, "rollout": "random"})``;
    a value in double quotes may hold commas (``pimc:guide="runs/a,b/model.pt",prior=0.05``:
    :func:`split_options`).

    Raises:
        ValueError: not a search agent, an unknown or empty option, a value of the wrong
            type, or an option outside its range (counts 1.. :data:`MAX_COUNT`, ``c`` >= 0,
            ``time`` in (0, :data:`MAX_TIME_S`], ``model`` in 0..1, numbers finite).
    """
    kind, _, rest = name.partition(":")
    if kind not in SEARCH_AGENTS:
        raise ValueError(f"{name!r} is not a search agent: write {' or '.join(SEARCH_AGENTS)}[:option=value,...]")
    options: dict[str, Any] = {}
    allowed = OPTIONS[kind]
    last = None
    for item, key, value in split_options(rest, name) if rest else []:
        if not item:  # a doubled or trailing comma: a typo, not an option left at its default
            raise ValueError(f"agent {name!r}: an empty option between commas; write {kind}:key=value,...")
        if "=" not in item or key not in allowed:
            cut = ""
            # after a path (guide=a,b/model.pt) the item is likely the rest of it, cut at its comma;
            # after rollout=random, x is a typo, and quoting would not help
            if "=" not in item and last in PATH_OPTIONS:
                cut = f'; a value holding a comma goes in double quotes ({last}="...")'
            raise ValueError(
                f"agent {name!r}: {item!r} is not an option of {kind}; write {kind}:key=value,... "
                f"with keys {', '.join(allowed)}{cut}"
            )
        last = key
        if key in options:
            raise ValueError(f"agent {name!r}: option {key} is given twice; give it once")
        try:
            options[key] = allowed[key](value)
        except ValueError:
            names = {int: "an integer", float: "a number", _model: "a number or mix"}
            kind_name = names.get(allowed[key], f"a {allowed[key].__name__}")
            raise ValueError(f"agent {name!r}: {key}={value!r} is not {kind_name}") from None
        if isinstance(options[key], float) and not math.isfinite(options[key]):  # nan, inf pass every range test
            raise ValueError(f"agent {name!r}: {key}={value!r} is not a finite number")
        bad = (
            (allowed[key] is int and not 1 <= options[key] <= MAX_COUNT)
            or (key in ("c", "prior") and options[key] < 0)
            or (key == "model" and options[key] != "mix" and not 0 <= options[key] <= 1)
            or (key == "time" and not 0 < options[key] <= MAX_TIME_S)
        )
        if bad:
            raise ValueError(
                f"agent {name!r}: {key}={value} is out of range (counts 1..{MAX_COUNT:,}, c >= 0, "
                f"time in (0, {MAX_TIME_S:g}] s, model 0..1)"
            )
    return kind, options


def make_search_agent(name: str, env: Any, seed: int | None = None) -> Any:
    """The search agent ``name`` (see :func:`parse_search_spec`) for ``env``, with the
    variant's defaults for the options it does not name.

    Raises:
        ValueError: a bad name or option (see :func:`parse_search_spec`), or
            ``rollout=heuristic`` on a variant without a heuristic, ``rollout=fast`` on a
            variant without compiled playouts, ``plan=plays`` off Rummikub or with an
            option it does not take.
    """
    kind, options = parse_search_spec(name)
    variant = env.unwrapped.metadata["name"]
    if kind == "pimc":
        from agents.search.rummikub_plan import make_plan_agent, plan_kind

        if plan_kind(variant, options) == "plays":
            return make_plan_agent(env, options, seed)
    return SEARCH_AGENTS[kind](env, seed=seed, **_with_defaults(kind, options, env))


def _with_defaults(kind: str, options: dict[str, Any], env: Any) -> dict[str, Any]:
    """``options`` of a step-by-step search over the variant's defaults (``plan`` dropped)."""
    variant = env.unwrapped.metadata["name"]
    options = {k: v for k, v in options.items() if k != "plan"}
    defaults = DEFAULTS[kind].get(variant, {})
    compiled = FAST_DEFAULTS.get(variant) if kind == "pimc" else None
    if compiled is not None and options.get("rollout", "fast") == "fast" and _numba_available():
        defaults = compiled
    elif compiled is not None and "rollout" not in options and "playout_style" not in options:
        # the variant's default is the compiled playouts; falling back to Python rollouts
        # costs seconds a decision where they take milliseconds: say so once per agent
        warnings.warn(
            f"pimc on {variant}: the compiled playouts are out (numba is not installed); it searches with "
            f"rollout={defaults.get('rollout', 'heuristic')}, much slower per decision",
            UserWarning,
            stacklevel=3,
        )
    elif "playout_style" in options and "rollout" not in options:
        # the style is one of the compiled one-round playouts: without numba the search plays without it
        warnings.warn(
            f"playout_style={options['playout_style']} plays in the compiled one-round playouts, which "
            f"need numba (not installed): {variant} searches with "
            f"rollout={defaults.get('rollout', 'heuristic')} for every seat instead",
            UserWarning,
            stacklevel=3,
        )
        options = {k: v for k, v in options.items() if k != "playout_style"}
    return {**defaults, **options}


def search_settings(name: str, env: Any) -> tuple[type, dict[str, Any]]:
    """The class :func:`make_search_agent` builds for ``name`` in ``env`` and every setting
    it gets (the options named, the variant's defaults, then the class's own defaults):
    two names with equal settings build the same agent (``pimc`` and ``pimc:model=1`` on
    Crazy Rummy).

    Raises:
        ValueError: as :func:`parse_search_spec`, or an unknown ``plan``.
    """
    kind, options = parse_search_spec(name)
    cls, named = SEARCH_AGENTS[kind], None
    if kind == "pimc":
        from agents.search.rummikub_plan import PLAN_DEFAULTS, RummikubPlanAgent, plan_kind

        if plan_kind(env.unwrapped.metadata["name"], options) == "plays":
            cls, named = RummikubPlanAgent, {**PLAN_DEFAULTS, **{k: v for k, v in options.items() if k != "plan"}}
    if named is None:
        named = _with_defaults(kind, options, env)
    empty = inspect.Parameter.empty
    params = inspect.signature(cls.__init__).parameters
    settings = {k: p.default for k, p in params.items() if k not in ("self", "env", "seed") and p.default is not empty}
    return cls, {**settings, **named}


__all__ = [
    "ISMCTSAgent",
    "PIMCAgent",
    "is_search_spec",
    "make_search_agent",
    "parse_search_spec",
    "search_settings",
]

"""The package's ids in PettingZoo's and Gymnasium's registries.

``import rummy_env`` calls :func:`install`.  It registers

- in PettingZoo's registry (PettingZoo 1.27 and later; 1.24 to 1.26 have none):
  ``rummy_env/rummy-v0``, ``rummy_env/gin_rummy-v0``, ``rummy_env/crazy_rummy-v0``,
  ``rummy_env/rummikub-v0``, the AEC ``env()`` of each variant:
  ``pettingzoo.make("aec", "rummy_env/gin_rummy-v0", knock_limit=5)``;
- in Gymnasium's registry: ``rummy_env/Rummy-v0``, ``rummy_env/GinRummy-v0``,
  ``rummy_env/CrazyRummy-v0``, ``rummy_env/Rummikub-v0``, the single-agent view
  (:func:`rummy_env.envs.single_agent.single_agent_env`):
  ``gymnasium.make("rummy_env/GinRummy-v0", opponents=..., knock_limit=5)``.

The package root must stay free of pettingzoo and gymnasium (the rules engines are
usable without them), so nothing here imports either: a framework already imported
gets the ids at once, one imported later gets them as soon as its own import has run
(a hook on ``sys.meta_path`` that waits for its name).  :func:`make` makes the AEC ids on
every supported PettingZoo version, registry or not.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

#: PettingZoo AEC ids -> entry points (``module:function``).
PETTINGZOO_IDS: dict[str, str] = {
    "rummy_env/rummy-v0": "rummy_env.rummy_v0:env",
    "rummy_env/gin_rummy-v0": "rummy_env.gin_rummy_v0:env",
    "rummy_env/crazy_rummy-v0": "rummy_env.crazy_rummy_v0:env",
    "rummy_env/rummikub-v0": "rummy_env.rummikub_v0:env",
}

#: Gymnasium ids of the single-agent view -> the variant module they play.
GYMNASIUM_IDS: dict[str, str] = {
    "rummy_env/Rummy-v0": "rummy_v0",
    "rummy_env/GinRummy-v0": "gin_rummy_v0",
    "rummy_env/CrazyRummy-v0": "crazy_rummy_v0",
    "rummy_env/Rummikub-v0": "rummikub_v0",
}

SINGLE_AGENT_ENTRY_POINT = "rummy_env.envs.single_agent:single_agent_env"


def register_pettingzoo() -> bool:
    """Register the AEC ids in PettingZoo's registry; False if this PettingZoo has none
    (before 1.27).  Ids already registered are left alone."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is None or registry is None:
        return False
    for env_id, entry_point in PETTINGZOO_IDS.items():
        if env_id not in registry:
            register("aec", env_id, entry_point=entry_point)
    return True


def register_gymnasium() -> None:
    """Register the single-agent ids in Gymnasium's registry (ids already there are left alone)."""
    from gymnasium.envs.registration import register, registry

    for env_id, variant in GYMNASIUM_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"variant": variant})


_REGISTER = {"pettingzoo": register_pettingzoo, "gymnasium": register_gymnasium}


def _run(name: str) -> None:
    try:
        _REGISTER[name]()
    except Exception as err:  # noqa: BLE001 - a registry we cannot fill must not break the import
        warnings.warn(f"rummy_env could not register its ids in {name}'s registry: {err!r}", stacklevel=2)


class _Loader(importlib.abc.Loader):
    """The framework's own loader, then the registration (the real loader is put back
    on the module before its code runs, so the module never sees this one)."""

    def __init__(self, loader: Any, name: str):
        self._loader, self._name = loader, name

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _run(self._name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for pettingzoo and gymnasium it asks the other finders and
    wraps the loader they give, so the ids are registered right after the import."""

    def __init__(self) -> None:
        self._busy: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _REGISTER or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, fullname)
        return spec


_HOOK = _RegisterOnImport()


def install() -> None:
    """Register the ids in the frameworks already imported, and in the others when they are."""
    for name in _REGISTER:
        if name in sys.modules:
            _run(name)
    if not all(name in sys.modules for name in _REGISTER) and _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def make(env_id: str, **options: Any) -> Any:
    """``<variant>.env(**options)`` by its PettingZoo id, on every supported PettingZoo
    (1.24 to 1.26 have no ``pettingzoo.make``): ``make("rummy_env/gin_rummy-v0", knock_limit=5)``.

    ``rummy_env/gin_rummy_v0`` is read as ``rummy_env/gin_rummy-v0``, as PettingZoo reads it.

    Raises:
        ValueError: an unknown id (the known ones are listed), or a bad option.
    """
    import importlib

    if not isinstance(env_id, str):
        raise ValueError(f"unknown env id {env_id!r}: rummy_env's ids are the strings {', '.join(PETTINGZOO_IDS)}")
    key = env_id.strip()
    if key.endswith("_v0"):
        key = key[: -len("_v0")] + "-v0"
    if key not in PETTINGZOO_IDS:
        raise ValueError(f"unknown env id {env_id!r}: rummy_env's ids are {', '.join(PETTINGZOO_IDS)}")
    module, _, function = PETTINGZOO_IDS[key].partition(":")
    return getattr(importlib.import_module(module), function)(**options)

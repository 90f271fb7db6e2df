"""Reading an sb3-contrib ``MaskablePPO`` ``model.zip`` without unpickling any of it.

SB3 stores a model as a zip of a JSON ``data`` file and torch ``.pth`` files.  Some JSON
entries (the policy class, the spaces, the schedules, the last rollout's observations)
are cloudpickle payloads, and ``MaskablePPO.load`` unpickles them: a ``model.zip`` from
somewhere else could run any code when it is loaded.  Playing a model needs none of those
payloads: the policy class is sb3-contrib's ``MaskableActorCriticPolicy`` (what
``experiments.train`` trains), and the spaces can be rebuilt from the plain-text fields SB3
writes beside each payload (a ``Box``'s shape and dtype, a ``Discrete``'s ``n``).  So
:func:`load_maskable_ppo` hands SB3 a replacement for every pickled entry
(``custom_objects``, which SB3 uses instead of unpickling), and SB3 2.8 and later read the
``.pth`` files with ``torch.load(weights_only=True)`` (tensors and plain values only).

Importing this module needs sb3-contrib (the ``train`` extra).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

#: entries that are schedules or rates: any number serves for playing (clip_range_vf is
#: optional, and SB3 checks that a number given for it is above 0: None switches it off)
_SCHEDULES = {"learning_rate": 0.0, "lr_schedule": 0.0, "clip_range": 0.0, "clip_range_vf": None}
#: the first SB3 that reads a model.zip's tensors with weights_only=True again (2.3.2 to 2.7
#: read them with weights_only=False, which unpickles whatever a .pth holds)
_SB3_SAFE = (2, 8)
_POLICY_MODULE = "sb3_contrib.common.maskable.policies"


def _serialized(value: Any) -> bool:
    return isinstance(value, dict) and ":serialized:" in value


def _shape(entry: dict, key: str, path: Path) -> tuple[int, ...]:
    try:
        raw = entry["_shape"]
        shape = tuple(int(n) for n in (json.loads(raw) if isinstance(raw, str) else raw))
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{path}: {key} has no readable shape (_shape)") from None
    return shape


def _space(entry: dict, key: str, path: Path) -> Any:
    """The ``Box`` or ``Discrete`` whose plain-text fields are ``entry``'s."""
    from gymnasium import spaces

    kind = entry.get(":type:", "")
    if kind == "<class 'gymnasium.spaces.box.Box'>":
        dtype = entry.get("dtype")
        if dtype not in ("float32", "float64"):
            raise ValueError(f"{path}: {key} is a Box of dtype {dtype!r}; a policy of ours reads float32 or float64")
        return spaces.Box(-np.inf, np.inf, shape=_shape(entry, key, path), dtype=np.dtype(dtype))
    if kind == "<class 'gymnasium.spaces.discrete.Discrete'>":
        try:
            n, start = int(entry["n"]), int(entry.get("start", "0"))
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path}: {key} has no readable action count (n)") from None
        if n < 1 or start != 0:
            raise ValueError(f"{path}: {key} is Discrete(n={n}, start={start}); a policy of ours has n >= 1, start 0")
        return spaces.Discrete(n)
    raise ValueError(
        f"{path}: {key} is a {kind or 'space of unknown type'}; a policy of ours has a gymnasium Box and a "
        "gymnasium Discrete"
    )


def safe_objects(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A replacement for every pickled entry of a ``model.zip``'s ``data``, for
    ``MaskablePPO.load(custom_objects=...)``.

    Args:
        data: the zip's ``data`` file, parsed JSON.
        path: the file, for messages.

    Returns:
        ``{key: value}`` for each entry holding a ``:serialized:`` payload: the policy
        class, the spaces rebuilt from their text fields, 0.0 for the schedules, None for
        the rest (rollout state and statistics a played model never reads).

    Raises:
        ValueError: the policy is not sb3-contrib's ``MaskableActorCriticPolicy``, a space
            is not a float ``Box`` / ``Discrete`` with readable fields, or
            ``policy_kwargs`` is pickled (it names classes, such as an activation, that
            shape the network and cannot be read without unpickling).
    """
    objects: dict[str, Any] = {}
    for key, value in data.items():
        if not _serialized(value):
            continue
        if key == "policy_class":
            init = str(value.get("__init__", ""))  # "<function Class.__init__ at 0x...>": names the class
            named = re.match(r"<function (\w+)\.__init__ ", init)
            if value.get("__module__") != _POLICY_MODULE or named is None or named[1] != "MaskableActorCriticPolicy":
                what = f"{value.get('__module__')}.{named[1] if named else '?'}"
                raise ValueError(
                    f"{path}: its policy class is {what}, not sb3-contrib's MaskableActorCriticPolicy; only the "
                    "MlpPolicy of experiments.train is read"
                )
            objects[key] = MaskableActorCriticPolicy
        elif key in ("observation_space", "action_space"):
            objects[key] = _space(value, key, path)
        elif key == "policy_kwargs":
            settings = sorted(k for k in value if not k.startswith(":"))
            raise ValueError(
                f"{path}: its policy_kwargs are pickled (settings {', '.join(settings) or '?'}: one names a class, "
                "an activation for example); only plain settings such as net_arch are read without running the "
                "file's code"
            )
        else:
            objects[key] = _SCHEDULES.get(key)
    return objects


def load_maskable_ppo(path: Path) -> Any:
    """An sb3-contrib ``MaskablePPO`` from ``path`` on the CPU, read without unpickling.

    Args:
        path: a ``model.zip`` (``experiments.train``, or any MaskablePPO with an MLP policy
            over a flat ``Box`` observation and a ``Discrete`` action space).

    Returns:
        the model, for ``predict`` and ``policy`` (not for training on: its schedules and
        rollout state are placeholders).

    Raises:
        ValueError: stable-baselines3 older than 2.8 (it unpickles the tensors), not a
            zip, no ``data`` entry or not JSON, or :func:`safe_objects` refuses an entry; SB3's
            own errors (a ``.pth`` holding more than tensors and plain values, a network of
            other sizes) pass through for the caller to word.
    """
    import stable_baselines3

    version = tuple(int(x) for x in re.findall(r"\d+", stable_baselines3.__version__)[:2])
    if version < _SB3_SAFE:
        raise ValueError(
            f"{path}: stable-baselines3 {stable_baselines3.__version__} reads a model.zip's tensors by unpickling "
            'them; 2.8 or later reads them as tensors only: pip install -e ".[train]"'
        )
    try:  # read once: SB3 reads these bytes, not a file that could be swapped after the check
        raw = Path(path).read_bytes()
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError, OSError) as err:
        raise ValueError(f"{path}: not an SB3 model.zip ({type(err).__name__}: {err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: its data entry is not a JSON object")
    return MaskablePPO.load(io.BytesIO(raw), device="cpu", custom_objects=safe_objects(data, path))

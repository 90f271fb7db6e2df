"""``--resume``: continue a stopped ``experiments.train`` run in its folder (``--out``), as
``experiments.selfplay --resume`` does.

A run writes its settings to ``settings.json`` right after its checkpoint (``model.zip``
for sb3, ``checkpoint/`` for rllib), and a new run removes an earlier run's
``settings.json`` as it starts: a folder's settings always belong to its checkpoint, and a
run killed before its first checkpoint leaves nothing to resume by mistake (a checkpoint
without settings is refused, naming it).  Written the other way round, a new run killed
between the two writes would leave its settings beside the earlier run's checkpoint.  A resumed run
takes the saved settings, except the limits and evaluation settings given again on the
command line (:data:`KEPT`) and this machine's (``--workers``, ``--address``,
``--num-cpus``, ``--no-progress``); a setting that builds the model or the games
(:data:`FIXED`) given with another value is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from experiments.common import MAX_ROLLOUT_STEPS, atomic_open

#: the largest --seed: Stable-Baselines3 and RLlib pass it to numpy.random.seed (0..2**32-1)
MAX_TRAIN_SEED = 2**32 - 1


def session_seed(seed: int, done: int) -> int:
    """The seed of a session that goes on from ``done`` timesteps (sb3) or iterations (rllib)
    of a run started with ``seed``: ``seed + done``, so that it deals new games, wrapped into
    0..:data:`MAX_TRAIN_SEED` (NumPy's legacy generator refused ``--seed 4294967295`` on resume)."""
    return (seed + done) % (MAX_TRAIN_SEED + 1)


SETTINGS = "settings.json"


class ResumeError(ValueError):
    """The checkpoint of a run to resume cannot be loaded into the run's learner (damaged, or
    not the run's): the message names the file; nothing is written."""


#: the settings that build the model, its updates or the games: a resumed run keeps them
FIXED = (
    "backend",
    "variant",
    "env_options",
    "opponents",
    "seed",
    "net_arch",
    "n_steps",
    "batch_size",
    "minibatch_size",
    "epochs",
)
#: the settings a resumed run takes from its folder unless given again (its limits among them)
KEPT = ("timesteps", "minutes", "iterations", "snapshot_every", "eval_deals", "env_runners")
#: the settings of each backend (the other's are not saved: they play no part in its run)
BACKEND_SETTINGS = {
    "sb3": tuple(
        k for k in FIXED + KEPT if k not in ("batch_size", "minibatch_size", "epochs", "iterations", "env_runners")
    ),
    "rllib": tuple(k for k in FIXED + KEPT if k not in ("opponents", "n_steps", "timesteps", "snapshot_every")),
}
#: the checkpoint each backend writes in the run's folder
CHECKPOINTS = {"sb3": "model.zip", "rllib": "checkpoint"}


def earlier_checkpoint(checkpoint: Path) -> Path:
    """Where an rllib save moves the run's ``checkpoint/`` while it puts the new one in its
    place (``checkpoint.old/``, :func:`experiments.train.rllib.save_checkpoint`)."""
    return checkpoint.with_name(checkpoint.name + ".old")


def resumed_checkpoint(out: Path, backend: str) -> Path | None:
    """The checkpoint a resumed run of ``backend`` in ``out`` continues from: the backend's
    (:data:`CHECKPOINTS`), or, when an rllib save was killed between its two renames,
    ``checkpoint.old/`` (:func:`earlier_checkpoint`): the checkpoint ``settings.json`` was
    written with, whole (the new save in ``checkpoint.part/`` has no settings of its own: its
    session was stopped before writing them).  None: no checkpoint to continue from."""
    checkpoint = out / CHECKPOINTS[backend]
    if checkpoint.exists():
        return checkpoint
    if backend == "rllib" and earlier_checkpoint(checkpoint).is_dir():
        return earlier_checkpoint(checkpoint)
    return None


def resuming_line(variant: str, out: Path, backend: str) -> str:
    """What a resumed run prints as it starts: the checkpoint it continues from, and why when
    that is ``checkpoint.old/`` (:func:`resumed_checkpoint`)."""
    found = resumed_checkpoint(out, backend) or out / CHECKPOINTS[backend]
    line = f"{variant}: resuming {out}/{found.name}"
    if found.name != CHECKPOINTS[backend]:
        line += (
            f" (the run was stopped as a newer save was taking the place of {CHECKPOINTS[backend]}/: this earlier "
            f"one is the checkpoint {SETTINGS} belongs to; it goes back to {CHECKPOINTS[backend]}/, and the "
            "iterations after it are trained again)"
        )
    return line


_COUNT, _POSITIVE = "an integer >= 0", "a positive integer"


def _integer(value: Any, low: int, high: float = float("inf")) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _rollout(value: Any) -> bool:
    return _integer(value, 2, MAX_ROLLOUT_STEPS)


#: the values a run writes, by setting: (a check, what is allowed) -- a hand-edited or damaged
#: value is refused naming ``settings.json``, not blamed on a flag the command line did not give
_VALUES: dict[str, tuple[Any, str]] = {
    "backend": (lambda v: isinstance(v, str) and v in ("sb3", "rllib"), "sb3 or rllib"),
    "variant": (lambda v: isinstance(v, str) and v != "", "a variant's name"),
    "env_options": (
        lambda v: isinstance(v, dict) and all(isinstance(x, bool | int | str) for x in v.values()),
        "env options: names with true, false, integer or text values",
    ),
    "opponents": (
        lambda v: isinstance(v, list) and v != [] and all(isinstance(x, str) for x in v),
        "a list of opponent names",
    ),
    "net_arch": (
        lambda v: isinstance(v, list) and v != [] and all(_integer(x, 1) for x in v),
        "a list of positive integers",
    ),
    "n_steps": (_rollout, f"an integer from 2 to {MAX_ROLLOUT_STEPS:,}"),
    "minutes": (
        lambda v: v is None or (isinstance(v, int | float) and not isinstance(v, bool) and 0 < v < float("inf")),
        "null or a positive number",
    ),
    "seed": (lambda v: _integer(v, 0, MAX_TRAIN_SEED), f"an integer from 0 to {MAX_TRAIN_SEED}"),
    **{k: (lambda v: _integer(v, 0), _COUNT) for k in ("eval_deals", "env_runners")},
    **{
        k: (lambda v: _integer(v, 1), _POSITIVE)
        for k in ("timesteps", "snapshot_every", "iterations", "batch_size", "minibatch_size", "epochs")
    },
}


def flag(name: str) -> str:
    """The command-line flag of a setting: ``--n-steps`` for ``n_steps``."""
    return "--env-option" if name == "env_options" else "--" + name.replace("_", "-")


def shown(name: str, value: Any) -> str:
    """A setting's value as the command line gives it: ``64,64``, ``random heuristic``, ``knock_limit=5``."""
    if name == "net_arch":
        return ",".join(map(str, value))
    if name == "opponents":
        return " ".join(value)
    if name == "env_options":
        return " ".join(f"{k}={v}" for k, v in value.items()) or "(none)"
    return str(value)


def settings_of(args: Any) -> dict[str, Any]:
    """The settings of parsed arguments that ``settings.json`` keeps: those of :data:`FIXED`
    and :data:`KEPT` that the backend uses (:data:`BACKEND_SETTINGS`)."""
    return {k: getattr(args, k) for k in BACKEND_SETTINGS[args.backend]}


def write_settings(settings: dict[str, Any], out: Path) -> None:
    """Write ``settings.json`` in ``out`` (atomically: a cut file would leave the run unresumable)."""
    with atomic_open(out / SETTINGS, "w") as f:
        json.dump({"job": "experiments.train", **settings}, f, indent=2)


def forget_settings(out: Path) -> None:
    """Remove an earlier run's ``settings.json`` from ``out`` as a new run starts there: until
    the new run writes its checkpoint, the earlier checkpoint must not look resumable with
    the new run's settings, nor with its own (the new run replaces it)."""
    (out / SETTINGS).unlink(missing_ok=True)


def load_settings(out: Path) -> dict[str, Any]:
    """The saved settings of the run in ``out``, checked for ``--resume``.

    Raises:
        ValueError: ``out`` is not a folder, holds no ``settings.json`` (a self-play run's
            folder is named as such), an unreadable or incomplete one, one with a value no
            run writes (the message names it and what is allowed), or no checkpoint of the
            run's backend.
    """
    if not out.is_dir():
        raise ValueError(f"--resume: no folder {str(out)!r}: give the --out folder of the run to continue")
    path = out / SETTINGS
    if not path.is_file():
        if (out / "checkpoint.pt").is_file() or (out / "recipe.toml").is_file():
            raise ValueError(
                f"--resume: {out} holds a run of experiments.selfplay, not of experiments.train: "
                f"continue it with python -m experiments.selfplay --resume --out {out}"
            )
        # a run writes its settings right after its checkpoint, and a new run removes the earlier
        # run's as it starts: a kill in either gap leaves a checkpoint whose settings are unknown (so
        # does a run older than --resume, such as the committed docs/results/sb3-gin/); the
        # checkpoint.old/ of a new run's first save killed between its renames is one too
        names = (*CHECKPOINTS.values(), earlier_checkpoint(Path(CHECKPOINTS["rllib"])).name)
        left = [p for p in (out / name for name in names) if p.exists()]
        if left:
            raise ValueError(
                f"--resume: {left[0]} has no {SETTINGS} beside it, so the settings to continue it with are "
                f"unknown (a run writes {SETTINGS} right after its checkpoint: it was stopped in between, a new "
                "run started in the folder was stopped before its first checkpoint, or the run is older than "
                f"--resume): start a new run without --resume (in {out} it replaces {left[0].name})"
            )
        raise ValueError(
            f"--resume: no {SETTINGS} in {out}: not the folder of an experiments.train run that wrote its "
            "checkpoint (a run writes it with its checkpoint; one started before --resume existed has none)"
        )
    try:
        saved = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"--resume: {path} cannot be read ({type(err).__name__}: {err})") from None
    backend = saved.get("backend") if isinstance(saved, dict) else None
    names = BACKEND_SETTINGS.get(backend, ("backend",)) if isinstance(backend, str) else ("backend",)
    missing = [k for k in names if not isinstance(saved, dict) or k not in saved]
    if missing or saved.get("job") != "experiments.train":
        raise ValueError(
            f"--resume: {path} is not the settings of an experiments.train run "
            f"(it lacks {', '.join(missing or ['job'])}): only the {SETTINGS} a run writes resumes it"
        )
    for name, value in saved.items():
        valid, allowed = _VALUES.get(name, (lambda v: True, ""))
        if not valid(value):
            raise ValueError(f"--resume: {path} has {name}={value!r}, not a value a run writes ({allowed})")
    if resumed_checkpoint(out, backend) is None:
        raise ValueError(
            f"--resume: no {CHECKPOINTS[backend]} in {out}: the --backend {backend} run has no checkpoint "
            "to continue from"
        )
    return saved


def given_value(args: Any, name: str) -> Any:
    """The value of setting ``name`` in the parsed arguments, in the form ``settings.json``
    keeps it (the variant's full name, the options and layer sizes parsed).

    Raises:
        ValueError: a bad value (the command line's checks name it).
    """
    from experiments.common import parse_env_options, resolve_variant

    if name == "variant":
        return resolve_variant(args.variant)
    if name == "env_options":
        return parse_env_options(args.env_option)
    if name == "net_arch":
        return [int(x) for x in str(args.net_arch).split(",")]
    return getattr(args, name)


def _same_games(saved: dict[str, Any], env_options: dict[str, Any]) -> bool:
    """Whether ``env_options`` make the games of the run's (``knock_limit=10``, Gin's default,
    given again to a run started without it): the variant's game configs compare equal.
    A bad option is no match (the command line's checks name it)."""
    from experiments.common import load_variant

    try:
        configs = [
            load_variant(saved["variant"]).env(**o).unwrapped.game.config for o in (saved["env_options"], env_options)
        ]
    except (ValueError, TypeError, AttributeError):
        return False
    return configs[0] == configs[1]


def refuse_changes(args: Any, saved: dict[str, Any], given: set[str]) -> None:
    """Refuse the settings given on the command line that the resumed run cannot change.

    Args:
        args: the parsed arguments.
        saved: the run's settings (:func:`load_settings`).
        given: the names of the settings given on the command line.

    Raises:
        ValueError: a :data:`FIXED` setting given with another value than the run's; the
            message names each flag, the value given and the run's.  (A bad value is left
            to the command line's own checks.)
    """
    values = {}
    for k in FIXED:
        if k in given and k in saved:
            try:
                values[k] = given_value(args, k)
            except ValueError:
                continue
    changed = [k for k, v in values.items() if v != saved[k] and not (k == "env_options" and _same_games(saved, v))]
    if changed:
        listed = ", ".join(f"{flag(k)} {shown(k, values[k])} (the run's: {shown(k, saved[k])})" for k in changed)
        raise ValueError(f"--resume continues the run as it was started: {listed}; drop them or start a new run")


def trimmed_rows(path: Path, column: str, upto: int, kinds: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the CSV log ``path`` up to the checkpoint (``column`` at most ``upto``),
    each value converted by its ``kinds`` (``{"timestep": int, "return": float}``): rows a
    session wrote after its last checkpoint are dropped, so none is logged twice.  No file:
    no rows.

    Raises:
        ResumeError: ``path`` cannot be read, or a row is not one a run writes (the message
            names its line and values); read before the training, so nothing is written.
    """
    import csv

    if not path.is_file():
        return []
    rows = []
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            for r in reader:
                try:
                    if kinds[column](r[column]) > upto:
                        continue
                    rows.append({k: kind(r[k]) for k, kind in kinds.items()})
                except (KeyError, TypeError, ValueError):
                    values = ", ".join(f"{k}={r.get(k)!r}" for k in kinds)
                    raise ResumeError(
                        f"--resume: {path} line {reader.line_num} is not a row a run writes ({values}): "
                        "mend it, or remove it to resume without the earlier rows"
                    ) from None
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise ResumeError(f"--resume: {path} cannot be read ({type(err).__name__}: {err})") from None
    return rows

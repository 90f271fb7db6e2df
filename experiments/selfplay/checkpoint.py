"""What a self-play run's ``checkpoint.pt`` holds, and how ``--resume`` continues from it.

The checkpoint is :meth:`experiments.selfplay.learner.Learner.state`: the settings, the
network and optimizer, the pool, the counters and both generators.  A resumed run keeps
the saved settings (its limits too) except its threads and the settings given again on
the command line, and its logs go on from the checkpoint: rows that ``scalars.csv`` and
``eval.csv`` got after it (a run killed between checkpoints) are dropped, so no update is
logged twice.  A new run in a folder that holds an earlier one removes that run's files
first (:func:`clear_earlier_run`): the curves never mix two runs, and the earlier checkpoint
cannot be resumed by mistake.
"""

from __future__ import annotations

import contextlib
import csv
import time
from pathlib import Path
from typing import Any

from experiments.selfplay.config import Config

#: the logs of a run whose rows carry the update count
LOGS = ("scalars.csv", "eval.csv")


def save_checkpoint(learner: Any, out: Path) -> Path:
    """Write ``checkpoint.pt`` in ``out`` atomically (a temporary file, then a rename); its
    seconds go to ``learner.timers["checkpoint"]``, not to the training time (a large network
    and pool take seconds to write, every ``--checkpoint-every`` minutes)."""
    import torch

    start = time.perf_counter()
    path = out / "checkpoint.pt"
    tmp = path.with_suffix(".tmp")
    torch.save(learner.state(), tmp)
    tmp.replace(path)
    learner.timers["checkpoint"] += time.perf_counter() - start
    return path


def load_checkpoint(out: Path) -> dict[str, Any]:
    """The state saved in ``out/checkpoint.pt``.

    Raises:
        FileNotFoundError: there is none.
        ValueError: the file is not a checkpoint of this job (unreadable, holding objects
            other than tensors and plain values, or without the parts it saves: another
            file copied in, such as a ``model.pt``).
    """
    import torch

    path = out / "checkpoint.pt"
    if not path.is_file():
        raise FileNotFoundError(f"--resume: no checkpoint.pt in {out}")
    try:
        # weights_only: a checkpoint is tensors and plain values, so a file made to run code
        # when unpickled (any pickle can) is refused instead of run
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises pickle's, zipfile's and its own errors for a damaged file
        raise ValueError(f"--resume: {path} cannot be read as a checkpoint ({type(err).__name__}: {err})") from None
    missing = [k for k in ("config", "net", "optimizer", "counters") if not isinstance(state, dict) or k not in state]
    if missing:
        raise ValueError(
            f"--resume: {path} is not a checkpoint of experiments.selfplay (it lacks {', '.join(missing)}): "
            "only the checkpoint.pt a run writes resumes it"
        )
    return state


def resumed_config(saved: dict, given_config: Config, given: set[str]) -> Config:
    """The settings of a resumed run.

    Args:
        saved: the checkpoint's ``config`` (``asdict`` of the run's :class:`Config`).
        given_config: the settings parsed from the command line now.
        given: the names of the settings given on the command line now.

    Returns:
        the saved run's settings, except the threads, device and evaluation backend (this
        machine's) and the
        settings given now (the limits ``timesteps`` and ``minutes`` among them: not
        given, the run keeps its own); never those that shape the network or the games.

    Raises:
        ValueError: a setting that shapes the network or the games (variant, options,
            hidden sizes, features, number of games, seed) given with another value than
            the run's.
    """
    fixed = ("variant", "env_options", "hidden", "features", "num_envs", "seed")
    saved_fixed = {k: tuple(saved[k]) if k == "hidden" else saved[k] for k in fixed if k in saved}
    # the saved settings are the learner's, resolved: "auto" features became the variant's,
    # and a run started from init_model took that model's hidden sizes and features
    unresolved = {"features"} if given_config.features == "auto" else set()
    if saved.get("init_model"):
        unresolved |= {"hidden", "features"}
    changed = [
        k
        for k in fixed
        if k in given and k in saved_fixed and k not in unresolved and getattr(given_config, k) != saved_fixed[k]
    ]
    if changed:
        listed = ", ".join(f"{k}={getattr(given_config, k)!r} (the run's: {saved_fixed[k]!r})" for k in changed)
        raise ValueError(f"--resume continues the run as it was built: {listed}; drop them or start a new run")
    keep = {"sim_threads", "torch_threads", "eval_workers", "backend", "address", "device"}
    keep |= given - set(fixed)
    fields = set(Config.__dataclass_fields__)
    old = {k: v for k, v in saved.items() if k in fields}  # a setting added since the checkpoint takes its default
    return Config(**{**old, "hidden": tuple(saved["hidden"]), **{k: getattr(given_config, k) for k in keep}})


def holds_run(out: Path) -> bool:
    """Whether ``out`` holds a self-play run: its ``recipe.toml`` (written when a run starts)
    or ``checkpoint.pt``."""
    return (out / "recipe.toml").is_file() or (out / "checkpoint.pt").is_file()


def named_files(config: Config) -> set[Path]:
    """The files ``config`` names (resolved): ``init_model``, the ``policy:PATH`` and
    ``guide=PATH`` of the league, the teacher agent and the evaluation opponents, and the
    teacher labels."""
    from agents.search import is_search_spec, parse_search_spec
    from experiments.selfplay.config import eval_opponents, league_members

    names = [config.teacher_agent, *(n for n, _ in league_members(config)), *(eval_opponents(config) or ())]
    paths = [config.init_model, *config.teacher_labels.split(",")]
    for name in names:
        if name.startswith("policy:"):
            paths.append(name[len("policy:") :])
        with contextlib.suppress(ValueError):  # a bad name names no file (the Learner refuses it first)
            paths.append(parse_search_spec(name)[1].get("guide", "") if is_search_spec(name) else "")
    return {Path(p).resolve() for p in paths if p}


def clear_earlier_run(out: Path, keep: set[Path] = frozenset()) -> list[str]:
    """Remove what an earlier run left in ``out``, so that a new run neither appends to its
    logs nor leaves its checkpoint to be resumed: ``checkpoint.pt``, ``model.pt``,
    ``summary.json``, ``curve.png``, ``scalars.csv``, ``eval.csv`` and
    ``snapshots/model-*.pt``, but not the files in ``keep`` (those the new run's settings
    name: :func:`named_files`).  Only in a folder that holds a run (:func:`holds_run`): files
    of those names in any other folder are left alone.

    Returns:
        the names removed (``snapshots/`` once for its models), in that order.
    """
    removed: list[str] = []
    if not holds_run(out):
        return removed
    for name in ("checkpoint.pt", "model.pt", "summary.json", "curve.png", *LOGS):
        path = out / name
        if path.is_file() and path.resolve() not in keep:
            path.unlink()
            removed.append(name)
    snapshots = sorted((out / "snapshots").glob("model-*.pt")) if (out / "snapshots").is_dir() else []
    snapshots = [p for p in snapshots if p.resolve() not in keep]
    for path in snapshots:
        path.unlink()
    if snapshots:
        removed.append("snapshots/")
    return removed


def trim_logs(out: Path, updates: int) -> int:
    """Drop the rows of ``scalars.csv`` and ``eval.csv`` logged after update ``updates`` (the
    checkpoint's): the resumed run logs those updates again.

    Returns:
        the number of rows dropped.
    """
    dropped = 0
    for name in LOGS:
        path = out / name
        if not path.is_file():
            continue
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            continue
        keep = [r for r in rows if int(r["updates"]) <= updates]
        dropped += len(rows) - len(keep)
        if len(keep) < len(rows):
            tmp = path.with_suffix(".tmp")
            with open(tmp, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(keep)
            tmp.replace(path)
    return dropped

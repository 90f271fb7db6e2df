"""One self-play run, top to bottom: settings, the learner and its opponents, the batched
games, then rollouts and PPO updates until the budget is spent, with evaluations and
checkpoints on the way, and the model, its final evaluation and the summary at the end.

Ctrl-C (or SIGTERM) stops the loop after the update in progress: the checkpoint and
``model.pt`` are written, the final evaluation is skipped, and ``--resume`` continues.
"""

from __future__ import annotations

import copy
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common import atomic_open, load_variant, output_folder, program_name
from experiments.common.interrupt import StopRequest
from experiments.common.progress import progress_counter
from experiments.selfplay.checkpoint import (
    clear_earlier_run,
    load_checkpoint,
    named_files,
    resumed_config,
    save_checkpoint,
    trim_logs,
)
from experiments.selfplay.cli import parse_args
from experiments.selfplay.config import Config, vector_class, write_recipe
from experiments.selfplay.learner import Learner
from experiments.selfplay.logs import append_csv, evaluate_now, scalars_row, summary, write_curve
from experiments.selfplay.opponents import Opponents
from experiments.selfplay.rollout import RECENT, collect
from experiments.selfplay.update import ppo_update


def make_vec(cfg: Config, updates: int) -> Any:
    """A fresh batched engine of the run's variant and options, seeded from the run seed and
    the update count (a resumed run plays new deals)."""
    seed = int(np.random.SeedSequence([cfg.seed, updates]).generate_state(1)[0] % 2**31)
    return vector_class(cfg.variant)(cfg.num_envs, seed=seed, num_threads=cfg.sim_threads, **cfg.env_options)


def train(
    learner: Learner,
    out: Path,
    state: dict[str, Any] | None = None,
    progress: bool = True,
    stop: StopRequest | None = None,
) -> dict[str, Any]:
    """Train until ``cfg.timesteps`` env steps or ``cfg.minutes`` training minutes are spent.

    Args:
        learner: a new :class:`Learner` of the run's settings (``Learner(cfg)``).
        out: the run's folder (created).
        state: a checkpoint to continue from (``--resume``; one whose budget is spent trains
            nothing: it makes the final evaluation if a stop skipped it, else writes
            nothing), or None for a new run (an
            earlier run's files in ``out`` are removed first, but those the settings name,
            and a line says so: :func:`~experiments.selfplay.checkpoint.clear_earlier_run`).
        progress: show progress bars (training minutes or steps; the final evaluation's deals).
        stop: a stop request (Ctrl-C): the loop ends after the update in progress.

    Returns:
        the run's summary (also written to ``summary.json``).
    """
    # the learner (network, optimizer, counters) and who plays the other seats
    cfg = learner.cfg
    if state is not None:
        learner.load_state(state)
        if learner.finished() and not final_evaluation_missing(out, cfg, learner):
            print(
                f"{cfg.variant}: the run has spent its budget ({learner.steps} steps, "
                f"{learner.training_minutes():.2f} training min; --timesteps {cfg.timesteps}, "
                f"--minutes {cfg.minutes}): nothing to train; give a larger --minutes or --timesteps to go on "
                f"(its results are in {out}/)"
            )
            return summary(learner, [])
        if learner.finished():  # stopped in its last update or its final evaluation: make that now
            print(f"{cfg.variant}: the run has spent its budget; its final evaluation is missing: making it now")
            learner.stop_clock()
            return finish(learner, out, progress, stop)
        trim_logs(out, learner.updates)
    elif out.is_dir():
        removed = clear_earlier_run(out, named_files(cfg))
        if removed:
            print(
                f"{cfg.variant}: {out}/ held an earlier run: removed its {', '.join(removed)} (--resume continues one)"
            )
    opponents = Opponents(learner, load_variant(cfg.variant).env(**cfg.env_options))
    out.mkdir(parents=True, exist_ok=True)
    write_recipe(cfg, out / "recipe.toml")
    stopped = (lambda: stop.requested) if stop is not None else (lambda: False)

    # the games
    vec = make_vec(cfg, learner.updates)
    opponents.bind(vec)
    batch = vec.reset()
    recent = dict.fromkeys(RECENT, 0)
    learner.start_session()
    if learner.updates == 0 and cfg.initial_eval:
        evaluate_now(learner, out, cfg.eval_deals, stop=stop)
    last_eval = last_ckpt = time.perf_counter()

    # the bar counts training minutes when there is a time budget, env steps otherwise
    by_time = cfg.minutes is not None
    bar = progress_counter(
        round(cfg.minutes, 2) if by_time else cfg.timesteps,
        "training min" if by_time else "step",
        cfg.variant,
        enabled=progress,
        initial=round(learner.training_minutes(), 2) if by_time else learner.steps,
        bar_format="{l_bar}{bar}| {n:.2f}/{total} training min [{elapsed}<{remaining}{postfix}]" if by_time else None,
    )
    bar.set_description(cfg.variant)
    while not learner.finished() and not stopped():
        t0 = time.perf_counter()
        steps0 = learner.steps
        buf, batch = collect(learner, opponents, vec, batch, recent)
        t1 = time.perf_counter()
        stats = ppo_update(learner, vec, buf, batch)
        t2 = time.perf_counter()
        learner.timers["update"] += t2 - t1
        if cfg.snapshot_every and learner.updates % cfg.snapshot_every == 0:
            learner.pool = (learner.pool + [copy.deepcopy(learner.net.state_dict())])[-cfg.pool_size :]
        speed = {"steps_per_s": (learner.steps - steps0) / (t2 - t0), "rollout_s": t1 - t0, "update_s": t2 - t1}
        append_csv(out / "scalars.csv", [scalars_row(learner, {**stats, **speed}, recent)])
        bar.set_postfix(
            steps=learner.steps,
            ent=f"{stats['entropy']:.2f}",
            kl=f"{stats['kl']:.3f}",
            ev=f"{stats['explained_var']:.2f}",
        )  # before the update: a log file's line carries this update's figures
        bar.update((round(learner.training_minutes(), 2) if by_time else learner.steps) - bar.n)
        now = time.perf_counter()
        if now - last_eval >= 60 * cfg.eval_every and not stopped():
            evaluate_now(learner, out, cfg.eval_deals, stop=stop)
            last_eval = time.perf_counter()
        if now - last_ckpt >= 60 * cfg.checkpoint_every:
            save_checkpoint(learner, out)
            last_ckpt = now
    bar.close()
    learner.stop_clock()  # saving and drawing below are not training time

    save_checkpoint(learner, out)
    vec.close()
    return finish(learner, out, progress, stop)


def finish(learner: Learner, out: Path, progress: bool = True, stop: StopRequest | None = None) -> dict[str, Any]:
    """The end of a run whose checkpoint is written: ``model.pt``, the final evaluation (not
    after a stop), the curve and ``summary.json``; returns the summary.  The run stopped
    early when a stop came before its last update or during its final evaluation; one
    that comes later (while the curve is drawn) finds the run complete."""
    cfg = learner.cfg
    stopped = (lambda: stop.requested) if stop is not None else (lambda: False)
    model = learner.save_model(out / "model.pt")
    final = []
    early = stopped()
    if cfg.final_eval_deals and not early:
        final = evaluate_now(learner, out, cfg.final_eval_deals, path=model, final=True, stop=stop, progress=progress)
        early = not final and stopped()  # [] after a stop during it: a partial evaluation is no figure
    if (out / "eval.csv").is_file():
        write_curve(out)
    result = summary(learner, final, stopped=early)
    with atomic_open(out / "summary.json", "w") as f:
        json.dump(result, f, indent=2)
    return result


def final_evaluation_missing(out: Path, cfg: Any, learner: Learner) -> bool:
    """Whether the run in ``out`` lacks the final evaluation its settings ask for: no
    ``summary.json`` of its last step, or one written by a stopped run."""
    if not cfg.final_eval_deals:
        return False
    try:
        written = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return True
    return written.get("steps") != learner.steps or bool(written.get("stopped_early")) or not written.get("evaluation")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.selfplay``: parse the settings, train, print the summary."""
    cfg, out, resume, progress, given = parse_args(argv)
    prog = program_name("experiments.selfplay", "rummy-selfplay")
    state = None
    if resume:
        try:
            state = load_checkpoint(out)
            cfg = resumed_config(state["config"], cfg, given)
        except (FileNotFoundError, ValueError) as err:
            print(f"{prog}: error: {err}", file=sys.stderr)
            return 2
    try:
        learner = Learner(cfg)  # every setting is checked before the run starts (and before its folder exists)
        out = output_folder(out, "selfplay", job="selfplay")  # a bad path fails now, not at the first checkpoint
    except (ValueError, TypeError) as err:  # TypeError: a checkpoint's setting of the wrong type
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    if state is not None:
        try:  # a checkpoint that loads but whose parts do not fit: refused before anything is written
            learner.load_state(state)
        except (RuntimeError, KeyError, TypeError, ValueError, AttributeError) as err:
            print(
                f"{prog}: error: --resume: {out}/checkpoint.pt does not fit this run "
                f"({type(err).__name__}: {err}): only the checkpoint.pt a run writes resumes it",
                file=sys.stderr,
            )
            return 2
    print(f"{cfg.variant}: resuming {out}/checkpoint.pt" if state is not None else f"{cfg.variant}: {learner.origin}")
    with StopRequest("selfplay", "stopping after this update; then the checkpoint and model.pt are written") as stop:
        result = train(learner, out, state, progress=progress, stop=stop)
    print(
        f"{cfg.variant}: {result['steps']} steps in {result['minutes']} training min "
        f"({result['steps_per_s_training']} steps/s of training, {result['sim_share_of_training']:.0%} in simulation)"
    )
    if result["stopped_early"]:
        print(stop.kept(f"checkpoint.pt and model.pt in {out}/ (the final evaluation was skipped); --resume continues"))
        return stop.exit_code
    for r in result["evaluation"]:
        print(
            f"  vs {r['opponent']:<10} win rate {r['win_rate']:.3f} "
            f"[{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}] over {r['games']} games"
        )
    print(f"model, curves{' and evaluation' if result['evaluation'] else ''} in {out}/")
    return 0

"""Self-play training with RLlib PPO on a Ray cluster: ``experiments.train --backend rllib``.

    python -m experiments.train --backend rllib --variant gin_rummy --iterations 50
    python -m experiments.train --backend rllib --variant gin_rummy --address auto --env-runners 8

One policy (``"shared"``) plays every seat (self-play) through RLlib's ``PettingZooEnv``
over ``<variant>.env()``; its RLModule is :class:`agents.rllib_policy.MaskedPPOTorchRLModule`,
which never samples an illegal action.  The env runners sample in parallel on the Ray
cluster (``--address``: an existing cluster, e.g. ``auto`` or ``ray://host:10001``;
default: a local cluster of this machine's CPUs).  The job writes to the output folder:

- ``checkpoint/``: the algorithm checkpoint; the shared policy plays in the tournament as
  ``--agents rllib:<folder>/checkpoint`` (:class:`agents.rllib_policy.RLlibAgent`);
- ``progress.csv``: per iteration, the episodes, env steps, mean episode length and
  training seconds (in total over the ``--resume`` sessions);
- ``evaluation.json``: the tournament's win rates of the policy against the random and
  the heuristic agent, on duplicate deals (``--eval-deals 0`` skips it);
- ``settings.json``: the run's settings, with which ``--resume`` continues it from
  ``checkpoint/`` (:mod:`experiments.train.resume`).

Needs the ``rllib`` extra (``pip install torch==2.13.0 && pip install -e ".[rllib]"``).
"""

from __future__ import annotations

import csv
import json
import pickle
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from agents.rllib_policy import SHARED_POLICY, rllib_observation, rllib_observation_space
from experiments.common import atomic_open, load_variant
from experiments.common.interrupt import handlers_kept
from experiments.common.parallel import ended_with_its_cluster, shut_down_ray, used_ray_address
from experiments.train.resume import (
    MAX_TRAIN_SEED,
    ResumeError,
    earlier_checkpoint,
    resumed_checkpoint,
    session_seed,
    settings_of,
    trimmed_rows,
    write_settings,
)

ENV_NAME = "rummy_env_rllib"
#: the columns of ``progress.csv``, one row per iteration (``train_seconds``: in total over the sessions)
PROGRESS_COLUMNS = ["iteration", "episodes", "env_steps", "episode_len_mean", "train_seconds"]


class RummyPettingZooEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over ``<variant>.env(**options)``, with the observations
    in RLlib's masking convention (``agents.rllib_policy.rllib_observation``).

    Args:
        config: ``{"variant": "gin_rummy_v0", "options": {...}}`` (RLlib's ``env_config``).
    """

    def __init__(self, config: dict[str, Any]):
        aec = load_variant(config["variant"]).env(**dict(config.get("options", {})))
        super().__init__(aec)
        self.observation_spaces = {a: rllib_observation_space(s) for a, s in self.observation_spaces.items()}
        from gymnasium import spaces

        self.observation_space = spaces.Dict(self.observation_spaces)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, infos = super().reset(seed=seed, options=options)
        return {a: rllib_observation(o) for a, o in obs.items()}, infos

    def step(self, action: dict):
        obs, rewards, terminated, truncated, infos = super().step(action)
        return {a: rllib_observation(o) for a, o in obs.items()}, rewards, terminated, truncated, infos


def _register_env() -> None:
    from ray.tune.registry import register_env

    register_env(ENV_NAME, RummyPettingZooEnv)


def ppo_config(
    variant: str,
    env_options: dict,
    seed: int,
    env_runners: int,
    batch_size: int,
    minibatch_size: int,
    epochs: int,
    net_arch: Sequence[int],
) -> Any:
    """The PPO config: one shared masked policy for all seats, on the new API stack.

    RLlib seeds env runner ``k`` (0: the local one) by ``numpy.random.seed(seed + k)``, which
    takes 0..2**32-1: ``seed`` is wrapped into 0..2**32-1-``env_runners`` (a seed that fits
    is kept as it is)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_policy import MaskedPPOTorchRLModule

    _register_env()
    return (
        PPOConfig()
        # RLlib's env check steps an unmasked sample of the action space: an illegal move, which
        # printed PettingZoo's "Illegal move made" warning at every build; the wrapper passes
        # that check in the tests (tests/integration/test_rllib.py), so it is not run each time
        .environment(ENV_NAME, env_config={"variant": variant, "options": env_options}, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED_POLICY)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_POLICY: RLModuleSpec(
                        module_class=MaskedPPOTorchRLModule,
                        model_config={"fcnet_hiddens": list(net_arch), "head_fcnet_hiddens": []},
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=minibatch_size,
            num_epochs=epochs,
            lr=3e-4,
            gamma=0.995,
            entropy_coeff=0.01,
        )
        .debugging(seed=seed % (MAX_TRAIN_SEED + 1 - env_runners))
    )


def _row(iteration: int, result: dict, seconds: float) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    return {
        "iteration": iteration,
        "episodes": int(runners.get("num_episodes_lifetime", runners.get("num_episodes", 0)) or 0),
        "env_steps": int(
            result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)) or 0
        ),
        "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
        "train_seconds": round(seconds, 1),
    }


def earlier_rows(out: Path, done: int) -> list[dict[str, Any]]:
    """The ``progress.csv`` rows of a resumed run's earlier sessions, up to its checkpoint's
    iteration ``done`` (those a session logged past its checkpoint are dropped)."""
    kinds = dict(zip(PROGRESS_COLUMNS, (int, int, int, float, float), strict=True))
    return trimmed_rows(out / "progress.csv", "iteration", done, kinds)


def checkpoint_iteration(checkpoint: Path) -> int:
    """The iteration at which RLlib saved ``checkpoint`` (its ``training_iteration``, in the
    state file its ``rllib_checkpoint.json`` names), read without building an algorithm; 0
    when it cannot be read (restoring the checkpoint then says what is wrong)."""
    try:
        info = json.loads((checkpoint / "rllib_checkpoint.json").read_text())
        with open(checkpoint / f"{info['state_file']}.pkl", "rb") as f:
            return int(pickle.load(f)["training_iteration"])  # RLlib's own file, as restore_from_path reads it
    except Exception:  # any damage: the restore refuses the checkpoint with RLlib's own error
        return 0


def settle_checkpoint(checkpoint: Path) -> None:
    """Undo what a killed :func:`save_checkpoint` left beside ``checkpoint``: a
    ``checkpoint.old/`` without ``checkpoint/`` (killed between the two renames) goes back to
    ``checkpoint/``, and a ``checkpoint.part/`` or a ``checkpoint.old/`` beside ``checkpoint/``
    (killed while saving, or while removing the earlier one) is removed.  Each step is a rename
    or a removal of a leftover, so a kill here leaves the run's checkpoint whole too."""
    part, old = checkpoint.with_name(checkpoint.name + ".part"), earlier_checkpoint(checkpoint)
    if not checkpoint.exists() and old.is_dir():  # the only whole checkpoint, the one settings.json belongs to
        old.rename(checkpoint)
    for left in (part, old):
        shutil.rmtree(left, ignore_errors=True)


def save_checkpoint(algo: Any, checkpoint: Path) -> None:
    """Save ``algo`` to the folder ``checkpoint`` whole: RLlib writes it as ``checkpoint.part/``
    beside it, which then takes the earlier one's place (the earlier one moved to
    ``checkpoint.old/`` meanwhile, then removed).  Written in place, a save that fails or a
    second Ctrl-C (which quits at once) would leave the earlier sessions' checkpoint half
    overwritten, and an earlier run's files would stay among the new run's; a kill at any
    step leaves a whole checkpoint that ``--resume`` finds (:func:`settle_checkpoint`)."""
    part, old = checkpoint.with_name(checkpoint.name + ".part"), earlier_checkpoint(checkpoint)
    # a resumed session has settled them as it started; in a new run a checkpoint.old/ is the earlier
    # run's, put back so that a kill in this save leaves it whole (--resume names it) rather than none
    settle_checkpoint(checkpoint)
    try:
        algo.save_to_path(str(part.resolve()))
    except BaseException:
        shutil.rmtree(part, ignore_errors=True)
        raise
    if checkpoint.exists():
        checkpoint.rename(old)
    part.rename(checkpoint)
    shutil.rmtree(old, ignore_errors=True)


def train(
    variant: str,
    env_options: dict,
    iterations: int,
    seed: int,
    out: Path,
    address: str | None = None,
    num_cpus: int | None = None,
    env_runners: int = 1,
    batch_size: int = 4000,
    minibatch_size: int = 256,
    epochs: int = 10,
    net_arch: Sequence[int] = (64, 64),
    eval_deals: int = 200,
    workers: int = 2,
    minutes: float | None = None,
    stop: Any = None,
    resume: bool = False,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train the shared policy for ``iterations`` PPO iterations, save the checkpoint and
    the progress, evaluate it; returns the run's summary (also ``evaluation.json``).

    Args:
        variant: e.g. ``"gin_rummy_v0"``.
        env_options: options of ``env()``.
        iterations: PPO iterations (each samples ``batch_size`` env steps).
        address: the Ray cluster to join (``ray.init(address=...)``); None starts a local one
            unless ``RAY_ADDRESS`` names one (``experiments.common.parallel.used_ray_address``).
        num_cpus: CPUs of the local cluster (None: all of this machine's).
        env_runners: parallel sampling actors (0: sample in the driver).
        minutes: stop after the iteration that passes this wall-clock time.
        stop: a :class:`~experiments.common.interrupt.StopRequest`: on Ctrl-C or SIGTERM
            training ends after the iteration in progress, the checkpoint is written, the
            evaluation skipped; a local cluster that a SIGTERM to the process group ended is
            not shut down but killed, as the tournament's (``parallel.shut_down_ray``).
        resume: continue the run in ``out`` from its ``checkpoint/`` (``Algorithm.restore_from_path``:
            weights, optimizer, iteration and lifetime counters): ``iterations`` and ``minutes``
            count the whole run, and ``progress.csv`` goes on from the checkpoint's iteration.
            The env runners are seeded by ``seed`` plus that iteration (new deals).
        settings: written to ``settings.json`` right after the checkpoint
            (:mod:`experiments.train.resume`), or None.
    """
    import ray

    out.mkdir(parents=True, exist_ok=True)
    started_here = not ray.is_initialized()
    if started_here:
        # a cluster that exists has its CPUs (Ray refuses num_cpus there); a new one gets them
        new_cluster = used_ray_address(address) in (None, "local")
        with handlers_kept():
            ray.init(
                address=address,
                num_cpus=num_cpus if new_cluster else None,
                include_dashboard=False,
                log_to_driver=False,
            )
    try:
        checkpoint = out / "checkpoint"
        # checkpoint.old/ when a save was killed between its renames: read from there, put back after the checks
        source = (resumed_checkpoint(out, "rllib") or checkpoint) if resume else checkpoint
        # RLlib seeds the env runners as it builds them, before the restore: seeded by --seed alone,
        # a resumed session would deal the first session's deals again (sb3's go on from seed + timesteps)
        on = session_seed(seed, checkpoint_iteration(source)) if resume else seed
        config = ppo_config(variant, env_options, on, env_runners, batch_size, minibatch_size, epochs, net_arch)
        # RLlib waits for its env runners without a timeout: a cluster a SIGTERM ended meanwhile
        with ended_with_its_cluster(ray, stop if started_here else None, "train", "building the RLlib algorithm"):
            algo = config.build_algo()
        if resume:
            try:  # RLlib raises many kinds of error for a checkpoint that is not this run's
                algo.restore_from_path(str(source.resolve()))
            except Exception as err:
                algo.stop()
                raise ResumeError(
                    f"--resume: {source} cannot be restored into the run's algorithm "
                    f"({type(err).__name__}: {err}): only the checkpoint/ a run writes resumes it"
                ) from None
        done = algo.iteration if resume else 0
        try:
            rows = earlier_rows(out, done) if resume else []
        except ResumeError:  # a damaged progress.csv: refused before the training
            algo.stop()
            raise
        if resume:  # after the checks, which leave the folder as it was: a killed save's leftovers go now
            settle_checkpoint(checkpoint)
        earlier = rows[-1]["train_seconds"] if rows else 0.0
        start = time.perf_counter()
        # --iterations and --minutes count the whole run, over its --resume sessions
        first, last = done + 1, iterations if minutes is None or earlier < 60 * minutes else done
        for i in range(first, last + 1):
            rows.append(_row(i, algo.train(), earlier + time.perf_counter() - start))
            if minutes is not None and earlier + time.perf_counter() - start > 60 * minutes:
                break
            if stop is not None and stop.requested:
                break
        seconds = earlier + time.perf_counter() - start
        # the log first: a run ended between the two writes logs no iteration twice (--resume drops them)
        with atomic_open(out / "progress.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=PROGRESS_COLUMNS)
            w.writeheader()
            w.writerows(rows)
        save_checkpoint(algo, checkpoint)
        if settings is not None:
            write_settings(settings, out)
        algo.stop()
    finally:
        if started_here:  # not ray.shutdown() on a cluster a SIGTERM to the process group ended
            shut_down_ray(ray, stop)
    stopped = stop is not None and stop.requested
    evaluation = (
        evaluate(checkpoint, variant, env_options, eval_deals, workers, seed + 1, stop)
        if eval_deals and not stopped
        else []
    )
    if stop is not None and stop.requested:  # Ctrl-C during the evaluation: it ends, and is no figure
        stopped, evaluation = True, []
    summary = {
        "backend": "rllib",
        "variant": variant,
        "env_options": env_options,
        "seed": seed,
        "iterations": rows[-1]["iteration"] if rows else done,
        "env_steps": rows[-1]["env_steps"] if rows else 0,
        "episodes": rows[-1]["episodes"] if rows else 0,
        "train_seconds": round(seconds, 1),
        "net_arch": list(net_arch),
        "checkpoint": str(checkpoint),
        "stopped_early": stopped,
        "evaluation": evaluation,
    }
    with atomic_open(out / "evaluation.json", "w") as f:
        json.dump(summary, f, indent=2)
    return summary


def evaluate(
    checkpoint: Path, variant: str, env_options: dict, deals: int, workers: int, seed: int, stop: Any = None
) -> list[dict]:
    """Win rates of ``rllib:<checkpoint>`` against each baseline in the tournament (95%
    Wilson intervals over duplicate deals, ``reward="win"``); ``stop``: a Ctrl-C ends it
    after the deals in progress."""
    from experiments import tournament

    return tournament.evaluate_against_baselines(
        f"rllib:{checkpoint.resolve()}", variant, env_options, deals, workers, seed, stop=stop
    )


def main(args: Any, out: Path, stop: Any = None) -> int:
    """``experiments.train --backend rllib`` with its parsed arguments: train, print the summary
    (:func:`experiments.train.cli.trained` has said which checkpoint a ``--resume`` continues)."""
    summary = train(
        args.variant,
        args.env_options,
        args.iterations,
        args.seed,
        out,
        address=args.address,
        num_cpus=args.num_cpus,
        env_runners=args.env_runners,
        batch_size=args.batch_size,
        minibatch_size=args.minibatch_size,
        epochs=args.epochs,
        net_arch=args.net_arch,
        eval_deals=args.eval_deals,
        workers=args.workers,
        minutes=args.minutes,
        stop=stop,
        resume=args.resume,
        settings=settings_of(args),
    )
    print(
        f"{summary['variant']} (rllib self-play): {summary['iterations']} iterations, "
        f"{summary['env_steps']} env steps, {summary['episodes']} episodes in {summary['train_seconds']} s"
    )
    for row in summary["evaluation"]:
        print(
            f"  vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
            f"[{row['win_rate_ci_low']:.3f}, {row['win_rate_ci_high']:.3f}] over {row['games']} games"
        )
    if stop is not None and stop.requested:
        print(stop.kept(f"the checkpoint and progress.csv in {out}/ (the evaluation was skipped); --resume continues"))
        return stop.exit_code
    made = " and evaluation" if args.eval_deals else ""  # --eval-deals 0 makes none (as the sb3 backend says)
    print(f"checkpoint, progress{made} in {out}/ (play it with --agents rllib:{out}/checkpoint)")
    return 0

"""The command line of ``python -m experiments.train`` (``rummy-train``): MaskablePPO on one
seat (:mod:`experiments.train.sb3`), ``--backend rllib`` (:mod:`experiments.train.rllib`) or
``--algo selfplay`` (handed to ``experiments.selfplay``)."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from agents import make_agent
from agents.base import TRAIN_EXTRA
from experiments.common import (
    MAX_ROLLOUT_STEPS,
    deal_count_or_zero,
    load_variant,
    output_folder,
    parse_env_options,
    path_arg,
    program_name,
    resolve_variant,
    worker_count,
)
from experiments.common.argv import given_settings, seed_refusal
from experiments.common.interrupt import StopRequest
from experiments.common.parallel import refuse_unreachable_address
from experiments.train import resume
from experiments.train.sb3 import SELF, UNTIL_THE_MINUTES, format_summary, train

DEFAULT_TIMESTEPS = 300_000
#: the rllib backend's settings and their defaults (``--iterations`` ...)
RLLIB_DEFAULTS = {"iterations": 20, "env_runners": 1, "batch_size": 4000, "minibatch_size": 256, "epochs": 10}
#: the rllib backend's settings, in the order a usage error lists their flags
RLLIB_SETTINGS = (*RLLIB_DEFAULTS, "address", "num_cpus")

#: the sb3 backend's settings that --backend rllib has no use for (--opponents: its own message)
SB3_SETTINGS = ("timesteps", "n_steps", "snapshot_every")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``experiments.train``'s command line, unchecked (:func:`parse_args` checks it)."""
    p = argparse.ArgumentParser(
        prog=program_name("experiments.train", "rummy-train"),
        description="Train a masked PPO agent on one seat of a variant, then evaluate it in the tournament.",
    )
    p.add_argument(
        "--algo",
        choices=["ppo", "selfplay"],
        default="ppo",
        help="ppo: this job (default); selfplay: experiments.selfplay on the batched simulator (its own options)",
    )
    p.add_argument(
        "--variant", default=None, help="variant to train on, e.g. gin_rummy or rummy_v0 (required unless --resume)"
    )
    p.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO on one seat against --opponents (default); rllib: RLlib PPO, one shared "
        "policy for all seats (self-play), on a Ray cluster (experiments.train.rllib)",
    )
    rl = p.add_argument_group("rllib backend")
    rl.add_argument("--address", default=None, help="Ray cluster to join, e.g. auto (default: a local cluster)")
    rl.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local cluster (default: all)")
    rl.add_argument("--iterations", type=int, default=None, help="PPO iterations (default: 20)")
    rl.add_argument("--env-runners", type=int, default=None, help="parallel sampling actors (default: 1)")
    rl.add_argument("--batch-size", type=int, default=None, help="env steps per iteration (default: 4000)")
    rl.add_argument("--minibatch-size", type=int, default=None, help="SGD minibatch (default: 256)")
    rl.add_argument("--epochs", type=int, default=None, help="SGD epochs per iteration (default: 10)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=["random"],
        metavar="NAME",
        help="players of the other seats: random, heuristic, self (frozen learner copy), "
        "policy:PATH or package.module:Name (default: random)",
    )
    p.add_argument(
        "--timesteps",
        type=int,
        default=None,
        help=f"learner decisions to train for (default: {DEFAULT_TIMESTEPS}, or as many as --minutes allows)",
    )
    p.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="stop training after this many minutes, over the --resume sessions (0: no time limit, as without "
        "--minutes; on --resume it drops the run's limit)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the model, deals and opponents (default: 0)")
    p.add_argument("--out", type=path_arg, default=None, help="output folder (default: results/train-<variant>-<time>)")
    p.add_argument("--n-steps", type=int, default=2048, help="PPO rollout length (default: 2048)")
    p.add_argument("--snapshot-every", type=int, default=20_000, help="self-play: steps between snapshots")
    p.add_argument(
        "--eval-deals",
        type=deal_count_or_zero,
        default=200,
        help="deals per evaluation lineup (default: 200; 0 skips the evaluation)",
    )
    p.add_argument("--workers", type=worker_count, default=2, help="evaluation worker processes (default: 2)")
    p.add_argument("--net-arch", default="64,64", help="hidden layer sizes, comma-separated (default: 64,64)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out from its checkpoint, with its settings (experiments.train.resume)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of ``experiments.train`` (``--help``), checked; a bad value exits with
    status 2.  With ``--resume``, the settings saved in the run's folder fill those not given
    (:mod:`experiments.train.resume`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = build_parser()
    args = p.parse_args(argv)
    given = given_settings(p, argv)  # however abbreviated: --time gives --timesteps
    saved = None
    if args.resume:
        if args.out is None:  # the default folder is a new one, named by the time
            p.error("--resume continues the run in --out: give the run's folder")
        try:
            saved = resume.load_settings(args.out)
        except ValueError as err:
            p.error(str(err))
        for k, v in saved.items():
            if k in resume.FIXED + resume.KEPT and k not in given:
                setattr(args, k, ",".join(map(str, v)) if k == "net_arch" else v)
        try:  # first: a contradiction would otherwise surface as another setting's error
            resume.refuse_changes(args, saved, given)
        except ValueError as err:
            p.error(str(err))
    elif args.variant is None:
        p.error("the following arguments are required: --variant")
    rl_flags = [resume.flag(k) for k in RLLIB_SETTINGS if k in given]
    if args.backend != "rllib" and rl_flags:
        # a resumed run keeps its backend: --backend rllib would be refused as a change
        fix = "the run is --backend sb3: drop them" if saved is not None else "add --backend rllib or drop them"
        p.error(f"{', '.join(rl_flags)}: the rllib backend's settings; {fix}")
    sb3_flags = [resume.flag(k) for k in SB3_SETTINGS if k in given]
    if args.backend == "rllib" and sb3_flags:  # else --timesteps would be ignored: 20 iterations trained
        why = (
            "; the run is --backend rllib (its limits are --iterations and --minutes):"
            if saved is not None
            else " (--backend rllib's limits are --iterations and --minutes);"
        )
        p.error(f"{', '.join(sb3_flags)}: the sb3 backend's settings{why} drop them")
    refuse_unreachable_address(p, args.address, uses_ray=args.backend == "rllib")
    for k, default in RLLIB_DEFAULTS.items():
        setattr(args, k, default if getattr(args, k) is None else getattr(args, k))
    try:
        args.net_arch = [int(x) for x in args.net_arch.split(",")]
        if not args.net_arch or min(args.net_arch) <= 0:
            raise ValueError
    except ValueError:
        p.error(f"--net-arch must be positive integers separated by commas, e.g. 64,64; got {args.net_arch!r}")
    for name in ("iterations", "batch_size", "minibatch_size", "epochs"):
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.env_runners < 0 or (args.num_cpus is not None and args.num_cpus <= 0):
        p.error("--env-runners must be >= 0 and --num-cpus positive")
    if args.backend == "rllib" and args.opponents != ["random"]:
        p.error("--backend rllib trains one shared policy in every seat (self-play): drop --opponents")
    if args.minutes is not None and not (args.minutes >= 0 and math.isfinite(args.minutes)):
        p.error(f"--minutes must be a positive finite number, or 0 for no time limit, got {args.minutes}")
    if args.minutes == 0:  # the only way to drop the limit a resumed run saved (null: no --minutes)
        args.minutes = None
        if saved is not None and args.timesteps == UNTIL_THE_MINUTES and "timesteps" not in given:
            p.error(
                "--minutes 0 drops the run's time limit, and the run was started with --minutes alone (no "
                "--timesteps): give --timesteps too, the learner decisions of the whole run"
            )
    if args.timesteps is None:  # --minutes alone trains for those minutes, as one would read it
        args.timesteps = UNTIL_THE_MINUTES if args.minutes is not None else DEFAULT_TIMESTEPS
    for name in ("timesteps", "n_steps", "snapshot_every"):  # --eval-deals 0 skips the evaluation
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.n_steps > MAX_ROLLOUT_STEPS:
        p.error(
            f"--n-steps must be at most {MAX_ROLLOUT_STEPS:,} (a rollout keeps an observation per step), "
            f"got {args.n_steps}"
        )
    if args.backend == "sb3" and args.n_steps < 2:  # one step has no spread to normalise advantages by: NaN
        p.error(f"--n-steps must be at least 2 (PPO normalises the advantages over a rollout), got {args.n_steps}")
    # SB3 (set_random_seed) and RLlib seed NumPy's legacy generator, which takes 32-bit seeds: a
    # larger one failed with numpy's traceback after the results folder was made
    if refusal := seed_refusal(
        "--seed", args.seed, resume.MAX_TRAIN_SEED, "the trainers seed NumPy's legacy 32-bit generator"
    ):
        p.error(refusal)
    try:
        args.variant = resolve_variant(args.variant)
        args.env_options = parse_env_options(args.env_option)
        if saved is not None:  # those given make the run's games, or were refused: the run's stay as saved
            args.env_options = saved["env_options"]
        if "render_mode" in args.env_options:
            raise ValueError("render_mode is not an option for training")
        aec = load_variant(args.variant).env(**args.env_options)
        others = len(aec.possible_agents) - 1
        if len(args.opponents) > others:  # the names beyond the other seats would never play
            raise ValueError(
                f"{len(args.opponents)} opponents given for {others} other seat(s) of {args.variant}: give at most "
                f"{others} (a shorter list is repeated over the seats; --env-option num_players=N for more seats)"
            )
        for i, name in enumerate(args.opponents):
            if name != SELF:
                try:
                    make_agent(name, aec, seed=i)
                except ValueError as err:  # the registry's list lacks the opponent only this job takes
                    raise ValueError(f"{err}; as an opponent also {SELF!r} (a frozen copy of the learner)") from None
    except ValueError as err:
        p.error(str(err))
    args.parser = p
    if args.backend == "rllib":
        try:
            import ray.rllib  # noqa: F401
        except ImportError:
            p.error('--backend rllib needs the rllib extra: pip install torch==2.13.0 && pip install -e ".[rllib]"')
        return args
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        p.error(f"training needs the train extra: {TRAIN_EXTRA}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m experiments.train`` (``--algo selfplay`` hands the other arguments to
    ``experiments.selfplay``): the exit status, 0 when done, 2 for a usage error, 130 or
    143 when stopped by Ctrl-C or SIGTERM after writing the model (the evaluation
    skipped)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for i, arg in enumerate(argv):  # --algo selfplay hands every other argument to experiments.selfplay
        name, eq, value = arg.partition("=")
        value = value if eq else " ".join(argv[i + 1 : i + 2])
        # argparse takes --al and --alg for --algo (--a is also --address's): so must the hand-over
        if len(name) >= 4 and "--algo".startswith(name) and value == "selfplay":
            from experiments import selfplay

            return selfplay.main(argv[:i] + argv[i + (1 if eq else 2) :])
    args = parse_args(argv)
    try:
        out = output_folder(args.out, f"train-{args.variant}", job="train")
    except ValueError as err:
        args.parser.error(str(err))
    if not args.resume:  # the earlier run's checkpoint is not this run's to resume
        resume.forget_settings(out)
    try:
        return trained(args, out)
    except resume.ResumeError as err:  # raised before anything is written
        args.parser.error(str(err))


def trained(args: argparse.Namespace, out: Path) -> int:
    """Train with the parsed arguments into ``out`` and print the summary: :func:`main`'s exit status."""
    with StopRequest("train", "ending after the step in progress; then the model is written") as stop:
        if args.resume:
            print(resume.resuming_line(args.variant, out, args.backend))
        if args.backend == "rllib":
            from experiments.train import rllib

            return rllib.main(args, out, stop)
        summary = train(
            args.variant,
            args.env_options,
            args.opponents,
            args.timesteps,
            args.seed,
            out,
            minutes=args.minutes,
            snapshot_every=args.snapshot_every,
            n_steps=args.n_steps,
            eval_deals=args.eval_deals,
            workers=args.workers,
            progress=not args.no_progress,
            net_arch=args.net_arch,
            stop=stop,
            resume=args.resume,
            settings=resume.settings_of(args),
        )
    print(format_summary(summary))
    if stop.requested:
        print(stop.kept(f"model.zip and the learning curve in {out}/ (the evaluation was skipped); --resume continues"))
        return stop.exit_code
    print(f"model, learning curve{' and evaluation' if args.eval_deals else ''} in {out}/")
    return 0

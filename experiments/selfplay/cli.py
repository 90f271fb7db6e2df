"""The command line of ``python -m experiments.selfplay``: flags and a recipe into a
:class:`~experiments.selfplay.config.Config` (a flag given next to ``--recipe`` overrides
that setting; ``--resume`` keeps the settings given here over the checkpoint's)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from agents.policy_features import FEATURES
from experiments.common import load_variant, parse_env_options, path_arg, program_name, resolve_variant
from experiments.common.argv import given_settings, seed_refusal
from experiments.common.parallel import refuse_unreachable_address
from experiments.selfplay.config import (
    MAX_MINUTES,
    MAX_SEED,
    SEED_BOUND,
    Config,
    check_config,
    load_recipe,
    parse_bool,
    vector_class,
)

#: the help of the numeric settings that need more than their default
NUMBER_HELP = {
    "final_eval_deals": "deals per opponent of the final evaluation of model.pt, each played in every seat; "
    "0 skips it; minutes on 2 cores ",
    "snapshot_every": "updates between the snapshots of the policy added to the pool (--pool-size); 0 takes none, "
    "and the --pool-share seats are then played by the learner itself ",
}


def parse_args(argv: Sequence[str] | None) -> tuple[Config, Path, bool, bool, set[str]]:
    """The command line of ``python -m experiments.selfplay``.

    Returns:
        ``(config, out, resume, progress, given)``: the settings, the output folder,
        ``--resume``, whether to show progress bars, and the names of the settings given by
        a flag or the recipe (a resumed run takes those, not the checkpoint's).

    Raises:
        SystemExit: a bad flag, recipe or setting (argparse's usage error, exit code 2).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(
        prog=program_name("experiments.selfplay", "rummy-selfplay"),
        description="Self-play masked PPO on the batched simulator rummy_env.vector (CleanRL style).",
    )
    d = Config()
    p.add_argument(
        "--recipe",
        default=None,
        metavar="NAME|PATH",
        help="a recipe of settings: a name in experiments/recipes/ (gin, rummy, ...) or a .toml file; "
        "flags override single settings",
    )
    p.add_argument(
        "--variant", default="gin_rummy", help="gin_rummy, rummy, crazy_rummy or rummikub (default: gin_rummy)"
    )
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument(
        "--out", type=path_arg, default=None, help="output folder (default: results/selfplay-<variant>-<time>)"
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint.pt")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    for name, value in asdict(d).items():
        if name in ("variant", "env_options"):
            continue
        flag = "--" + name.replace("_", "-")
        if name == "features":
            p.add_argument(flag, default=value, choices=["auto", "none", *FEATURES], help="network input features")
        elif name == "critic":
            p.add_argument(
                flag,
                default=value,
                choices=["shared", "privileged"],
                help="value function: a head on the policy's trunk, or a separate network that also sees "
                "the hidden cards (training only; experiments.selfplay.critic)",
            )
        elif name == "device":
            p.add_argument(
                flag,
                default=value,
                choices=["auto", "cpu", "cuda"],
                help="torch device of the network, the update and inference (default: auto, a GPU when torch sees one)",
            )
        elif name == "backend":
            p.add_argument(
                flag,
                default=value,
                choices=["local", "ray"],
                help="where the evaluations' games run: local processes (--eval-workers) or Ray (default: local)",
            )
        elif name == "address":
            p.add_argument(
                flag, default=value, metavar="HOST:PORT", help="the Ray cluster of --backend ray (default: a local one)"
            )
        elif name == "hidden":
            p.add_argument(flag, default=",".join(map(str, value)), help=f"hidden layer widths (default: {value})")
        elif name == "league":
            p.add_argument(
                flag,
                default=value,
                metavar="NAME@SHARE;...",
                help="agents frozen in the other seats of a share of the games each, e.g. "
                "'heuristic:style=upcard_meld_only@0.1;policy:docs/results/selfplay-gin/model.pt@0.1'",
            )
        elif name == "init_model":
            p.add_argument(
                flag,
                default=value,
                metavar="PATH",
                help="start from the weights of this model.pt (with --features extending its features: "
                "the new inputs start at zero weight)",
            )
        elif name == "eval_opponents":
            p.add_argument(
                flag,
                default=value,
                metavar="NAME;...",
                help="the evaluations' opponents (default: heuristic and random)",
            )
        elif name == "teacher_agent":
            p.add_argument(
                flag,
                default=value,
                metavar="NAME",
                help="the agent whose actions kickstart the learner: heuristic, heuristic:style=NAME or policy:PATH; "
                "another than heuristic needs --kickstart, --kickstart-anneal and --kickstart-share > 0 "
                f"(--random-share with --teacher-labels) (default: {value})",
            )
        elif name == "teacher_labels":
            p.add_argument(flag, default=value, metavar="PATHS", help="pimc_labels .npz files, comma-separated")
        elif isinstance(value, bool):
            p.add_argument(
                flag, type=parse_bool, default=value, metavar="BOOL", help=f"true or false (default: {value})"
            )
        elif name == "minutes":
            p.add_argument(
                flag,
                type=float,
                default=value,
                help="minutes of training, in total over --resume sessions; the evaluations are not counted "
                "(the periodic ones, --eval-every, and the final one, --final-eval-deals, which comes after), "
                "nor is the writing of the checkpoints (--checkpoint-every); "
                "checked after each update, so the run may pass it by one update's rollout and PPO epochs; "
                "the run also stops at --timesteps, whichever comes first; 0: no time limit, as without "
                "--minutes (on --resume it drops the run's, and the schedules then follow --timesteps alone)",
            )
        else:
            kind = float if isinstance(value, float) or name == "target_kl" else int
            p.add_argument(flag, type=kind, default=value, help=NUMBER_HELP.get(name, "") + f"(default: {value})")
    recipe: dict = {}
    known, _ = p.parse_known_args(argv)
    if known.recipe is not None:
        try:
            recipe = load_recipe(known.recipe)
        except ValueError as err:
            p.error(str(err))
        p.set_defaults(
            **{k: ",".join(map(str, v)) if k == "hidden" else v for k, v in recipe.items() if k not in ("env_options",)}
        )
    args = p.parse_args(argv)
    try:
        hidden = tuple(int(x) for x in str(args.hidden).split(","))
        if not hidden or min(hidden) <= 0:
            raise ValueError
    except ValueError:
        p.error(f"--hidden must be positive integers separated by commas, e.g. 256,256; got {args.hidden!r}")
    for name in ("num_envs", "num_steps", "timesteps", "update_epochs", "minibatch_size", "pool_size", "eval_deals"):
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.final_eval_deals < 0:
        p.error(f"--final-eval-deals must be >= 0 (0 skips the final evaluation), got {args.final_eval_deals}")
    # checked whole here: the Config's own refusal of inf says (0.0, ...], though 0 is allowed here
    if args.minutes is not None and not 0 <= args.minutes <= MAX_MINUTES:
        p.error(
            f"--minutes must be a number of minutes above 0 and at most {MAX_MINUTES:,.0f}, or 0 for no time "
            f"limit, got {args.minutes}"
        )
    if args.minutes == 0:  # as experiments.train's: the only way a --resume drops the run's limit
        args.minutes = None
    if refusal := seed_refusal("--seed", args.seed, MAX_SEED, SEED_BOUND):  # named by its flag here
        p.error(refusal)
    shares = (args.pool_share, args.heuristic_share, args.random_share)
    if not (min(shares) >= 0 and sum(shares) <= 1):
        p.error(
            f"--pool-share {args.pool_share}, --heuristic-share {args.heuristic_share} and --random-share "
            f"{args.random_share} must be >= 0 and sum to at most 1 (the rest of the games are pure self-play)"
        )
    try:
        variant = resolve_variant(args.variant)
        env_options = {**recipe.get("env_options", {}), **parse_env_options(args.env_option)}
        env = load_variant(variant).env(**env_options)
        vector_class(variant)(1, **env_options)  # the batched engine refuses the options it cannot play
    except (ValueError, ImportError) as err:
        p.error(str(err))
    if not 0 <= args.teacher_margin <= 1:
        p.error(f"--teacher-margin must be in [0, 1] (a value lead), got {args.teacher_margin}")
    if args.teacher_margin and not args.teacher_labels:
        p.error(f"--teacher-margin {args.teacher_margin} needs --teacher-labels (it picks their targets)")
    missing = [f for f in args.teacher_labels.split(",") if f and not Path(f).is_file()]
    if missing:
        p.error(
            f"--teacher-labels: no file {', '.join(missing)} "
            f"(make labels with: python -m experiments.pimc_labels --variant {variant}"
            + "".join(f" --env-option {o}" for o in args.env_option)
            + f" --out {missing[0]})"
        )
    values = {k: getattr(args, k) for k in asdict(d) if k not in ("variant", "env_options", "hidden")}
    cfg = Config(variant=variant, env_options=env_options, hidden=hidden, **values)
    try:
        check_config(cfg, len(env.possible_agents))
    except ValueError as err:
        p.error(str(err))
    refuse_unreachable_address(p, cfg.address or None, uses_ray=cfg.backend == "ray")  # before the run's folder
    if args.resume and args.out is None:  # the default folder is a new one, named by the time
        p.error("--resume continues the run in --out: give the run's folder")
    out = args.out or Path("results") / time.strftime(f"selfplay-{variant}-%Y%m%d-%H%M%S")
    # however written: an abbreviation (--time for --timesteps) gives the setting too
    given = (given_settings(p, argv) & set(asdict(d))) | set(recipe)
    return cfg, out, args.resume, not args.no_progress, given

"""Train a masked PPO agent on one seat of a variant, then evaluate it in the tournament.

    python -m experiments.train --variant gin_rummy --timesteps 300000
    python -m experiments.train --variant rummy --opponents random heuristic --minutes 30
    python -m experiments.train --variant gin_rummy --opponents self random --timesteps 500000

The learner (sb3-contrib ``MaskablePPO``, an MLP over the flat observation, the action
mask passed to the policy) plays one seat of ``<variant>.env()`` through
``rummy_env.envs.single_agent.SingleAgentEnv``; the other seats are played by the named
opponents (``random``, ``heuristic``, any name the tournament knows, or ``self``: a
frozen copy of the learner, refreshed every ``--snapshot-every`` steps).  The learner's
seat is drawn at every episode.  The job writes to the output folder:

- ``model.zip``: the trained model (play it with ``--agents policy:<folder>/model.zip``
  in ``experiments.tournament``, or ``agents.policy.PolicyAgent``);
- ``learning_curve.csv`` and ``learning_curve.png``: win rate and mean return over the
  last 100 episodes against the training opponents, by timestep;
- ``evaluation.json``: the tournament's win rates (95% intervals) of the trained policy
  against the random and the heuristic agent, on duplicate deals.

Needs the ``train`` extra (torch, sb3-contrib).  ``--backend rllib`` trains one shared
policy for all seats (self-play) with RLlib's PPO on a Ray cluster instead
(``experiments.train_rllib``; the ``rllib`` extra).
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from experiments.common import (
    load_variant,
    new_figure,
    output_folder,
    parse_env_options,
    program_name,
    resolve_variant,
)
from rummy_env.envs.single_agent import SingleAgentEnv

SELF = "self"


class FrozenPolicy:
    """A frozen copy of a learner's policy as an opponent (``act`` like an agent)."""

    def __init__(self, policy: Any):
        self.policy = policy

    def act(self, observation: dict, info: dict | None = None) -> int:
        action, _ = self.policy.predict(
            observation["observation"], action_masks=observation["action_mask"].astype(bool), deterministic=False
        )
        return int(action)


def make_training_env(
    variant: str, env_options: dict, opponents: Sequence[str], seed: int, snapshot: FrozenPolicy | None = None
):
    """The learner's single-agent env, wrapped in SB3's ``Monitor`` (episode returns).

    Raises:
        ValueError: an unknown opponent name or a bad env option.
    """
    from stable_baselines3.common.monitor import Monitor

    aec = load_variant(variant).env(**env_options)
    policies = [snapshot if name == SELF else make_agent(name, aec, seed=seed + i) for i, name in enumerate(opponents)]
    return Monitor(SingleAgentEnv(aec, policies, seed=seed))


class CurveCallback:
    """Collects finished episodes and refreshes the self-play snapshot (a BaseCallback)."""

    @staticmethod
    def build(
        total: int, snapshot: FrozenPolicy | None, snapshot_every: int, progress: bool, deadline: float | None = None
    ):
        from stable_baselines3.common.callbacks import BaseCallback
        from tqdm import tqdm

        class _Callback(BaseCallback):
            def __init__(self):
                super().__init__()
                self.episodes: list[tuple[int, float]] = []  # (timestep, return)
                self.bar = tqdm(total=total, unit="step", disable=None if progress else True, file=sys.stderr)
                self.last_snapshot = 0

            def _on_step(self) -> bool:
                for info in self.locals.get("infos", []):
                    if "episode" in info:
                        self.episodes.append((self.num_timesteps, float(info["episode"]["r"])))
                self.bar.update(self.num_timesteps - self.bar.n)
                if snapshot is not None and self.num_timesteps - self.last_snapshot >= snapshot_every:
                    snapshot.policy.load_state_dict(self.model.policy.state_dict())
                    self.last_snapshot = self.num_timesteps
                # False stops learn(): the wall-clock budget of --minutes is spent
                return deadline is None or time.perf_counter() < deadline

        return _Callback()


def curve_rows(episodes: list[tuple[int, float]], window: int = 100, points: int = 100) -> list[dict[str, float]]:
    """The learning curve: at about ``points`` timesteps, the win rate (return > 0), the
    draw rate (return == 0: a dead hand, a truncation or a shared result) and the mean
    return of the last ``window`` episodes.

    These are the episodes the learner played while training: its *sampling* policy
    (actions drawn from the policy's distribution) against the training opponents, so
    they differ from the deterministic evaluation of :func:`evaluate`."""
    rows = []
    if not episodes:
        return rows
    step = max(1, len(episodes) // points)
    for end in range(step, len(episodes) + 1, step):
        recent = [r for _, r in episodes[max(0, end - window) : end]]
        rows.append(
            {
                "timestep": episodes[end - 1][0],
                "episodes": end,
                "win_rate": float(np.mean([r > 0 for r in recent])),
                "draw_rate": float(np.mean([r == 0 for r in recent])),
                "mean_return": float(np.mean(recent)),
            }
        )
    return rows


def curve_figure(rows: list[dict[str, float]], title: str) -> Any:
    """The learning curve's matplotlib figure: win and draw rates by timestep, the legend
    below the axes (inside, it covered the curve wherever the curve ran).  A
    ``matplotlib.figure.Figure`` not registered with pyplot (``experiments.common.new_figure``)."""
    fig = new_figure(figsize=(6, 4))
    ax = fig.subplots()
    steps = [r["timestep"] for r in rows]
    ax.plot(steps, [r["win_rate"] for r in rows], label="win rate")
    ax.plot(steps, [r.get("draw_rate", 0.0) for r in rows], label="draw rate", linestyle="--")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("rate over the last 100 episodes")
    ax.set_ylim(0, 1)
    ax.set_title(f"{title}\ntraining episodes (sampling policy)", fontsize=10)
    # below the axes: a legend inside would cover the curve wherever it runs
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def write_curve(rows: list[dict[str, float]], out: Path, title: str) -> None:
    """``learning_curve.csv`` and ``learning_curve.png`` in ``out``."""
    with open(out / "learning_curve.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["timestep", "episodes", "win_rate", "draw_rate", "mean_return"])
        w.writeheader()
        w.writerows(rows)
    curve_figure(rows, title).savefig(out / "learning_curve.png", dpi=100)


def evaluate(model_path: Path, variant: str, env_options: dict, deals: int, workers: int, seed: int) -> list[dict]:
    """Win rates (95% Wilson intervals over deals) of the saved policy against each
    baseline agent, with the tournament's duplicate deals
    (:func:`experiments.tournament.evaluate_against_baselines`)."""
    from experiments import tournament

    return tournament.evaluate_against_baselines(
        f"policy:{model_path.resolve()}", variant, env_options, deals, workers, seed
    )


def train(
    variant: str,
    env_options: dict,
    opponents: Sequence[str],
    timesteps: int,
    seed: int,
    out: Path,
    minutes: float | None = None,
    snapshot_every: int = 20_000,
    n_steps: int = 2048,
    eval_deals: int = 200,
    workers: int = 2,
    progress: bool = True,
    net_arch: Sequence[int] = (64, 64),
) -> dict[str, Any]:
    """Train, save, write the curve, evaluate; returns the run's summary (also ``summary.json``).

    Args:
        variant: e.g. ``"gin_rummy_v0"``.
        env_options: options of ``env()`` (e.g. ``{"reward": "score"}``).
        opponents: opponent names for the other seats (``"self"``: frozen learner copy).
        timesteps: learner decisions to train for.
        seed: seed of the model, the deals and the opponents.
        out: output folder.
        minutes: stop after this wall-clock time even if ``timesteps`` are not done.
        net_arch: hidden layer sizes of the policy and value networks.
    """
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    snapshot = FrozenPolicy(None) if SELF in opponents else None
    env = make_training_env(variant, env_options, opponents, seed, snapshot)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=256,
        learning_rate=3e-4,
        gamma=0.995,
        ent_coef=0.01,
        seed=seed,
        device="cpu",
        verbose=0,
        policy_kwargs={"net_arch": list(net_arch)},
    )
    if snapshot is not None:
        snapshot.policy = copy.deepcopy(model.policy)
    start = time.perf_counter()
    deadline = None if minutes is None else start + 60 * minutes
    curve = CurveCallback.build(timesteps, snapshot, snapshot_every, progress, deadline)
    model.learn(total_timesteps=timesteps, callback=curve, progress_bar=False)
    curve.bar.close()
    seconds = time.perf_counter() - start
    model_path = out / "model.zip"
    model.save(model_path)
    rows = curve_rows(curve.episodes)
    write_curve(rows, out, f"{variant} vs {' + '.join(opponents)}")
    evaluation = evaluate(model_path, variant, env_options, eval_deals, workers, seed + 1)
    summary = {
        "variant": variant,
        "env_options": env_options,
        "opponents": list(opponents),
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "episodes": len(curve.episodes),
        "train_seconds": round(seconds, 1),
        "net_arch": list(net_arch),
        "final_training_win_rate": rows[-1]["win_rate"] if rows else None,
        "final_training_draw_rate": rows[-1]["draw_rate"] if rows else None,
        "evaluation": evaluation,
    }
    with open(out / "evaluation.json", "w") as f:
        json.dump(summary, f, indent=2)
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    """The console report of a run: the training episodes (sampling policy against the
    training opponents) and the deterministic evaluation, each labelled, draws included."""
    lines = [
        f"{summary['variant']}: {summary['timesteps']} steps, {summary['episodes']} episodes in "
        f"{summary['train_seconds']} s"
    ]
    win, draw = summary["final_training_win_rate"], summary.get("final_training_draw_rate")
    if win is not None:
        lines.append(
            f"  training (sampling policy vs {' + '.join(summary['opponents'])}, last 100 episodes): "
            f"win rate {win:.3f}, draw rate {draw:.3f}"
        )
    lines.append("  evaluation (deterministic policy, duplicate deals, every seat):")
    for row in summary["evaluation"]:
        lines.append(
            f"    vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
            f"[{row['win_rate_ci_low']:.3f}, {row['win_rate_ci_high']:.3f}], "
            f"{row['draws']} draws in {row['games']} games"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=program_name("experiments.train", "rummy-train"), description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--algo",
        choices=["ppo", "selfplay"],
        default="ppo",
        help="ppo: this job (default); selfplay: experiments.selfplay on the batched simulator (its own options)",
    )
    p.add_argument("--variant", required=True, help="variant to train on, e.g. gin_rummy or rummy_v0")
    p.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO on one seat against --opponents (default); rllib: RLlib PPO, one shared "
        "policy for all seats (self-play), on a Ray cluster (experiments.train_rllib)",
    )
    rl = p.add_argument_group("rllib backend")
    rl.add_argument("--address", default=None, help="Ray cluster to join, e.g. auto (default: a local cluster)")
    rl.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local cluster (default: all)")
    rl.add_argument("--iterations", type=int, default=20, help="PPO iterations (default: 20)")
    rl.add_argument("--env-runners", type=int, default=1, help="parallel sampling actors (default: 1)")
    rl.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration (default: 4000)")
    rl.add_argument("--minibatch-size", type=int, default=256, help="SGD minibatch (default: 256)")
    rl.add_argument("--epochs", type=int, default=10, help="SGD epochs per iteration (default: 10)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=["random"],
        metavar="NAME",
        help="players of the other seats: random, heuristic, self (frozen learner copy), "
        "policy:PATH or package.module:Name (default: random)",
    )
    p.add_argument("--timesteps", type=int, default=300_000, help="learner decisions to train for (default: 300000)")
    p.add_argument("--minutes", type=float, default=None, help="stop training after this many minutes")
    p.add_argument("--seed", type=int, default=0, help="seed of the model, deals and opponents (default: 0)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: results/train-<variant>-<time>)")
    p.add_argument("--n-steps", type=int, default=2048, help="PPO rollout length (default: 2048)")
    p.add_argument("--snapshot-every", type=int, default=20_000, help="self-play: steps between snapshots")
    p.add_argument("--eval-deals", type=int, default=200, help="deals per evaluation lineup (default: 200)")
    p.add_argument("--workers", type=int, default=2, help="evaluation worker processes (default: 2)")
    p.add_argument("--net-arch", default="64,64", help="hidden layer sizes, comma-separated (default: 64,64)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
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
    if args.backend == "rllib" and args.eval_deals == 0:
        args.eval_deals_skipped = True  # rllib: --eval-deals 0 skips the evaluation
    for name in ("timesteps", "n_steps", "snapshot_every", "eval_deals", "workers"):
        if name == "eval_deals" and getattr(args, "eval_deals_skipped", False):
            continue
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.minutes is not None and not args.minutes > 0:
        p.error(f"--minutes must be positive, got {args.minutes}")
    if args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    try:
        args.variant = resolve_variant(args.variant)
        args.env_options = parse_env_options(args.env_option)
        if "render_mode" in args.env_options:
            raise ValueError("render_mode is not an option for training")
        aec = load_variant(args.variant).env(**args.env_options)
        for i, name in enumerate(args.opponents):
            if name != SELF:
                make_agent(name, aec, seed=i)
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
        p.error('training needs the train extra: pip install torch==2.13.0 && pip install -e ".[train]"')
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for i, arg in enumerate(argv):  # --algo selfplay hands every other argument to experiments.selfplay
        if arg == "--algo=selfplay" or arg == "--algo" and argv[i + 1 : i + 2] == ["selfplay"]:
            from experiments import selfplay

            return selfplay.main(argv[:i] + argv[i + (1 if "=" in arg else 2) :])
    args = parse_args(argv)
    try:
        out = output_folder(args.out, f"train-{args.variant}")
    except ValueError as err:
        args.parser.error(str(err))
    if args.backend == "rllib":
        from experiments import train_rllib

        return train_rllib.main(args, out)
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
    )
    print(format_summary(summary))
    print(f"model, learning curve and evaluation in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Train a masked PPO agent on one seat of a variant, then evaluate it in the tournament.

    python -m experiments.train --variant gin_rummy --timesteps 300000
    python -m experiments.train --variant rummy --env-option num_players=3 --opponents random heuristic --minutes 30
    python -m experiments.train --variant gin_rummy --opponents self --timesteps 500000
    python -m experiments.train --resume --out results/train-gin  # continue a stopped run

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
  against the random and the heuristic agent, on duplicate deals;
- ``episodes.csv``: each training episode's last timestep and the learner's return;
- ``settings.json``: the run's settings, with which ``--resume`` continues it from
  ``model.zip`` (:mod:`experiments.train.resume`).

Needs the ``train`` extra (torch, sb3-contrib).  ``--backend rllib`` trains one shared
policy for all seats (self-play) with RLlib's PPO on a Ray cluster instead
(:mod:`experiments.train.rllib`; the ``rllib`` extra).
"""

from __future__ import annotations

import copy
import csv
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from experiments.common import atomic_open, load_variant, new_figure, save_figure
from experiments.common.plain import plain_value
from experiments.common.progress import progress_counter
from experiments.train.resume import ResumeError, session_seed, trimmed_rows, write_settings
from rummy_env.envs.single_agent import SingleAgentEnv

SELF = "self"
#: the step budget of ``--minutes`` without ``--timesteps``: the minutes end training first
UNTIL_THE_MINUTES = 10**12


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
        total: int,
        snapshot: FrozenPolicy | None,
        snapshot_every: int,
        progress: bool,
        deadline: float | None = None,
        stop: Any = None,
        done: int = 0,
    ):
        """The callback; ``done``: the timesteps of a resumed run's earlier sessions (the bar
        starts there, and the snapshot is fresh there)."""
        from stable_baselines3.common.callbacks import BaseCallback

        class _Callback(BaseCallback):
            def __init__(self):
                super().__init__()
                self.episodes: list[tuple[int, float]] = []  # (timestep, return)
                bar_total = total if total < UNTIL_THE_MINUTES else None  # --minutes alone: no total
                # a bar on a terminal, a line now and then in a log file, as the other jobs
                self.bar = progress_counter(bar_total, "step", "train", enabled=progress)
                self.bar.update(done)
                self.last_snapshot = done

            def _on_step(self) -> bool:
                for info in self.locals.get("infos", []):
                    if "episode" in info:
                        self.episodes.append((self.num_timesteps, float(info["episode"]["r"])))
                self.bar.update(self.num_timesteps - self.bar.n)
                if snapshot is not None and self.num_timesteps - self.last_snapshot >= snapshot_every:
                    snapshot.policy.load_state_dict(self.model.policy.state_dict())
                    self.last_snapshot = self.num_timesteps
                # False stops learn(): the wall-clock budget of --minutes is spent, or Ctrl-C
                if stop is not None and stop.requested:
                    return False
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
    # a margin past 0 and 1: a rate sitting at either (a draw rate of 1 against random play) would
    # lie on the frame and not be seen
    ax.set_ylim(-0.03, 1.03)
    ax.set_title(f"{title}\ntraining episodes (sampling policy)", fontsize=10)
    # below the axes: a legend inside would cover the curve wherever it runs
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def write_curve(rows: list[dict[str, float]], out: Path, title: str) -> None:
    """``learning_curve.csv`` and ``learning_curve.png`` in ``out``."""
    with atomic_open(out / "learning_curve.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["timestep", "episodes", "win_rate", "draw_rate", "mean_return"])
        w.writeheader()
        w.writerows(rows)
    save_figure(curve_figure(rows, title), out / "learning_curve.png")


def evaluate(
    model_path: Path,
    variant: str,
    env_options: dict,
    deals: int,
    workers: int,
    seed: int,
    stop: Any = None,
    progress: bool = False,
) -> list[dict]:
    """Win rates (95% Wilson intervals over deals) of the saved policy against each
    baseline agent, with the tournament's duplicate deals
    (:func:`experiments.tournament.evaluate_against_baselines`); ``stop``: a Ctrl-C ends it
    after the deals in progress; ``progress``: a bar of deals per opponent.  Not the
    self-play trainer's :func:`experiments.selfplay.logs.evaluate`: with more than two seats
    this plays every lineup of the policy and the opponent (the policy in one seat or
    several), that one the policy in one seat and the opponent in the others; on two seats
    their games and figures are the same."""
    from experiments import tournament

    return tournament.evaluate_against_baselines(
        f"policy:{model_path.resolve()}", variant, env_options, deals, workers, seed, progress=progress, stop=stop
    )


def resumed_model(
    model_path: Path,
    variant: str,
    env_options: dict,
    opponents: Sequence[str],
    seed: int,
    snapshot: Any,
    net_arch: Sequence[int],
    n_steps: int,
) -> tuple[Any, int, float]:
    """The learner of a run to resume, from its ``model.zip`` (weights, optimizer, counters), on
    a new training env: ``(model, timesteps done, training seconds done)``.  The env, the
    opponents and the sampling are seeded by ``seed`` plus the timesteps done, so one
    checkpoint resumes to the same run every time (with new deals, not those in progress).

    Raises:
        ResumeError: ``model_path`` does not load, is not of ``net_arch`` and ``n_steps``
            (the run's settings: a model copied in from another run), or does not fit the
            variant's spaces.
    """
    from sb3_contrib import MaskablePPO

    try:  # SB3 raises zipfile's, pickle's, torch's and its own errors for a file that is not its model
        model = MaskablePPO.load(model_path, device="cpu")
        done = int(model.num_timesteps)
        found = (list((model.policy_kwargs or {}).get("net_arch", [])), int(model.n_steps))
        if found != (list(net_arch), n_steps):  # the model's own would be trained on, against settings.json's
            shown = "--net-arch {} --n-steps {}".format
            raise ResumeError(
                f"--resume: {model_path} is a model of {shown(','.join(map(str, found[0])), found[1])}, not of "
                f"the run's {model_path.parent / 'settings.json'} ({shown(','.join(map(str, net_arch)), n_steps)}): "
                "only the model.zip a run writes resumes it"
            )
        model.set_env(make_training_env(variant, env_options, opponents, session_seed(seed, done), snapshot))
    except ResumeError:
        raise
    except Exception as err:
        raise ResumeError(
            f"--resume: {model_path} cannot be loaded as the run's MaskablePPO model ({type(err).__name__}: {err}): "
            "only the model.zip a run writes resumes it"
        ) from None
    model.set_random_seed(session_seed(seed, done))
    return model, done, float(getattr(model, "train_seconds", 0.0))


def earlier_episodes(out: Path, done: int) -> list[tuple[int, float]]:
    """The episodes of a resumed run's earlier sessions (``episodes.csv``) up to its model's
    ``done`` timesteps: those a session logged past its last model are dropped."""
    rows = trimmed_rows(out / "episodes.csv", "timestep", done, {"timestep": int, "return": float})
    return [(r["timestep"], r["return"]) for r in rows]


def write_episodes(episodes: list[tuple[int, float]], out: Path) -> None:
    """``episodes.csv`` in ``out``: each training episode's last timestep and the learner's return."""
    with atomic_open(out / "episodes.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestep", "return"])
        w.writerows(episodes)


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
    stop: Any = None,
    resume: bool = False,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train, save, write the curve, evaluate; returns the run's summary (also ``evaluation.json``).

    Args:
        variant: e.g. ``"gin_rummy_v0"``.
        env_options: options of ``env()`` (e.g. ``{"reward": "score"}``; NumPy values are
            converted to Python's, as are those of ``seed``, ``opponents`` and ``net_arch``).
        opponents: opponent names for the other seats (``"self"``: frozen learner copy).
        timesteps: learner decisions to train for (:data:`UNTIL_THE_MINUTES`: until ``minutes``).
        seed: seed of the model, the deals and the opponents.
        out: output folder.
        minutes: stop after this wall-clock time even if ``timesteps`` are not done.
        net_arch: hidden layer sizes of the policy and value networks.
        stop: a :class:`~experiments.common.interrupt.StopRequest`: on Ctrl-C training ends after
            the step in progress, the model and the curve are written and the evaluation skipped.
        resume: continue the run in ``out`` from its ``model.zip`` (its weights, optimizer,
            timestep count and training seconds): ``timesteps`` and ``minutes`` count the
            whole run, the episodes go on in ``episodes.csv`` and the curve covers them all.
            The games are new ones, seeded by ``seed`` and the timestep count, and a frozen
            ``self`` opponent starts as a copy of the loaded learner.
        settings: written to ``settings.json`` right after ``model.zip``
            (:mod:`experiments.train.resume`), or None.
    """
    import torch
    from sb3_contrib import MaskablePPO

    # NumPy values (np.int64 from a sweep's grid) would stop evaluation.json's json.dump after the training
    env_options, seed = plain_value(env_options, "env_options"), plain_value(seed, "seed")
    opponents, net_arch = plain_value(list(opponents), "opponents"), plain_value(list(net_arch), "net_arch")
    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    snapshot = FrozenPolicy(None) if SELF in opponents else None
    model_path = out / "model.zip"
    if resume:
        model, done, earlier = resumed_model(
            model_path, variant, env_options, opponents, seed, snapshot, net_arch, n_steps
        )
        # read before the training: a damaged log is refused with nothing written, not after the work
        logged = earlier_episodes(out, done)
    else:
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
        done, earlier, logged = 0, 0.0, []
    if snapshot is not None:
        snapshot.policy = copy.deepcopy(model.policy)
    start = time.perf_counter()
    # --minutes and --timesteps count the whole run, over its --resume sessions
    deadline = None if minutes is None else start + 60 * minutes - earlier
    curve = CurveCallback.build(timesteps, snapshot, snapshot_every, progress, deadline, stop, done)
    if timesteps > done and (deadline is None or deadline > start):
        model.learn(total_timesteps=timesteps - done, callback=curve, progress_bar=False, reset_num_timesteps=done == 0)
    curve.bar.close()
    seconds = earlier + time.perf_counter() - start
    model.train_seconds = seconds  # saved with the model (SB3 saves its attributes): a --resume counts on
    # the episodes first: a run ended between the two writes logs none twice (--resume drops those past the model)
    episodes = [*logged, *curve.episodes]
    write_episodes(episodes, out)
    with atomic_open(model_path, "wb") as f:  # a second Ctrl-C while it is saved keeps an earlier model whole
        model.save(f)
    if settings is not None:
        write_settings(settings, out)
    rows = curve_rows(episodes)
    write_curve(rows, out, f"{variant} vs {' + '.join(opponents)}")
    stopped = stop is not None and stop.requested
    evaluation = (
        []
        if stopped or not eval_deals
        else evaluate(model_path, variant, env_options, eval_deals, workers, seed + 1, stop, progress)
    )
    if stop is not None and stop.requested:  # Ctrl-C during the evaluation: it ends, and is no figure
        stopped, evaluation = True, []
    summary = {
        "variant": variant,
        "env_options": env_options,
        "opponents": list(opponents),
        "seed": seed,
        "timesteps": int(model.num_timesteps),
        "episodes": len(episodes),
        "train_seconds": round(seconds, 1),
        "net_arch": list(net_arch),
        "final_training_win_rate": rows[-1]["win_rate"] if rows else None,
        "final_training_draw_rate": rows[-1]["draw_rate"] if rows else None,
        "stopped_early": stopped,
        "evaluation": evaluation,
    }
    with atomic_open(out / "evaluation.json", "w") as f:
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
    if not summary["evaluation"]:  # a stopped run skips it: no empty table under a header
        lines.append(
            "  evaluation: skipped (the run was stopped)" if summary.get("stopped_early") else "  evaluation: none"
        )
        return "\n".join(lines)
    lines.append("  evaluation (deterministic policy, duplicate deals, every seat):")
    for row in summary["evaluation"]:
        lines.append(
            f"    vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
            f"[{row['win_rate_ci_low']:.3f}, {row['win_rate_ci_high']:.3f}], "
            f"{row['draws']} draws in {row['games']} games"
        )
    return "\n".join(lines)

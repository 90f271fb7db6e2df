"""The settings of a self-play run (:class:`Config`), their checks and recipes (the command line
that fills them: :mod:`experiments.selfplay.cli`).

A *recipe* is a TOML file of settings (``experiments/recipes/<name>.toml``, or any path):
``--recipe gin`` takes its settings, and flags given next to it override single ones.  Every
run writes its full settings to ``recipe.toml`` in its folder, so ``--recipe
<folder>/recipe.toml`` repeats it.  ``--resume`` reloads the settings from the checkpoint.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from experiments.common import MAX_DEALS, MAX_ROLLOUT_STEPS, atomic_open, max_workers
from experiments.common.argv import seed_refusal
from experiments.common.plain import plain_value
from rummy_env.vector.batch import MAX_NUM_ENVS, MAX_SEED

#: what bounds a self-play or exploit seed (:data:`MAX_SEED`)
SEED_BOUND = "torch and the batched engines take 64-bit seeds"


@dataclass
class Config:
    """Every setting of a run (saved in the checkpoint; ``--resume`` reuses it)."""

    variant: str = "gin_rummy_v0"
    env_options: dict = field(default_factory=dict)
    seed: int = 0
    num_envs: int = 256
    num_steps: int = 64  # env steps per rollout; a batch is num_envs * num_steps steps
    timesteps: int = 50_000_000  # env steps (decisions of every seat) to train for
    minutes: float | None = None  # wall-clock limit of the training (evaluations included)
    hidden: tuple = (256, 256)
    features: str = "auto"  # input features (agents.policy_features); auto: learner.AUTO_FEATURES
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.995  # per decision of a seat
    gae_lambda: float = 0.95
    update_epochs: int = 4
    # learner decisions per minibatch: a rollout splits into round(decisions / minibatch_size) equal
    # minibatches, at least one (a larger value trains on the whole rollout at once)
    minibatch_size: int = 256
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = 0.05
    shaping: float = 1.0  # weight of the deadwood potential at the start
    shaping_anneal: float = 0.5  # share of the run over which it decays to 0
    kickstart: float = 1.0  # weight of the cross-entropy to the heuristic's action at the start
    kickstart_anneal: float = 0.4  # share of the run over which it decays to ... (0: kickstarting off)
    kickstart_floor: float = 0.0  # ... this weight, kept for the rest of the run
    kickstart_share: float = 0.5  # share of the games whose learner decisions get the heuristic's action
    critic: str = "shared"  # the value head on the policy's trunk, or "privileged" (experiments.selfplay.critic)
    # epochs of an update that train the privileged critic: the hidden cards identify each game,
    # so more passes over one rollout memorize its games instead of learning values
    critic_epochs: int = 1
    # Gin: weight of a penalty for playing a decision differently under a random relabelling of the
    # suits (agents.suit_symmetry; DrAC, Raileanu et al. 2021); 0: off
    suit_augment: float = 0.0
    # offset the learner's result against the heuristic by the heuristic's own on the deck (selfplay_duplicate);
    # Gin Rummy and Rummy only (DUPLICATE_VARIANTS)
    duplicate_baseline: bool = False
    # kickstart towards a search's decisions instead of the heuristic's (experiments.selfplay.teacher):
    # pimc_labels files, comma-separated; "": the heuristic teaches
    teacher_labels: str = ""
    teacher_margin: float = 0.0  # the search's value lead a label needs over the heuristic's choice
    # the agent whose actions kickstart the learner (a name the opponents' seats can play except
    # random: heuristic, heuristic:style=NAME, policy:PATH); Rummikub's strongest is
    # heuristic:style=patient.  Another than heuristic needs kickstart, kickstart_anneal and
    # kickstart_share (random_share with teacher_labels) > 0
    teacher_agent: str = "heuristic"
    pool_share: float = 0.25  # share of the games with one seat played by a pool snapshot
    heuristic_share: float = 0.5  # share of the games with one seat played by the variant's heuristic
    # share of the games with one seat playing uniformly random legal actions; with --teacher-labels the
    # heuristic teaches the learner's decisions there (the search's labels come from games against it)
    random_share: float = 0.0
    # named agents frozen in the other seats of a share of the games each, "NAME@SHARE;NAME@SHARE"
    # (experiments.selfplay.opponents: heuristic styles, policy:PATH models, random)
    league: str = ""
    # start from this model's weights (a model.pt of experiments.selfplay; its hidden sizes and
    # features, or with `features` set to a set that extends the model's, the model widened)
    init_model: str = ""
    # the opponents of the evaluations, "NAME;NAME" (default: the variant's heuristic and random)
    eval_opponents: str = ""
    pool_size: int = 10
    snapshot_every: int = 20  # updates between pool snapshots; 0 takes none (the pool seats play as the learner)
    eval_every: float = 5.0  # minutes between evaluations
    initial_eval: bool = True  # evaluate the untrained policy too (its games are long: minutes on a loaded machine)
    eval_deals: int = 100  # deals per evaluation (each played in every seat)
    final_eval_deals: int = 1000
    eval_workers: int = 1
    # where the evaluations' games run: local processes (eval_workers) or the tournament's Ray
    # backend, "ray" (the distributed extra; a running cluster, the one at `address`, or a new
    # local one): the same rows either way
    backend: str = "local"
    address: str = ""
    # one numba thread too: with other jobs on the 2 cores, 2 threads stepped 256 games 14x slower
    sim_threads: int = 1
    # one torch thread: on a loaded 2-core machine a second intra-op thread made a forward
    # pass 50x slower (OpenMP threads spinning at barriers while the core is taken).  The one
    # setting that changes results: more threads add a batch's products in another order, so
    # the weights differ in the last bits (8e-8 after five updates of a small run) and a long
    # run drifts; a run is reproduced with the same torch_threads (sim_threads, eval_workers
    # change nothing: tests/experiments/test_workers_same_results.py)
    torch_threads: int = 1
    checkpoint_every: float = 5.0  # minutes
    # torch device of the network, the update and inference: auto (a GPU if torch sees one), cpu, cuda
    device: str = "auto"


#: the longest training time budget, in minutes (19 years): the progress bars (tqdm's too)
#: crash on a larger one, whose time left overflows a float (``--minutes 1e308``)
MAX_MINUTES = 10_000_000.0

#: (setting, low, high, whether low is allowed) of the numeric settings
RANGES = (
    ("lr", 0.0, 1.0, False),
    ("gamma", 0.0, 1.0, False),
    ("gae_lambda", 0.0, 1.0, True),
    ("clip", 0.0, 1.0, False),
    ("ent_coef", 0.0, math.inf, True),
    ("vf_coef", 0.0, math.inf, True),
    ("max_grad_norm", 0.0, math.inf, False),
    ("target_kl", 0.0, math.inf, False),
    ("shaping", 0.0, math.inf, True),
    ("shaping_anneal", 0.0, 1.0, True),
    ("kickstart", 0.0, math.inf, True),
    ("kickstart_anneal", 0.0, 1.0, True),
    ("kickstart_floor", 0.0, math.inf, True),
    ("kickstart_share", 0.0, 1.0, True),
    ("eval_every", 0.0, math.inf, False),
    ("checkpoint_every", 0.0, math.inf, False),
    ("minutes", 0.0, MAX_MINUTES, False),
)


#: the variants whose hands ``duplicate_baseline`` can replay (:mod:`~experiments.selfplay.duplicate`)
DUPLICATE_VARIANTS = ("gin_rummy_v0", "rummy_v0")


def parse_bool(text: str) -> bool:
    """A command-line boolean: true/false, yes/no, 1/0 (any case).

    Raises:
        argparse.ArgumentTypeError: anything else (a typo must not read as false).
    """
    low = text.lower()
    if low in ("1", "true", "yes"):
        return True
    if low in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not a boolean: write true or false")


def make_plain(config: Config) -> None:
    """Turn every NumPy value of ``config`` (``env_options={"knock_limit": np.int64(10)}``,
    ``lr=np.float64(3e-4)``) into its plain Python value, in place: ``model.pt`` and
    ``checkpoint.pt`` load with ``torch.load(weights_only=True)``, which refuses NumPy scalars,
    and ``recipe.toml`` would hold ``np.float64(...)``.

    Raises:
        ValueError: a setting holds another kind of object (nothing is changed then).
    """
    plain = {f.name: plain_value(getattr(config, f.name), f.name) for f in dataclasses.fields(config)}
    for name, value in plain.items():
        setattr(config, name, value)


def check_config(config: Config, num_players: int) -> None:
    """Refuse settings out of their range (:data:`RANGES`) or that contradict each other
    (before a run builds anything).

    Args:
        config: the run's settings.
        num_players: seats of the variant's games with ``config.env_options``.

    Raises:
        ValueError: which setting, why, and what is allowed.
    """
    for name, low, high, closed in RANGES:
        value = getattr(config, name)
        if value is not None and not (low <= value <= high if closed else low < value <= high):
            raise ValueError(f"{name}={value}: allowed values are in {'[' if closed else '('}{low}, {high}]")
    for name in ("sim_threads", "torch_threads", "eval_workers"):
        if getattr(config, name) < 1:
            raise ValueError(f"{name}={getattr(config, name)}: a positive integer")
    for name in ("eval_deals", "final_eval_deals"):
        if getattr(config, name) > MAX_DEALS:
            raise ValueError(f"{name}={getattr(config, name)}: at most {MAX_DEALS:,} deals (days of play on a cluster)")
    if config.num_envs > MAX_NUM_ENVS:
        raise ValueError(f"num_envs={config.num_envs}: at most {MAX_NUM_ENVS:,} games in a batch")
    if config.num_envs * config.num_steps > MAX_ROLLOUT_STEPS:
        raise ValueError(
            f"num_envs={config.num_envs} x num_steps={config.num_steps}: a rollout holds at most "
            f"{MAX_ROLLOUT_STEPS:,} steps (an observation each)"
        )
    if config.eval_workers > max_workers():
        raise ValueError(f"eval_workers={config.eval_workers}: at most {max_workers()} local processes here")
    if refusal := seed_refusal("seed", config.seed, MAX_SEED, SEED_BOUND):
        raise ValueError(refusal)
    if config.snapshot_every < 0:
        raise ValueError(f"snapshot_every={config.snapshot_every}: updates between snapshots, >= 0 (0 takes none)")
    if config.backend not in ("local", "ray"):
        raise ValueError(f"backend={config.backend!r}: use 'local' or 'ray'")
    if config.address and config.backend != "ray":
        raise ValueError(f"address={config.address!r} is a Ray cluster's: it needs backend='ray'")
    if config.backend == "ray" and importlib.util.find_spec("ray") is None:  # not at the first evaluation
        raise ValueError("backend='ray' needs Ray: pip install -e \".[distributed]\"")
    if config.critic not in ("shared", "privileged"):
        raise ValueError(f"critic={config.critic!r}: use 'shared' or 'privileged'")
    if config.duplicate_baseline and config.variant not in DUPLICATE_VARIANTS:
        # refused here, not by the replay (duplicate.heuristic_rewards) in the middle of the run:
        # Rummikub has no compiled heuristic and 106-tile decks, Crazy Rummy 3 to 6 seats
        raise ValueError(
            f"duplicate_baseline replays hands with the compiled heuristic of {' and '.join(DUPLICATE_VARIANTS)} "
            f"only, not {config.variant}: use duplicate_baseline=false"
        )
    if config.duplicate_baseline and (num_players != 2 or not config.heuristic_share):
        raise ValueError(
            f"duplicate_baseline replays the games against the heuristic of 2-player runs "
            f"(num_players={num_players}, heuristic_share={config.heuristic_share})"
        )
    if config.duplicate_baseline and config.env_options.get("episode") == "game":
        raise ValueError(
            "duplicate_baseline replays single hands from their decks: it needs episode='hand' "
            "(with episode='game' an episode is a whole game of several deals)"
        )
    if config.suit_augment < 0:
        raise ValueError(f"suit_augment={config.suit_augment}: a penalty weight >= 0 (0: off)")
    if config.suit_augment and (config.variant != "gin_rummy_v0" or config.critic != "shared"):
        raise ValueError(
            f"suit_augment relabels Gin Rummy inputs for the shared critic only "
            f"(variant={config.variant!r}, critic={config.critic!r})"
        )
    members = league_members(config)
    shares = (config.pool_share, config.heuristic_share, config.random_share)
    if min(shares) < 0 or sum(shares) + sum(s for _, s in members) > 1 + 1e-9:
        raise ValueError(
            f"pool_share, heuristic_share and random_share {shares} and the league's shares "
            f"{tuple(s for _, s in members)} must be >= 0 and sum to at most 1"
        )
    for name, _ in members:
        if name.startswith("policy:") and not Path(name[len("policy:") :]).is_file():
            raise ValueError(f"league member {name!r}: no such file {name[len('policy:') :]!r}")
    if config.init_model and not Path(config.init_model).is_file():
        raise ValueError(f"init_model={config.init_model!r}: no such file")
    if config.critic == "privileged" and config.variant not in ("gin_rummy_v0", "rummy_v0"):
        raise ValueError(
            f"critic='privileged' reads the hidden cards of Gin Rummy and Rummy batches, not {config.variant}: "
            "use critic='shared'"
        )
    teacher = config.teacher_agent
    if teacher == "random":
        raise ValueError(
            "teacher_agent='random': kickstarting towards uniformly random play teaches nothing; "
            "use heuristic, heuristic:style=NAME or policy:PATH"
        )
    if teacher != "heuristic" and not teacher.startswith(("heuristic:style=", "policy:")):
        raise ValueError(
            f"teacher_agent={teacher!r}: use heuristic, heuristic:style=NAME or policy:PATH "
            "(the agents that play the batched engine's rows)"
        )
    if teacher.startswith("policy:") and not Path(teacher[len("policy:") :]).is_file():
        raise ValueError(f"teacher_agent={teacher!r}: no such file {teacher[len('policy:') :]!r}")
    # another teacher than the default with kickstarting off would be silently ignored (as a
    # teacher_margin without labels would): refused, like that one.  With teacher_labels the
    # teacher only teaches the games against random play (experiments.selfplay.rollout).
    share = "random_share" if config.teacher_labels else "kickstart_share"
    if teacher != "heuristic" and not (config.kickstart and config.kickstart_anneal and getattr(config, share)):
        raise ValueError(
            f"teacher_agent={teacher!r} would teach no decision (kickstart={config.kickstart}, "
            f"kickstart_anneal={config.kickstart_anneal}, {share}={getattr(config, share)}): "
            f"set all three > 0, or leave teacher_agent='heuristic'"
            + ("; with teacher_labels it teaches only the games against random play" if config.teacher_labels else "")
        )
    if config.kickstart_floor and not (config.kickstart and config.kickstart_anneal):
        # kickstart_anneal=0 or kickstart=0 turns kickstarting off (Learner.kickstart_weight):
        # a floor would be silently ignored, so it is refused like a teacher that teaches nothing
        raise ValueError(
            f"kickstart_floor={config.kickstart_floor} has no effect: kickstarting is off "
            f"(kickstart={config.kickstart}, kickstart_anneal={config.kickstart_anneal}); "
            "set both > 0 to keep the floor after the decay, or kickstart_floor=0"
        )
    if config.teacher_margin and not config.teacher_labels:
        raise ValueError(f"teacher_margin={config.teacher_margin} picks labels, but no teacher_labels are given")


def parse_league(text: str) -> list[tuple[str, float]]:
    """``"heuristic:style=upcard_meld_only@0.2;policy:m.pt@0.1"`` -> ``[(name, share), ...]``.

    Raises:
        ValueError: an entry without ``@SHARE``, a share that is not a number in (0, 1], or a
            name given twice.
    """
    members: list[tuple[str, float]] = []
    for entry in (e.strip() for e in text.split(";")):
        if not entry:
            continue
        name, at, share = entry.rpartition("@")
        try:
            value = float(share)
        except ValueError:
            value = float("nan")
        if not at or not name or not 0 < value <= 1:
            raise ValueError(f"league entry {entry!r}: write NAME@SHARE with a share in (0, 1], e.g. heuristic@0.2")
        if name in (m for m, _ in members):
            raise ValueError(f"league member {name!r} is given twice")
        members.append((name, value))
    return members


def league_members(config: Config) -> list[tuple[str, float]]:
    """The ``(name, share)`` of each member of ``config.league`` (:func:`parse_league`).

    Raises:
        ValueError: a malformed league.
    """
    return parse_league(config.league)


def eval_opponents(config: Config) -> list[str] | None:
    """The evaluations' opponents (``config.eval_opponents`` split at ``;``), or None for the
    variant's baselines."""
    names = [n.strip() for n in config.eval_opponents.split(";") if n.strip()]
    return names or None


def vector_class(variant: str):
    """The batched engine of ``variant`` (``rummy_env.vector``).

    Raises:
        ValueError: no batched engine for this variant.
    """
    from rummy_env import vector

    classes = {
        "gin_rummy_v0": "GinRummyVec",
        "rummy_v0": "RummyVec",
        "crazy_rummy_v0": "CrazyRummyVec",
        "rummikub_v0": "RummikubVec",
    }
    if variant not in classes:
        raise ValueError(f"no batched simulator for {variant}: self-play trains on {', '.join(classes)}")
    name = classes[variant]
    if not hasattr(vector, name) or os.environ.get("RUMMY_SELFPLAY_REFERENCE"):
        # the pure-Python reference engine of the same API (slow: tests and debugging)
        name = "Reference" + name
    return getattr(vector, name)


#: the folder of the named recipes (``--recipe gin`` is ``RECIPES / "gin.toml"``)
RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def recipe_path(name: str) -> Path:
    """The file of a recipe: a path to a ``.toml`` file, or the name of one in :data:`RECIPES`.

    Raises:
        ValueError: no such file; the message lists the named recipes.
    """
    path = Path(name)
    if path.suffix != ".toml":
        if path.is_file():
            raise ValueError(f"recipe {name!r} is a file but not a recipe: recipes are .toml files (or a named recipe)")
        path = RECIPES / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in RECIPES.glob("*.toml")))
        raise ValueError(f"recipe {name!r}: no file {path} (named recipes: {known}; or give a path to a .toml file)")
    return path


def load_recipe(name: str) -> dict:
    """The settings of a recipe (:func:`recipe_path`): :class:`Config` field names and values,
    ``variant`` as the tournament spells it (``gin_rummy``), ``env_options`` as a table.

    Raises:
        ValueError: no such recipe, a file that is not TOML, or a key that is not a setting.
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    path = recipe_path(name)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"recipe {str(path)!r} is not valid TOML: {err}") from None
    unknown = sorted(set(data) - set(Config.__dataclass_fields__))
    if unknown:
        raise ValueError(
            f"recipe {str(path)!r}: {', '.join(unknown)} is not a setting of experiments.selfplay; the settings "
            f"are {', '.join(Config.__dataclass_fields__)}"
        )
    kinds = {f.name: f.type.removesuffix(" | None") for f in dataclasses.fields(Config)}
    for key, value in data.items():  # a value of the wrong kind would be blamed on its flag by argparse
        expected, fits = _KINDS[kinds[key]]
        if not fits(value):
            try:
                shown = _toml_value(value)
            except TypeError:  # a table, or an array holding one
                shown = "a table" if isinstance(value, dict) else "an array of tables"
            raise ValueError(f"recipe {str(path)!r}: {key} = {shown}, expected {expected}")
    return data


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: a setting's annotation (``Config``) -> (what its value must be, the check of a TOML value)
_KINDS = {
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "int": ("an integer", _is_int),
    "float": ("a number", lambda v: _is_int(v) or isinstance(v, float)),
    "str": ("a string", lambda v: isinstance(v, str)),
    "dict": ("a table", lambda v: isinstance(v, dict)),
    "tuple": ("an array of integers", lambda v: isinstance(v, list) and all(map(_is_int, v))),
}


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to a recipe")


def write_recipe(config: Config, path: Path) -> Path:
    """Write every setting of ``config`` as a recipe file (TOML) that ``--recipe PATH`` reads back."""
    values = asdict(config)
    options = values.pop("env_options")
    lines = ["# the settings of this run: python -m experiments.selfplay --recipe <this file> repeats it"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in values.items() if v is not None]
    lines += ["", "[env_options]"] + [f"{k} = {_toml_value(v)}" for k, v in options.items()]
    with atomic_open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path

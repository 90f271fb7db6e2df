"""Recipes: TOML files of self-play settings, flags that override them, and the recipe a run
writes into its folder."""

from pathlib import Path

import numpy as np
import pytest

from experiments import selfplay
from experiments.selfplay.cli import parse_args
from experiments.selfplay.config import RECIPES, Config, load_recipe, write_recipe
from experiments.selfplay.opponents import HEURISTIC, LEAGUE, POOL, SELF, Opponents
from rummy_env import gin_rummy_v0
from tests.helpers import Fragment, usage_error


def test_the_named_recipes_are_the_committed_models_settings():
    named = {"crazy", "crazy_out", "crazy_safe", "crazy_discard", "gin", "gin_league", "rummy", "rummikub"}
    named |= {"rummikub_plan"}
    assert named <= {p.stem for p in RECIPES.glob("*.toml")}
    rummy = load_recipe("rummy")
    assert rummy == {
        "variant": "rummy", "minutes": 58, "num_envs": 512, "minibatch_size": 1024, "ent_coef": 0.003,
        "kickstart_anneal": 0.3, "kickstart_floor": 0.05, "heuristic_share": 0.9, "pool_share": 0.05,
        "eval_every": 8, "initial_eval": False,
    }  # fmt: skip
    gin = load_recipe("gin")
    assert gin["features"] == "gin_read" and gin["teacher_labels"] == "results/labels/gin.npz"
    assert (gin["teacher_margin"], gin["heuristic_share"], gin["random_share"]) == (0.03, 0.85, 0.05)
    crazy = load_recipe("crazy")
    assert crazy["variant"] == "crazy_rummy" and crazy["env_options"] == {"num_players": 3}
    assert (crazy["teacher_agent"], crazy["kickstart_share"]) == ("heuristic:style=hold_wilds", 1.0)
    assert (crazy["minutes"], crazy["lr"], crazy["kickstart_floor"]) == (50, 0.001, 1.0)
    assert "teacher_labels" not in crazy and crazy["shaping"] == 0.0
    # the same recipe with the go-out look-ahead as inputs, within the hour issue 26 allows
    crazy_out = load_recipe("crazy_out")
    assert {k: v for k, v in crazy_out.items() if k not in ("features", "minutes")} == {
        k: v for k, v in crazy.items() if k != "minutes"
    }
    assert (crazy_out["features"], crazy_out["minutes"]) == ("crazy_out", 55)
    # and with the stronger teacher hold_wilds_safe
    crazy_safe = load_recipe("crazy_safe")
    assert {k: v for k, v in crazy_safe.items() if k != "teacher_agent"} == {
        k: v for k, v in crazy_out.items() if k != "teacher_agent"
    }
    assert crazy_safe["teacher_agent"] == "heuristic:style=hold_wilds_safe"
    # and with that teacher's discard rule as inputs
    crazy_discard = load_recipe("crazy_discard")
    assert {k: v for k, v in crazy_discard.items() if k != "features"} == {
        k: v for k, v in crazy_safe.items() if k != "features"
    }
    assert crazy_discard["features"] == "crazy_discard"
    rummikub = load_recipe("rummikub")
    assert rummikub["variant"] == "rummikub" and rummikub["env_options"] == {"num_players": 2}
    assert (rummikub["teacher_agent"], rummikub["kickstart_share"]) == ("heuristic:style=patient", 1.0)
    # its committed model, widened to the going-out play's next tile and trained on
    rummikub_plan = load_recipe("rummikub_plan")
    changed = ("features", "init_model", "minutes")
    assert {k: v for k, v in rummikub_plan.items() if k not in changed} == {
        k: v for k, v in rummikub.items() if k not in changed
    }
    assert [rummikub_plan[k] for k in changed] == ["rk_plan", "docs/results/selfplay-rummikub/model.pt", 30]


def test_flags_override_single_settings_of_a_recipe():
    cfg, _, _, _, given = parse_args(["--recipe", "rummy", "--minutes", "2", "--ent-coef", "0.01"])
    assert cfg.variant == "rummy_v0" and cfg.num_envs == 512 and cfg.heuristic_share == 0.9
    assert cfg.minutes == 2.0 and cfg.ent_coef == 0.01 and cfg.lr == selfplay.Config().lr
    assert {"minutes", "ent_coef", "num_envs", "heuristic_share"} <= given


def test_a_written_recipe_reads_back_to_the_same_settings(tmp_path):
    cfg = selfplay.Config(
        variant="rummy_v0", env_options={"num_players": 3, "ace_high": True}, hidden=(64, 32), minutes=1.5, seed=4
    )
    path = write_recipe(cfg, tmp_path / "recipe.toml")
    back, _, _, _, _ = parse_args(["--recipe", str(path)])
    assert back == cfg


@pytest.mark.parametrize(
    "recipe, message",
    [
        (
            "nosuch",
            f"recipe 'nosuch': no file {RECIPES / 'nosuch.toml'} (named recipes: crazy, crazy_discard, crazy_out, "
            "crazy_safe, gin, gin_league, rummikub, rummikub_plan, rummy; or give a path to a .toml file)",
        ),
        ("notes.txt", "recipe 'notes.txt' is a file but not a recipe: recipes are .toml files (or a named recipe)"),
        ("bad.toml", Fragment("recipe 'bad.toml' is not valid TOML: ")),  # then tomllib's words
        (
            "unknown.toml",
            "recipe 'unknown.toml': learning_rate is not a setting of experiments.selfplay; the settings are "
            + ", ".join(Config.__dataclass_fields__),
        ),
        # a value of the wrong kind is the recipe's fault, not the flag's (argparse said "argument --lr")
        ("text.toml", "recipe 'text.toml': lr = \"abc\", expected a number"),
        ("half.toml", "recipe 'half.toml': num_envs = 2.5, expected an integer"),
        ("flag.toml", "recipe 'flag.toml': anneal_lr = 1, expected true or false"),
        ("hidden.toml", "recipe 'hidden.toml': hidden = [\"64\"], expected an array of integers"),
        ("minutes.toml", "recipe 'minutes.toml': minutes = true, expected a number"),  # its default is None
    ],
)
def test_bad_recipes_are_refused_with_the_reason(recipe, message, tmp_path, capsys, monkeypatch):
    (tmp_path / "bad.toml").write_text("minutes = = 3\n")
    (tmp_path / "notes.txt").write_text("minutes = 3\n")
    (tmp_path / "unknown.toml").write_text("learning_rate = 0.1\n")
    (tmp_path / "text.toml").write_text('lr = "abc"\n')
    (tmp_path / "half.toml").write_text("num_envs = 2.5\n")
    (tmp_path / "flag.toml").write_text("anneal_lr = 1\n")
    (tmp_path / "hidden.toml").write_text('hidden = ["64"]\n')
    (tmp_path / "minutes.toml").write_text("minutes = true\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        parse_args(["--recipe", recipe])
    assert usage_error(capsys.readouterr().err, message)


def test_recipes_live_in_the_experiments_package():
    assert Path(selfplay.__file__).resolve().parent.parent / "recipes" == RECIPES


def test_the_gin_league_recipe_seats_its_population(monkeypatch):
    # the recipe's paths are relative to the repository root, where its command runs
    monkeypatch.chdir(RECIPES.parent.parent)
    cfg, _, _, _, _ = parse_args(["--recipe", "gin_league"])
    assert (cfg.init_model, cfg.lr, cfg.shaping, cfg.kickstart, cfg.final_eval_deals) == (
        "docs/results/selfplay-gin/model.pt", 1e-4, 0.0, 0.0, 0
    )  # fmt: skip
    learner = selfplay.Learner(cfg)
    assert (learner.cfg.hidden, learner.cfg.features) == ((256, 256), "gin_read")  # the starting model's shape
    opponents = Opponents(learner, gin_rummy_v0.env())
    assert [(agent.name, agent.style) for agent in opponents.league] == [
        ("heuristic:style=upcard_meld_only", "upcard_meld_only"),
        ("heuristic:style=defensive", "defensive"),
        ("heuristic:style=gin_hunter", "gin_hunter"),
        ("policy:docs/results/selfplay-gin/model.pt", None),
    ]
    # 512 games: each share rounded to whole games, self-play gets the rest
    kinds, counts = np.unique(opponents.kind, return_counts=True)
    assert dict(zip(kinds.tolist(), counts.tolist(), strict=True)) == {
        SELF: 26, POOL: 77, HEURISTIC: 51, LEAGUE: 230, LEAGUE + 1: 41, LEAGUE + 2: 36, LEAGUE + 3: 51
    }  # fmt: skip

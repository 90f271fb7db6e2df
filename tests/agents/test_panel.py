"""The opponent panels (``agents.panel``): their exact composition at version 3, model
paths that work from any directory, members this install cannot build dropped on
request with a reason, and every member an agent ``make_agent`` builds."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents import make_agent
from agents.panel import PANEL_VERSION, PANELS, ROOT, missing, panel, panel_variant
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from tests.helpers import whole

GIN = ROOT / "docs/results/selfplay-gin/model.pt"
RUMMY = ROOT / "docs/results/selfplay-rummy/model.pt"
CRAZY = ROOT / "docs/results/selfplay-crazy/model.pt"
CRAZY_DISCARD = ROOT / "docs/results/selfplay-crazy-discard/model.pt"
LEAGUE = ROOT / "docs/results/selfplay-gin-league/model.pt"
RUMMIKUB = ROOT / "docs/results/selfplay-rummikub/model.pt"
RUMMIKUB_PLAN = ROOT / "docs/results/selfplay-rummikub-plan/model.pt"


def test_the_panels_of_version_3():
    assert PANEL_VERSION == 3
    assert Path(__file__).resolve().parents[2] == ROOT
    assert panel("gin_rummy") == [
        "random",
        "heuristic",
        "heuristic:style=gin_hunter",
        "heuristic:style=defensive",
        "heuristic:style=upcard_meld_only",
        "pimc:model=1",
        f"policy:{GIN}",
        f"policy:{LEAGUE}",
        "openspiel_gin_bot",
    ]
    assert panel("rummy_v0") == [
        "random",
        "heuristic",
        "heuristic:style=go_rummy",
        "heuristic:style=defensive",
        "heuristic:style=shed_high",
        "pimc:model=1",
        f"policy:{RUMMY}",
    ]
    assert panel("crazy_rummy") == [
        "random",
        "heuristic",
        "heuristic:style=hold_wilds",
        "heuristic:style=shed_high",
        "heuristic:style=defensive",
        "pimc:model=1",
        f"policy:{CRAZY}",
        f"policy:{CRAZY_DISCARD}",
    ]
    assert panel("rummikub") == [
        "random",
        "heuristic",
        "heuristic:style=patient",
        "heuristic:style=hold_jokers",
        "heuristic:style=most_tiles",
        "heuristic:style=big_plays",
        "pimc:model=1",
        f"policy:{RUMMIKUB}",
        f"policy:{RUMMIKUB_PLAN}",
    ]
    assert PANELS["gin_rummy_v0"][6] == "policy:docs/results/selfplay-gin/model.pt"  # as written: relative
    assert all(path.is_file() for path in (GIN, LEAGUE, RUMMY, CRAZY, CRAZY_DISCARD, RUMMIKUB, RUMMIKUB_PLAN))


def test_an_unknown_variant_is_refused_with_the_variants_that_have_a_panel():
    for bad in ("poker", None):
        message = (
            f"no opponent panel for variant {bad!r}: panels exist for gin_rummy_v0, rummy_v0, crazy_rummy_v0, "
            "rummikub_v0 (or the names without _v0)"
        )
        with pytest.raises(ValueError, match=whole(message)):
            panel(bad)
    assert panel_variant("rummikub") == panel_variant("rummikub_v0") == "rummikub_v0"


def test_model_paths_resolve_from_any_working_directory(tmp_path):
    code = "from agents.panel import panel; print(panel('rummy')[-1])"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"policy:{RUMMY}"


def test_members_without_their_extra_are_dropped_with_the_reason(monkeypatch):
    assert missing("openspiel_gin_bot") is None and missing(f"policy:{GIN}") is None and missing("heuristic") is None
    nowhere = str(ROOT / "docs/results/nowhere/model.pt")
    assert missing("policy:docs/results/nowhere/model.pt") == f"its model file {nowhere!r} does not exist"
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspiel" else real(name, *a))
    with pytest.warns(UserWarning) as caught:
        kept = panel("gin_rummy", available_only=True)
    assert kept == panel("gin_rummy")[:-1]
    assert [str(w.message) for w in caught] == [
        "opponent panel v3 of gin_rummy_v0 without 'openspiel_gin_bot': it needs the reference extra "
        '(pyspiel is not installed: pip install -e ".[reference]")'
    ]
    assert panel("gin_rummy") == [*kept, "openspiel_gin_bot"]  # without available_only every member is listed
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    said = (
        f"opponent panel v3 of rummy_v0 without 'policy:{RUMMY}': it needs the train extra (torch is not installed: "
        'pip install torch==2.13.0 && pip install -e ".[train]")'
    )
    with pytest.warns(UserWarning, match=whole(said)):
        assert panel("rummy", available_only=True) == panel("rummy")[:-1]


# the first ten decisions (fewer if the hand ends) of each member playing every seat of the
# hand dealt by reset(seed=1), built with seed=0: pinned once, so that a change of a member's
# behaviour (a style, a model file, the random agent's draws) fails here.  The search member
# (pimc) is pinned in tests/agents/test_search_whole_games.py, the OpenSpiel bot apart (issue 25).
PLAYS = {
    "gin_rummy_v0": {
        "random": [
            "pass",
            "pass",
            "discard 2H",
            "draw stock",
            "discard TC",
            "draw stock",
            "discard 4C",
            "draw stock",
            "discard 7C",
            "draw upcard",
        ],
        "heuristic": [
            "pass",
            "pass",
            "discard QH",
            "draw stock",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw upcard",
            "knock 8C",
        ],
        "heuristic:style=gin_hunter": [
            "pass",
            "pass",
            "discard QH",
            "draw stock",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw upcard",
            "discard 8C",
            "draw stock",
        ],
        "heuristic:style=defensive": [
            "pass",
            "pass",
            "discard QH",
            "draw stock",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw upcard",
            "knock 8C",
        ],
        "heuristic:style=upcard_meld_only": [
            "pass",
            "pass",
            "discard QH",
            "draw stock",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw upcard",
            "knock 8C",
        ],
        f"policy:{GIN}": [
            "pass",
            "pass",
            "discard QH",
            "draw stock",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw upcard",
            "knock 8C",
        ],
        f"policy:{LEAGUE}": [
            "draw upcard",
            "discard 6H",
            "draw stock",
            "discard QS",
            "draw upcard",
            "discard 5H",
            "draw stock",
            "discard 7C",
            "draw stock",
            "discard 7D",
        ],
    },
    "rummy_v0": {
        "random": [
            "draw discard",
            "discard 6H",
            "draw discard",
            "discard 8C",
            "draw stock",
            "discard 4C",
            "draw stock",
            "discard AC",
            "draw stock",
            "discard QH",
        ],
        "heuristic": [
            "draw stock",
            "meld JD QD KD",
            "discard 8D",
            "draw stock",
            "meld 2D 3D 4D 5D",
            "layoff TD low",
            "discard QS",
            "draw stock",
            "discard 7D",
            "draw stock",
        ],
        "heuristic:style=go_rummy": [
            "draw stock",
            "discard 8D",
            "draw stock",
            "discard QS",
            "draw discard",
            "discard 4C",
            "draw stock",
            "discard TD",
            "draw discard",
            "discard TH",
        ],
        "heuristic:style=defensive": [
            "draw stock",
            "meld JD QD KD",
            "discard 8D",
            "draw stock",
            "meld 2D 3D 4D 5D",
            "layoff TD low",
            "discard QS",
            "draw stock",
            "discard 7D",
            "draw stock",
        ],
        "heuristic:style=shed_high": [
            "draw stock",
            "meld JD QD KD",
            "discard QH",
            "draw stock",
            "meld 2D 3D 4D 5D",
            "layoff TD low",
            "discard QS",
            "draw stock",
            "discard TH",
            "draw stock",
        ],
        f"policy:{RUMMY}": [
            "draw stock",
            "meld JD QD KD",
            "discard 8D",
            "draw stock",
            "meld 2D 3D 4D 5D",
            "layoff TD low",
            "discard QS",
            "draw stock",
            "discard 7D",
            "draw stock",
        ],
    },
    "crazy_rummy_v0": {
        "random": [
            "discard QS",
            "draw discard",
            "discard KS",
            "draw stock",
            "discard TC",
            "draw stock",
            "discard AC",
            "draw stock",
            "discard 2S",
            "draw discard",
        ],
        "heuristic": [
            "meld QD QH QS",
            "discard 3D",
            "draw discard",
            "meld KC KD KS",
            "discard TH",
            "draw stock",
            "discard JD",
            "draw discard",
            "discard AC",
            "draw stock",
        ],
        "heuristic:style=hold_wilds": [
            "meld QD QH QS",
            "discard 3D",
            "draw discard",
            "discard TH",
            "draw stock",
            "discard JD",
            "draw stock",
            "discard 5D",
            "draw discard",
            "discard KS",
        ],
        "heuristic:style=shed_high": [
            "meld QD QH QS",
            "discard TS",
            "draw discard",
            "meld TC TH TS",
            "discard KS",
            "draw stock",
            "discard JD",
            "draw stock",
            "layoff TD set",
            "discard 8D",
        ],
        "heuristic:style=defensive": [
            "meld QD QH QS",
            "discard 3D",
            "draw discard",
            "meld KC KD KS",
            "discard TH",
            "draw stock",
            "discard 2H",
            "draw stock",
            "discard AC",
            "draw stock",
        ],
        f"policy:{CRAZY}": [
            "meld QD QH QS",
            "discard 3D",
            "draw discard",
            "discard TH",
            "draw stock",
            "discard JD",
            "draw stock",
            "discard 5D",
            "draw discard",
            "discard KS",
        ],
        f"policy:{CRAZY_DISCARD}": [
            "meld QD QH QS",
            "discard 3D",
            "draw discard",
            "discard TH",
            "draw stock",
            "discard JD",
            "draw stock",
            "discard AC",
            "draw stock",
            "discard KD",
        ],
    },
    "rummikub_v0": {
        "random": ["draw", "draw", "draw", "add B10", "add B11", "add JK", "commit", "draw", "add R10", "add R11"],
        "heuristic": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        "heuristic:style=patient": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        "heuristic:style=hold_jokers": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        "heuristic:style=most_tiles": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        "heuristic:style=big_plays": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        f"policy:{RUMMIKUB}": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
        f"policy:{RUMMIKUB_PLAN}": [
            "draw",
            "add R8",
            "add R9",
            "add R10",
            "add R11",
            "add B5",
            "add B11",
            "add K5",
            "add Y5",
            "add Y11",
        ],
    },
}


@pytest.mark.parametrize("module", [gin_rummy_v0, rummy_v0, crazy_rummy_v0, rummikub_v0])
def test_every_member_plays_its_pinned_decisions(module):
    variant = module.env().unwrapped.metadata["name"]
    names = panel(variant)
    assert [n for n in names if n not in PLAYS[variant]] == (
        ["pimc:model=1", "openspiel_gin_bot"] if module is gin_rummy_v0 else ["pimc:model=1"]
    )
    for name in names:
        if name == "openspiel_gin_bot":
            continue  # its agent is written apart (issue 25): listed here, built by the registry
        env = module.env()
        agent = make_agent(name, env, seed=0)
        if name.startswith("pimc"):  # its decisions are tested in tests/agents/test_search*.py
            assert agent.model == 1.0
        if name not in PLAYS[variant]:
            continue
        env.reset(seed=1)
        state, played = env.unwrapped.game_state, []
        while len(played) < 10 and not any(env.last()[2:4]):
            obs = env.last()[0]
            action = agent.act(obs)
            assert obs["action_mask"][action] == 1, (name, played)
            played.append(type(state).action_to_string(action))
            env.step(action)
        assert played == PLAYS[variant][name], name

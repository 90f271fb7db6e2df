"""The committed training results the README and the documentation site cite exist, match
the results page's table and play (issue 10, item 3)."""

import json
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: the README, the changelog and every page of the documentation site
DOCUMENTS = "\n".join(
    [README, (ROOT / "CHANGELOG.md").read_text(), *(p.read_text() for p in (ROOT / "docs").rglob("*.md"))]
)
RESULTS_PAGE = (ROOT / "docs" / "results.md").read_text()
RUNS = {"sb3-gin": "gin_rummy_v0", "sb3-rummy": "rummy_v0"}


def test_every_docs_path_the_documents_name_exists_and_is_tracked():
    paths = set(re.findall(r"docs/results/[\w\-./]*[\w\-]", DOCUMENTS))
    assert "docs/results/sb3-gin/model.zip" in paths and {f"docs/results/{run}" for run in RUNS} <= paths
    tracked = subprocess.run(["git", "ls-files", "docs/results"], cwd=ROOT, capture_output=True, text=True).stdout
    for path in paths:
        assert (ROOT / path).exists(), path
        if (ROOT / path).is_file():
            assert path in tracked.split(), f"{path} is not committed (ignored?)"


@pytest.mark.parametrize("run", list(RUNS))
def test_the_results_page_shows_the_committed_evaluation(run):
    summary = json.loads((ROOT / "docs" / "results" / run / "evaluation.json").read_text())
    assert summary["variant"] == RUNS[run]
    line = next(row for row in RESULTS_PAGE.splitlines() if f"--out docs/results/{run}`" in row)
    assert f"| {summary['timesteps'] / 1000:.1f}k |" in line
    for evaluation in summary["evaluation"]:
        low, high = evaluation["win_rate_ci_low"], evaluation["win_rate_ci_high"]
        figure = f"{evaluation['win_rate']:.3f} [{low:.3f}, {high:.3f}] ({evaluation['draws']})"
        assert figure in line, (figure, line)
    for name in ("model.zip", "learning_curve.csv", "learning_curve.png"):
        assert (ROOT / "docs" / "results" / run / name).stat().st_size > 0
    assert (ROOT / "docs" / "results" / run / "model.zip").stat().st_size < 5_000_000


#: the first 20 actions of each committed SB3 model in both seats of seed 0's hand (deterministic
#: policies: the same on every run)
FIRST_ACTIONS = {
    "sb3-gin": [106, 105, 36, 105, 35, 105, 10, 105, 36, 105, 35, 105, 10, 105, 36, 105, 35, 105, 10, 105],
    "sb3-rummy": [52, 18, 52, 6, 52, 34, 52, 10, 52, 46, 52, 271, 50, 52, 20, 52, 16, 52, 23, 52],
}


@pytest.mark.parametrize("run", list(RUNS))
def test_the_committed_models_play_legal_moves(run):
    from agents import make_agent
    from experiments.common import load_variant

    env = load_variant(RUNS[run]).env()
    env.reset(seed=0)
    agent = make_agent(f"policy:docs/results/{run}/model.zip", env)
    actions = []
    for _ in range(20):
        obs, _, done, cut, _ = env.last()
        assert not (done or cut)
        action = agent.act(obs)
        assert obs["action_mask"][action] == 1
        actions.append(int(action))
        env.step(action)
    assert actions == FIRST_ACTIONS[run]

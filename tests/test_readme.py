"""The README's Python examples run as written (in order, in one namespace), and its first
code block holds the two commands CI runs."""

import importlib.util
import re

from tests.markdown_code import ROOT, code_blocks, run_python_blocks

README = (ROOT / "README.md").read_text()


def test_python_examples_run(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert len(code_blocks(README)) >= 1
    namespace = run_python_blocks(README, "README.md")
    assert namespace["env"].infos["player_0"]["layoffs"] == "7D on 4D 5D 6D | 8D on 4D 5D 6D"
    # the example's comments show what it prints: the seeded hand, then the stacked knock
    assert capsys.readouterr().out.splitlines() == ["knock player_0 4 33", "7D on 4D 5D 6D | 8D on 4D 5D 6D 34"]


def test_first_block_is_the_main_job_then_the_tests():
    first = re.search(r"```bash\n(.*?)```", README, flags=re.S).group(1).strip().splitlines()
    assert first[0].endswith("python -m experiments.tournament")
    assert first[1].endswith("pytest") and "pip install" in first[1]


def test_every_file_and_job_it_names_exists():
    files = re.findall(
        r"`((?:\.ci|docs|experiments|rummy_env|agents|tests|notebooks)/[^`\s]*|[A-Z]+\.md|mkdocs\.yml|pyproject\.toml)`",
        README,
    )
    files += re.findall(r"!\[[^]]*\]\(([^)]+)\)", README)  # pictures
    assert "experiments/recipes/" in files and "docs/images/serve_play.png" in files
    recipes = set(re.findall(r"`(\w+)\.toml`", README)) - {"recipe"}  # a run's own recipe.toml
    assert recipes == {"gin", "gin_league", "rummy", "crazy", "crazy_out", "crazy_safe", "crazy_discard"} | {
        "rummikub",
        "rummikub_plan",
    }
    files += [f"experiments/recipes/{name}.toml" for name in recipes]
    for name in files:
        pattern = re.sub(r"<[^>]+>", "*", name)  # rummy_env/envs/<variant>.py
        assert list(ROOT.glob(pattern.rstrip("/"))), f"the README names {name}, which does not exist"
    jobs = set(re.findall(r"python -m (experiments(?:\.\w+)+)", README))
    assert {f"experiments.{job}" for job in ("tournament", "evaluate", "selfplay", "serve")} <= jobs
    for job in jobs:
        assert importlib.util.find_spec(job) is not None, job

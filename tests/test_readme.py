"""The README's Python examples run as written (in order, in one namespace), and its first
code block holds the two commands CI runs."""

import re

from tests.markdown_code import ROOT, code_blocks, run_python_blocks

README = (ROOT / "README.md").read_text()


def test_python_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert len(code_blocks(README)) >= 1
    namespace = run_python_blocks(README, "README.md")
    assert namespace["env"].infos["player_0"]["layoffs"] == "7D on 4D 5D 6D | 8D on 4D 5D 6D"


def test_first_block_is_the_main_job_then_the_tests():
    first = re.search(r"```bash\n(.*?)```", README, flags=re.S).group(1).strip().splitlines()
    assert first[0].endswith("python -m experiments.tournament")
    assert first[1].endswith("pytest") and "pip install" in first[1]

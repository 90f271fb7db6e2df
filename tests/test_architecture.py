"""The layering of ARCHITECTURE.md: engines are framework-free; the library never
imports the agents or the jobs."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FRAMEWORK_FREE = ["rummy_env", "rummy_env.core.cards", "rummy_env.core.melds", "rummy_env.core.table",
                  "rummy_env.games.rummy", "rummy_env.games.crazy_rummy", "rummy_env.encoding.rummy",
                  "rummy_env.encoding.crazy_rummy", "rummy_env.render.text"]


def test_engines_load_neither_pettingzoo_nor_gymnasium():
    code = (f"import importlib, sys\nfor m in {FRAMEWORK_FREE!r}: importlib.import_module(m)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pettingzoo', 'gymnasium'))\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_only_the_envs_layer_imports_the_frameworks_and_nothing_imports_agents_or_jobs():
    for path in (ROOT / "rummy_env").rglob("*.py"):
        modules = set(imported_modules(path))
        roots = {m.split(".")[0] for m in modules}
        assert not roots & {"agents", "experiments"}, path
        in_envs = path.parent.name == "envs" or path.name.endswith("_v0.py")
        if not in_envs:
            assert not roots & {"pettingzoo", "gymnasium"}, path

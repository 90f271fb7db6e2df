"""The Gin Rummy engine, solver, encoder and renderer load neither pettingzoo nor
gymnasium (ARCHITECTURE.md: only ``envs`` imports the frameworks)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
MODULES = [
    "rummy_env.core.deadwood",
    "rummy_env.games.gin_rummy",
    "rummy_env.encoding.gin_rummy",
    "rummy_env.render.text",
]


def test_gin_engine_loads_neither_pettingzoo_nor_gymnasium():
    code = (
        f"import importlib, sys\nfor m in {MODULES!r}: importlib.import_module(m)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pettingzoo', 'gymnasium')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_constant_tables_are_built_once_at_import(monkeypatch):
    # a reset must not rebuild tables: the deadwood tables are module constants
    from rummy_env import gin_rummy_v0
    from rummy_env.core import deadwood

    before = deadwood.SUIT_DEADWOOD
    assert len(before) == 8192 and isinstance(before, tuple)
    assert sum(before) == 191488  # the least deadwood of every one-suit holding (runs only), summed
    builds = []
    monkeypatch.setattr(deadwood, "_build_tables", lambda: builds.append(1))
    env = gin_rummy_v0.env()
    for seed in range(3):
        env.reset(seed=seed)
        env.step(int(env.observe(env.agent_selection)["action_mask"].argmax()))
    assert builds == [] and deadwood.SUIT_DEADWOOD is before

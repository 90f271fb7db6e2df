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


def test_constant_tables_are_built_once_at_import():
    # a reset must not rebuild tables: the deadwood tables are module constants
    from rummy_env.core import deadwood

    assert len(deadwood.SUIT_DEADWOOD) == 8192 and isinstance(deadwood.SUIT_DEADWOOD, tuple)

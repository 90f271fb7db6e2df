"""The layering of ARCHITECTURE.md: engines are framework-free; the library never
imports the agents or the jobs."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FRAMEWORK_FREE = [
    "rummy_env",
    "rummy_env.core.cards",
    "rummy_env.core.melds",
    "rummy_env.core.table",
    "rummy_env.core.deadwood",
    "rummy_env.core.tiles",
    "rummy_env.core.rummikub_solver",
    "rummy_env.games.rummy",
    "rummy_env.games.crazy_rummy",
    "rummy_env.games.gin_rummy",
    "rummy_env.games.rummikub",
    "rummy_env.encoding.rummy",
    "rummy_env.encoding.crazy_rummy",
    "rummy_env.encoding.gin_rummy",
    "rummy_env.encoding.rummikub",
    "rummy_env.render.text",
    "rummy_env.render.shapes",
    "rummy_env.render.scene",
    "rummy_env.render.scene_rummikub",
    "rummy_env.render.svg",
    "rummy_env.render.image",
    # the batched engines (their pure-Python twins, vector.reference, drive the env itself)
    "rummy_env.vector",
    "rummy_env.vector.gin_vec",
    "rummy_env.vector.rummy_vec",
    "rummy_env.vector.crazy_vec",
    "rummy_env.vector.rummikub_vec",
]


def test_engines_load_neither_pettingzoo_nor_gymnasium():
    code = (
        f"import importlib, sys\nfor m in {FRAMEWORK_FREE!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pettingzoo', 'gymnasium'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_core_uses_only_the_standard_library_numpy_and_numba():
    allowed = {"numpy", "numba", "rummy_env", "__future__"}
    for path in (ROOT / "rummy_env" / "core").glob("*.py"):
        roots = {m.split(".")[0] for m in imported_modules(path)}
        third_party = {r for r in roots if r not in sys.stdlib_module_names}
        assert third_party <= allowed, (path, third_party - allowed)


def test_only_the_envs_layer_imports_the_frameworks_and_nothing_imports_agents_or_jobs():
    for path in (ROOT / "rummy_env").rglob("*.py"):
        modules = set(imported_modules(path))
        roots = {m.split(".")[0] for m in modules}
        assert not roots & {"agents", "experiments"}, path
        in_envs = path.parent.name == "envs" or path.name.endswith("_v0.py")
        if not in_envs:
            assert not roots & {"pettingzoo", "gymnasium"}, path


def test_every_engine_state_names_its_actions_as_the_env_does():
    # games/base.py: engine states carry ``num_actions`` and ``action_to_string`` (its
    # illegal-move messages use them), the same as the env's text of each id
    from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0

    for module in (rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0):
        raw = module.raw_env
        state = raw.game_class().new_initial_state(rng=0)
        assert type(state).num_actions == raw.num_actions
        assert [type(state).action_to_string(a) for a in range(raw.num_actions)] == [
            raw.action_to_string(a) for a in range(raw.num_actions)
        ]


def test_text_and_svg_rendering_need_no_pillow():
    # Pillow is the optional render extra: only render/image.py loads it, when drawing
    code = (
        "import sys\nfrom rummy_env import gin_rummy_v0\n"
        "env = gin_rummy_v0.env(render_mode='ansi'); env.reset(seed=0); env.render(); env.unwrapped.render_svg()\n"
        "import rummy_env.render.image\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'PIL'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def import_graph():
    """Every module of ``rummy_env``, ``agents`` and ``experiments`` -> the project modules it
    imports, at the top or inside a function (``from pkg import name`` counts as importing
    ``pkg.name`` when that is a module, else ``pkg``)."""
    modules = {}
    for package in ("rummy_env", "agents", "experiments"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
                targets = targets or [node.module]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    deps.add(target)
        graph[name] = deps
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_there_are_no_import_cycles():
    graph = import_graph()
    assert len(graph) > 150 and "experiments.selfplay.run" in graph["experiments.selfplay"]  # a package: its __init__
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_imports_and_plays_with_docstrings_stripped():
    # python -OO sets every __doc__ to None: nothing may build on a docstring at import
    code = (
        "import rummy_env\nfrom rummy_env import gin_rummy_v0\n"
        "env = gin_rummy_v0.env()\nenv.reset(seed=0)\nprint(env.agent_selection, gin_rummy_v0.env.__doc__)\n"
    )
    out = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert (out.returncode, out.stdout, out.stderr) == (0, "player_0 None\n", "")


def test_the_test_extras_pytest_has_what_the_tests_call():
    # importorskip(..., exc_type=...) came in pytest 8.2: with the pin at 8.0 the OpenSpiel
    # test modules failed to collect under pytest 8.0 or 8.1
    import re

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (pin,) = [r for r in extras["test"] if r.split(">=")[0].strip() == "pytest"]
    assert any("exc_type=" in p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    major, minor = map(int, re.fullmatch(r"pytest>=(\d+)\.(\d+)", pin).groups())
    assert (major, minor) >= (8, 2), pin

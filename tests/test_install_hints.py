"""A missing extra is named with the install command the README and the docs give, from a
clone (``pip install -e ".[fast]"``), not a PyPI name (``rummy-env[fast]``: the project is
installed from its repository)."""

import subprocess
import sys

from tests.markdown_code import ROOT


def run_without(module: str, code: str) -> str:
    """What ``code`` prints in a fresh interpreter where importing ``module`` fails."""
    program = f"import sys\nsys.modules[{module!r}] = None\n{code}"
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT).stdout


def test_pimc_rollout_fast_without_numba_names_the_fast_extra():
    out = run_without(
        "numba",
        "from agents import make_agent\nfrom rummy_env import gin_rummy_v0\n"
        "env = gin_rummy_v0.env()\nenv.reset(seed=0)\n"
        "try:\n    make_agent('pimc:rollout=fast', env, seed=0)\nexcept ValueError as err:\n    print(err)\n",
    )
    assert out == 'rollout=fast needs numba: pip install -e ".[fast]"\n'


def test_rgb_array_without_pillow_names_the_render_extra():
    out = run_without(
        "PIL",
        "from rummy_env import gin_rummy_v0\n"
        "try:\n    gin_rummy_v0.env(render_mode='rgb_array')\nexcept ImportError as err:\n    print(err)\n",
    )
    assert out == 'render_mode="rgb_array" draws with Pillow: pip install -e ".[render]" (or pip install pillow)\n'

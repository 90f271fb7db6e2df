"""The notebooks are stored without outputs (``tests/test_notebooks.py`` runs them in the test suite)."""

import json
import pathlib

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_three_notebooks_exist_and_have_no_outputs():
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb",
        "02_benchmark_strategies.ipynb",
        "03_train_agent.ipynb",
    ]
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        for cell in cells:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, path.name

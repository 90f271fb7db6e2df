"""The notebooks run as tests, as they are written, and every plotting cell shows its image
(issue 27, part 4: notebook 02's "Plots" showed nothing once a library function had
switched matplotlib to Agg).  Each notebook is executed once, with nbclient in a fresh
kernel that imports this checkout's packages, and its outputs are looked at."""

import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PLOTTING = ("plt.", "_figure(", "display(Image")  # a cell that draws or shows a picture


def plotting_cells(nb):
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and any(p in c.source for p in PLOTTING)]


def test_the_plotting_cells_are_found():
    plots = {path.name: plotting_cells(nbformat.read(path, as_version=4)) for path in NOTEBOOKS}
    assert plots == {"01_quickstart.ipynb": [], "02_benchmark_strategies.ipynb": [5, 7], "03_train_agent.ipynb": [3, 8]}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_runs_and_each_plotting_cell_shows_an_image(path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    # the kernel imports this checkout's packages, whatever the environment has installed
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    for i in plotting_cells(nb):
        kinds = [sorted(out.get("data", {})) for out in nb.cells[i].outputs]
        assert any("image/png" in k for k in kinds), (path.name, i, nb.cells[i].source, kinds)

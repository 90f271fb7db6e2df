"""Every plotting cell of the notebooks shows its image (issue 27, part 4): notebook 02's
"Plots" showed nothing once a library function had switched matplotlib to Agg.  nbmake
runs the notebooks in the suite but only checks that no cell fails; this test executes
the notebooks that plot (with nbclient, their sizes cut down: the plots do not depend
on them) and looks at the outputs."""

import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PLOTTING = ("plt.", "_figure(", "display(Image")  # a cell that draws or shows a picture
#: per notebook that plots, the text replacements that make it quick
SMALLER = {
    "02_benchmark_strategies.ipynb": {"deals=30": "deals=4"},
    "03_train_agent.ipynb": {
        "timesteps=4096": "timesteps=1024",
        "eval_deals=10": "eval_deals=2",
        "deals=15": "deals=2",
    },
}


def plotting_cells(nb):
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and any(p in c.source for p in PLOTTING)]


def test_every_notebook_that_plots_is_checked():
    plots = {path.name: plotting_cells(nbformat.read(path, as_version=4)) for path in NOTEBOOKS}
    assert {name for name, cells in plots.items() if cells} == set(SMALLER)
    assert plots["02_benchmark_strategies.ipynb"] == [5, 7] and plots["03_train_agent.ipynb"] == [3, 8]


@pytest.mark.parametrize("name", sorted(SMALLER))
def test_each_plotting_cell_shows_an_image(name, monkeypatch):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    for old, new in SMALLER[name].items():
        cells = [c for c in nb.cells if old in c.source]
        assert len(cells) == 1, old
        cells[0].source = cells[0].source.replace(old, new)
    # the kernel imports this checkout's packages, whatever the environment has installed
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    ).execute()
    for i in plotting_cells(nb):
        kinds = [sorted(out.get("data", {})) for out in nb.cells[i].outputs]
        assert any("image/png" in k for k in kinds), (name, i, nb.cells[i].source, kinds)

"""The jobs' plotting functions leave matplotlib's backend alone (issue 27, part 4): a
``matplotlib.use("Agg")`` inside a library function turned off Jupyter's inline plots
for the rest of the session (notebook 02's "Plots" showed nothing)."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import matplotlib
    matplotlib.use("pdf")  # stands for a notebook's inline backend: anything but Agg
    import matplotlib.pyplot as plt
    from pathlib import Path
    import sys

    from experiments import evaluate, search_budget
    from experiments.selfplay import logs as selfplay_report
    from experiments.train import sb3 as train
    from experiments.tournament import matrix, report as tournament_report
    from tests.experiments.test_tournament_display import ROWS

    out = Path(sys.argv[1])
    figure = tournament_report.win_rates_figure(ROWS)
    tournament_report.plot_win_rates(ROWS, out / "win_rates.png")
    train.write_curve([{"timestep": 10 * i, "episodes": i, "win_rate": 0.5, "draw_rate": 0.1, "mean_return": 0.0}
                       for i in range(1, 4)], out, "gin_rummy_v0 vs random")
    selfplay_report.append_eval(out, [{"opponent": "random", "games": 10, "win_rate": 0.5, "win_rate_ci_low": 0.2,
                                       "win_rate_ci_high": 0.8}], minutes=1.0, steps=100, updates=1, final=True)
    selfplay_report.write_curve(out)
    search_budget.plot([{"variant": "gin_rummy_v0", "agent": "pimc", "opponent": "heuristic", "budget": b,
                         "win_rate": 0.5, "ci_low": 0.3, "ci_high": 0.7} for b in (2, 4)], out / "budget.png")
    matrix.write_matrix(out, [{"variant": "gin_rummy_v0", "agent": "a", "opponent": "b", "games": 2, "deals": 1,
                               "wins": 1.0, "win_rate": 0.5, "win_rate_ci_low": 0.1, "win_rate_ci_high": 0.9}])
    evaluate.evaluation_figure({"variant": "gin_rummy_v0", "agent": "heuristic", "panel_version": 1,
                                "fair_share": 0.5, "rows": [{"opponent": "random", "win_rate": 0.9,
                                                             "win_rate_ci_low": 0.8, "win_rate_ci_high": 0.95}]})
    print(matplotlib.get_backend(), plt.get_fignums(), type(figure).__module__, len(figure.axes))
    """
)


def test_plotting_functions_switch_no_backend_and_leave_no_pyplot_figures(tmp_path):
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[-2] == "pdf [] matplotlib.figure 1"
    for name in ("win_rates.png", "learning_curve.png", "curve.png", "budget.png", "head_to_head.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name

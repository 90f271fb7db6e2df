"""Short agent names in the table and the plot, full names in the files; the points
column labelled per variant (issue 10, items 2 and 9)."""

import json
import warnings

from experiments import tournament
from experiments.tournament.matrix import matrix_figure, write_matrix
from experiments.tournament.report import plot_label

LONG = "policy:/home/user/project/results/gin-ppo/model.zip"


def row(variant, agent, rate, rating):
    return {
        "variant": variant,
        "agent": agent,
        "games": 400,
        "wins": 400 * rate,
        "draws": 3,
        "win_rate": rate,
        "win_rate_ci_low": rate - 0.05,
        "win_rate_ci_high": rate + 0.05,
        "points_per_hand": 12.5,
        "rating_mu": 25.0,
        "rating_sigma": 1.0,
        "rating": rating,
    }


ROWS = [
    row("gin_rummy_v0", LONG, 0.6, 20.0),
    row("gin_rummy_v0", "random", 0.1, 5.0),
    row("gin_rummy_v0", "tests.experiments.custom_agent:FirstLegalAgent", 0.3, 10.0),
]


def test_display_names_are_short_and_distinct():
    assert tournament.display_names([LONG, "random", "pkg.mod:MyAgent", "policy:runs/best.zip"]) == {
        LONG: "policy(gin-ppo)",
        "random": "random",
        "pkg.mod:MyAgent": "MyAgent",
        "policy:runs/best.zip": "policy(best)",
    }
    selfplay = "policy:docs/results/selfplay-gin/model.pt"  # the file name experiments.selfplay writes
    assert tournament.display_names([selfplay, "policy:runs/gin.pt"]) == {
        selfplay: "policy(selfplay-gin)",
        "policy:runs/gin.pt": "policy(gin)",
    }
    # a search's or a style's options are what tell it apart: they stay; an RLlib checkpoint by its folder
    names = ["pimc:model=1", "heuristic:style=patient", "rllib:/home/user/ray_results/ckpt_7"]
    assert tournament.display_names(names) == {
        "pimc:model=1": "pimc:model=1",
        "heuristic:style=patient": "heuristic:style=patient",
        "rllib:/home/user/ray_results/ckpt_7": "rllib(ckpt_7)",
    }
    # two models in folders of the same name keep their full names
    a, b = "policy:x/run/model.zip", "policy:y/run/model.zip"
    assert tournament.display_names([a, b]) == {a: a, b: b}


def test_the_table_uses_short_names_aligned_and_says_what_they_stand_for():
    lines = tournament.format_table(ROWS).splitlines()
    assert lines[1:5] == [
        "gin_rummy_v0",
        "  agent             games  win rate            95% CI  pts/hand   rating",
        "  policy(gin-ppo)     400     0.600    [0.550, 0.650]     12.50    20.00",
        "  FirstLegalAgent     400     0.300    [0.250, 0.350]     12.50    10.00",
    ]
    assert lines[-2:] == [
        "policy(gin-ppo) = " + LONG,
        "FirstLegalAgent = tests.experiments.custom_agent:FirstLegalAgent",
    ]


def test_crazy_rummy_points_are_labelled_as_penalties():
    lines = tournament.format_table(
        [row("crazy_rummy_v0", "random", 0.3, 1.0), row("crazy_rummy_v0", "heuristic", 0.7, 9.0)],
        {"crazy_rummy_v0": 3},
    )
    assert lines.splitlines()[1:7] == [
        "crazy_rummy_v0",
        "  agent          games  win rate            95% CI penalty/round   rating",
        "  heuristic        400     0.700    [0.650, 0.750]         12.50     9.00",
        "  random           400     0.300    [0.250, 0.350]         12.50     1.00",
        "  (penalty/round: penalty points, lower is better)",
        "  (3 seats a game: an equal share is 1/3 = 0.333)",
    ]


def test_the_plot_labels_fit_without_overlapping():
    fig = tournament.win_rates_figure(ROWS)
    fig.canvas.draw()
    labels = fig.axes[0].get_xticklabels()
    assert [t.get_text() for t in labels] == ["policy(gin-ppo)", "random", "FirstLegalAgent"]
    boxes = [t.get_window_extent() for t in labels]
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert not left.overlaps(right)
    figure_box = fig.bbox
    assert all(figure_box.x0 <= b.x0 and b.x1 <= figure_box.x1 and b.y0 >= figure_box.y0 for b in boxes)


def test_the_files_keep_the_full_names(tmp_path):
    records = []
    tournament.write_results(tmp_path, records, ROWS, {"seed": 0})
    summary = json.loads((tmp_path / "summary.json").read_text())["summary"]
    assert [r["agent"] for r in summary] == [LONG, "random", "tests.experiments.custom_agent:FirstLegalAgent"]
    assert LONG in (tmp_path / "summary.csv").read_text()


# names past 60 characters that display_names keeps whole: a search's options, and two models
# whose folders share a name
SEARCH = "pimc:worlds=32,guide=policy:docs/results/selfplay-gin-league/model.pt,temperature=0.5"
TWINS = ["policy:docs/results/a/selfplay-gin/model.pt", "policy:docs/results/b/selfplay-gin/model.pt"]


def test_a_long_name_is_wrapped_after_its_separators_and_a_long_word_cut():
    assert plot_label(SEARCH) == (
        "pimc:worlds=32,guide=policy:\ndocs/results/\nselfplay-gin-league/\nmodel.pt,temperature=0.5"
    )
    assert plot_label("x" * 30) == "x" * 28 + "\nxx"
    assert plot_label("heuristic:style=defensive") == "heuristic:style=defensive"


def test_plots_of_long_names_are_written_without_a_layout_warning(tmp_path):
    # matplotlib warned "Tight layout not applied" and cut the labels off at the figure's edge
    names = [SEARCH, *TWINS, "random"]
    rows = [row("gin_rummy_v0", name, 0.5, 10.0) for name in names]
    cell = {
        "games": 400,
        "deals": 200,
        "wins": 200.0,
        "win_rate": 0.5,
        "win_rate_ci_low": 0.45,
        "win_rate_ci_high": 0.55,
    }
    cells = [{"variant": "gin_rummy_v0", "agent": a, "opponent": b, **cell} for a in names for b in names if a != b]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tournament.write_results(tmp_path, [], rows, {"seed": 0})
        write_matrix(tmp_path, cells)
        figures = [tournament.win_rates_figure(rows), matrix_figure(cells)]
    assert (tmp_path / "win_rates.png").stat().st_size > 0 and (tmp_path / "head_to_head.png").stat().st_size > 0
    summary = json.loads((tmp_path / "summary.json").read_text())["summary"]
    assert [r["agent"] for r in summary] == names  # the files keep the full names
    assert f'gin_rummy_v0,"{SEARCH}",{TWINS[0]},400,' in (tmp_path / "head_to_head.csv").read_text()
    for fig in figures:
        fig.canvas.draw()
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()][-1] == "random"
        boxes = [t.get_window_extent() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
        assert all(fig.bbox.x0 <= b.x0 and b.x1 <= fig.bbox.x1 and fig.bbox.y0 <= b.y0 for b in boxes)
    # the bars' slanted labels do not run into each other (the heat map's, at 45 degrees, share
    # their boxes' corners with their neighbours' even when short)
    bar_boxes = [t.get_window_extent() for t in figures[0].axes[0].get_xticklabels()]
    assert not any(a.overlaps(b) for a, b in zip(bar_boxes, bar_boxes[1:], strict=False))

"""The lineup part of a tournament record's file name (``experiments.tournament.deals.lineup_slug``)
and the Results page's finding of the records by it (``experiments.serve.results``)."""

import csv
import re

from experiments.serve.results import recorded_games
from experiments.tournament.deals import MAX_LINEUP_CHARS, lineup_slug

LONG = "policy:/runs/" + "x" * 150 + "/model.pt"


def test_two_long_lineups_that_differ_only_in_characters_a_name_cannot_hold_get_two_names():
    # the hash was of the slug, in which "é" and "ü" (and ":" and "/") are both "_": the second
    # lineup's records took the first one's names (one overwrote the other)
    one = lineup_slug(["random", LONG.replace("/runs/", "/runs/é/")])
    two = lineup_slug(["random", LONG.replace("/runs/", "/runs/ü/")])
    assert len(one) == len(two) == MAX_LINEUP_CHARS
    assert one[:-17] == two[:-17] and one != two
    assert lineup_slug(["random", "heuristic"]) == "random-heuristic"  # short names as before


def test_a_record_written_before_the_cut_under_its_whole_lineup_shows_on_the_results_page(tmp_path):
    # a lineup part of 161 to some 215 characters made a name within 255 bytes: such records
    # were written under the whole lineup before the cut, and the page looked for the cut name
    agents = ["random", LONG]
    whole = re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(agents))
    assert len(whole) > MAX_LINEUP_CHARS and len(f"gin_rummy_v0-{whole}-deal0-rot0.jsonl.part") <= 255
    name = f"gin_rummy_v0-{whole}-deal0-rot0.jsonl"
    with open(tmp_path / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "lineup", "deal", "rotation", "seed", "agent", "seat", "return"])
        for seat, agent in enumerate(agents):
            w.writerow(["gin_rummy_v0", " vs ".join(agents), 0, 0, 7, agent, seat, [1.0, -1.0][seat]])
    index = {name: [{"name": f"rec/{name}", "variant": "gin_rummy_v0", "seed": 7, "agents": agents, "options": {}}]}
    assert recorded_games(tmp_path, index) == [
        {
            "variant": "gin_rummy_v0",
            "lineup": " vs ".join(agents),
            "deal": 0,
            "rotation": 0,
            "seats": agents,
            "returns": [1.0, -1.0],
            "record": f"rec/{name}",
        }
    ]

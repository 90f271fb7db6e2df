"""Screenshots of the server's three pages (``docs/images/serve_*.png``) in headless Chromium.

    python -m experiments.tournament --variants gin_rummy_v0 --deals 20 --out results/tour --record results/records/tour
    python -m experiments.dev.serve_screenshots --records results/records --results results \\
        --replay tour/gin_rummy_v0-random-heuristic-deal0-rot0.jsonl --run tour/summary.json

(the first line makes the tournament and its records the pages show; ``--replay`` and
``--run`` are read under ``--records`` and ``--results``).

Play: a Gin Rummy game (``--seed``) a few moves in, the hint shown; Replay: ``--replay``
at its last step with all hands open; Results: the tournament ``--run`` with its heat map.
Needs the web extra, Playwright and Debian's chromium (see ``experiments.serve.testing``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.common import description, path_arg


def main(argv: list[str] | None = None) -> int:
    """Write ``serve_play.png``, ``serve_replay.png`` and ``serve_results.png`` to ``--out``."""
    p = argparse.ArgumentParser(prog="python -m experiments.dev.serve_screenshots", description=description(__doc__))
    p.add_argument("--records", type=path_arg, required=True, help="the server's --records")
    p.add_argument("--results", type=path_arg, required=True, help="the server's --results")
    p.add_argument("--replay", required=True, help="record name under --records for the Replay page")
    p.add_argument("--run", required=True, help="summary.json name under --results for the Results page")
    p.add_argument("--seed", type=int, default=5, help="seed of the Gin game shown on the Play page")
    p.add_argument("--moves", type=int, default=3, help="your moves made before the Play screenshot")
    p.add_argument(
        "--out", type=path_arg, default=Path("docs/images"), help="folder of the PNGs (default: docs/images)"
    )
    args = p.parse_args(argv)

    from experiments.serve.app import ServeConfig, create_app
    from experiments.serve.testing import chromium, serve_in_thread

    args.out.mkdir(parents=True, exist_ok=True)
    app = create_app(ServeConfig(records=args.records, results=args.results, save_games=False))
    with serve_in_thread(app) as url, chromium(1400, 900) as context:
        page = context.new_page()
        page.goto(f"{url}/play?speed=0&variant=gin_rummy_v0")
        page.wait_for_selector("#variant option", state="attached")
        page.fill("#seed", str(args.seed))
        page.click("#start")
        for _ in range(args.moves):
            page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('your turn')")
            count = page.locator("#events li").count()
            page.click("#hint")
            page.wait_for_selector("#moves button.hinted").click()
            page.wait_for_function(f"() => document.querySelectorAll('#events li').length > {count}")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('your turn')")
        page.click("#hint")
        page.wait_for_selector("#moves button.hinted")
        page.screenshot(path=str(args.out / "serve_play.png"))
        page.goto(f"{url}/replay?record={args.replay}")
        page.wait_for_selector("#frames svg")
        page.keyboard.press("End")
        page.wait_for_function("() => document.querySelector('#step-label').textContent.includes('game over')")
        page.screenshot(path=str(args.out / "serve_replay.png"))
        page.goto(f"{url}/results?run={args.run}")
        page.wait_for_selector("table.heat")
        page.screenshot(path=str(args.out / "serve_results.png"))
    print(f"wrote {args.out}/serve_play.png, serve_replay.png, serve_results.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

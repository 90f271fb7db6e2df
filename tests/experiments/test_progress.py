"""A long job's progress in a log file: plain lines at most once a minute, and the last one."""

from __future__ import annotations

import io

from experiments.common.progress import ProgressLines, progress_counter


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_every_interval_and_at_the_end():
    out, clock = io.StringIO(), FakeClock()
    with ProgressLines(400, "deal", "evaluate", out, every=60.0, clock=clock) as bar:
        clock.now += 30.0
        bar.update(40)  # 30 s after the start: too soon for a line
        clock.now += 282.0
        bar.update(80)  # 312 s: 120 of 400 done
        clock.now += 10.0
        bar.update(10)  # 10 s after the last line
        clock.now += 3600.0
        bar.update(270)  # all done: the closing line says so, once
    assert out.getvalue().splitlines() == [
        "evaluate: 120/400 deals (30%), 5m 12s, about 12m 8s left",
        "evaluate: 400/400 deals (100%), 1h 5m 22s",
    ]


def test_a_stopped_job_ends_with_what_it_finished():
    out, clock = io.StringIO(), FakeClock()
    bar = ProgressLines(10, "game", "pimc_labels", out, every=60.0, clock=clock)
    clock.now += 7.4
    bar.update(3)
    bar.close()
    bar.close()
    assert out.getvalue() == "pimc_labels: 3/10 games (30%), 7s\n"  # no time left that it will not spend


def test_a_job_to_a_deadline_counts_without_a_total():
    out, clock = io.StringIO(), FakeClock()
    with ProgressLines(None, "game", "pimc_labels", out, every=60.0, clock=clock) as bar:
        clock.now += 61.0
        bar.update(4)
        clock.now += 2.0
        bar.update(1)
    assert out.getvalue().splitlines() == ["pimc_labels: 4 games, 1m 1s", "pimc_labels: 5 games, 1m 3s"]
    # the last update's line is the last line already: not printed twice
    out, clock = io.StringIO(), FakeClock()
    with ProgressLines(None, "game", "pimc_labels", out, every=60.0, clock=clock) as bar:
        clock.now += 60.0
        bar.update(376)
    assert out.getvalue() == "pimc_labels: 376 games, 1m 0s\n"


def test_a_resumed_count_in_minutes_with_figures():
    """Self-play's bar: training minutes (a float) from a resumed run's minutes, the
    update's figures at the end; the time left comes from the minutes done since."""
    out, clock = io.StringIO(), FakeClock()
    with ProgressLines(30, "training min", "gin_rummy", out, every=60.0, clock=clock, initial=10.5) as bar:
        clock.now += 90.0
        bar.set_postfix(steps=120000, ent="1.23")
        bar.update(1.5)  # 12 of 30 minutes: 1.5 done in 90 s, 18 to go
        bar.set_description("gin_rummy (resumed)")
        bar.update(0.25)
    assert out.getvalue().splitlines() == [
        "gin_rummy: 12/30 training mins (40%), 1m 30s, about 18m 0s left, steps=120000, ent=1.23",
        "gin_rummy (resumed): 12.25/30 training mins (40%), 1m 30s, steps=120000, ent=1.23",
    ]


def test_a_log_file_gets_lines_a_terminal_a_bar_and_no_progress_nothing():
    log = io.StringIO()
    with progress_counter(5, "deal", "tournament", file=log, every=0.0) as bar:
        bar.update(2)
        bar.update(3)
    lines = log.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == ["tournament: 2/5 deals (40%)", "tournament: 5/5 deals (100%)"]

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    with progress_counter(5, "deal", "tournament", file=term) as bar:
        bar.update(5)
    assert "5/5" in term.getvalue() and "\r" in term.getvalue()  # tqdm's bar, redrawn in place

    quiet = io.StringIO()
    with progress_counter(5, "deal", "tournament", enabled=False, file=quiet) as bar:
        bar.update(5)
    assert quiet.getvalue() == ""


def test_the_environment_variable_sets_the_seconds_between_lines(monkeypatch):
    from experiments.common import progress
    from experiments.common.progress import EVERY, every_seconds

    monkeypatch.setenv("RUMMY_ENV_PROGRESS_EVERY", "0")
    log = io.StringIO()
    with progress_counter(3, "game", "pimc_labels", file=log) as bar:
        bar.update(1)
        bar.update(1)
    assert [line.split(",")[0] for line in log.getvalue().splitlines()] == [
        "pimc_labels: 1/3 games (33%)",
        "pimc_labels: 2/3 games (66%)",
        "pimc_labels: 2/3 games (66%)",  # the last line, printed on closing
    ]
    monkeypatch.setenv("RUMMY_ENV_PROGRESS_EVERY", "2.5")
    assert every_seconds() == 2.5
    monkeypatch.setattr(progress, "_WARNED", set())
    for bad in ("soon", "-1", "nan", "inf"):
        monkeypatch.setenv("RUMMY_ENV_PROGRESS_EVERY", bad)
        said = io.StringIO()
        assert every_seconds(said) == EVERY == 60.0
        assert said.getvalue() == (
            f"RUMMY_ENV_PROGRESS_EVERY={bad!r} is not a number of seconds >= 0: a progress line every 60 s\n"
        )
        again = io.StringIO()
        assert every_seconds(again) == 60.0 and again.getvalue() == ""  # named once
    monkeypatch.delenv("RUMMY_ENV_PROGRESS_EVERY")
    assert every_seconds() == 60.0


def screen(text: str) -> list[str]:
    """What a terminal shows of ``text``: a carriage return goes back to the line's start,
    characters overwrite, a newline starts the next line (trailing blanks dropped)."""
    lines, line, col = [], [], 0
    for ch in text:
        if ch == "\r":
            col = 0
        elif ch == "\n":
            lines.append("".join(line).rstrip())
            line, col = [], 0
        else:
            line[col : col + 1] = [ch]
            col += 1
    return [*lines, "".join(line).rstrip()]


def test_the_stop_message_leaves_the_bar_once_on_the_terminal(monkeypatch):
    # the message went after a newline: the bar's last state stayed above it and the bar
    # went on below it, so that the stopped job's terminal showed its progress twice
    import signal

    from tqdm import tqdm

    from experiments.common.interrupt import StopRequest

    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    request = StopRequest("evaluate", "no new deal starts; writing the games finished")
    bar = tqdm(total=400, unit="deal", file=err, bar_format="{n}/{total} deals", mininterval=0)
    bar.update(120)
    request._handle(signal.SIGINT, None)
    bar.update(5)
    bar.close()
    said = "evaluate: SIGINT: no new deal starts; writing the games finished (press Ctrl-C again to quit now)"
    assert screen(err.getvalue()) == [said, "125/400 deals", ""]
    with tqdm(total=3, file=err, disable=True):  # --no-progress: no bar to clear, a newline first
        err.seek(0), err.truncate()
        StopRequest("evaluate", "no new deal starts")._handle(signal.SIGTERM, None)
    assert err.getvalue() == "\nevaluate: SIGTERM: no new deal starts (press Ctrl-C again to quit now)\n"

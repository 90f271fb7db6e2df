"""A stop request reaches the tasks in progress on local workers: with ``in_process_stop``
each returns what it finished (a chunk ends after its current deal) instead of being
dropped with the pool (a Ctrl-C used to keep no game of a chunk in progress)."""

import threading
import time
from pathlib import Path

from experiments.common.parallel import run_tasks


def steps(task, stopped=None):
    """A task of ``count`` steps that writes ``marker`` once it has made two: the test's
    sign that both workers are under way."""
    marker, count = task
    done = []
    for k in range(count):
        if stopped is not None and stopped():
            break
        time.sleep(0.02)
        done.append(k)
        if k == 2:
            Path(marker).touch()
    return done


class Stop:
    requested = False


def stop_when_started(stop, markers):
    while not all(Path(m).exists() for m in markers):
        time.sleep(0.01)
    stop.requested = True


def test_tasks_in_progress_return_what_they_finished_when_a_stop_is_requested(tmp_path):
    markers = [str(tmp_path / f"m{i}") for i in range(2)]
    tasks = [(markers[0], 5000), (markers[1], 5000), (str(tmp_path / "never"), 5000)]
    stop = Stop()
    threading.Thread(target=stop_when_started, args=(stop, markers), daemon=True).start()
    results = run_tasks(steps, tasks, workers=2, stop=stop, in_process_stop=True)
    # the first two tasks stopped part-way with their steps kept, in task order; the third,
    # queued behind them, started after the stop and made none (100 s of steps otherwise)
    assert len(results) == 3
    assert all(3 <= len(r) < 5000 and r == list(range(len(r))) for r in results[:2])
    assert results[2] == []


def test_without_in_process_stop_the_tasks_in_progress_are_dropped(tmp_path):
    markers = [str(tmp_path / f"m{i}") for i in range(2)]
    stop = Stop()
    threading.Thread(target=stop_when_started, args=(stop, markers), daemon=True).start()
    assert run_tasks(steps, [(m, 5000) for m in markers], workers=2, stop=stop) == []

"""What the server tests share: a folder of records and results made by the project's own
jobs (a played Gin game, a small recorded tournament), and apps serving them."""

import threading
from pathlib import Path

import pytest

from agents import make_agent
from experiments.common import load_variant
from experiments.common.records import play_recorded, write_record

GIN_RECORD = "games/gin-heuristic-random.jsonl"


def write_gin_record(path: Path, seed: int = 3) -> Path:
    """A Gin Rummy game, heuristic against random, recorded by ``play_recorded``."""
    env = load_variant("gin_rummy_v0").env()
    agents = [make_agent("heuristic", env, seed=seed), make_agent("random", env, seed=seed + 1)]
    _, lines = play_recorded(env, agents, seed, {}, ["heuristic", "random"])
    return write_record(lines, path)


@pytest.fixture(scope="session")
def served_folders(tmp_path_factory):
    """``(records, results)``: records holds a Gin game and the records of a tournament
    (``tour/``), results that tournament's files (``tour/summary.json``, ...)."""
    from experiments.tournament.cli import main as tournament

    base = tmp_path_factory.mktemp("served")
    records, results = base / "records", base / "results"
    write_gin_record(records / GIN_RECORD)
    argv = ["--variants", "gin_rummy", "--agents", "random", "heuristic", "--deals", "2", "--workers", "1"]
    argv += ["--out", str(results / "tour"), "--record", str(records / "tour"), "--record-games", "2", "--no-progress"]
    assert tournament(argv) == 0
    return records, results


@pytest.fixture
def make_app(served_folders):
    """``make_app(**config)``: an app over the served folders (``ServeConfig`` fields) that
    also answers to Starlette's TestClient, whose requests name the host ``testserver``."""
    from experiments.serve.app import ServeConfig, create_app
    from experiments.serve.hosts import LOOPBACK_HOSTS

    records, results = served_folders

    def make(**config):
        config.setdefault("records", records)
        config.setdefault("results", results)
        config.setdefault("allowed_hosts", (*LOOPBACK_HOSTS, "testserver"))
        return create_app(ServeConfig(**config))

    return make


@pytest.fixture
def client(make_app):
    from starlette.testclient import TestClient

    with TestClient(make_app(save_games=False)) as c:
        yield c


def new_game(client, seed=5, **body):
    body = {"variant": "gin_rummy", "opponents": ["heuristic"], "seed": seed, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    return data["id"], {"X-Game-Token": data["token"]}, data["view"]


def refused(response, status, *words):
    assert response.status_code == status, response.text[:400]
    message = response.json()["error"]
    for w in words:
        assert w in message, message
    return message


def play_out(client, gid, headers, view):
    """Play the game to its end: the human takes the heuristic's hint, the opponent moves."""
    while view["status"] == "playing":
        if view["your_turn"]:
            hint = client.post(f"/api/games/{gid}/hint", headers=headers).json()
            view = client.post(f"/api/games/{gid}/move", headers=headers, json={"action": hint["action"]}).json()
        else:
            view = client.post(f"/api/games/{gid}/advance", headers=headers).json()
    return view


#: a request that waits on the thinking agent would take the whole gate's wait (60 s)
QUICK = 10.0


@pytest.fixture
def gated():
    """The gated agent (``tests/web/gated_agent.py``) with new events; its gate is set at the end."""
    from tests.web.gated_agent import GatedAgent

    GatedAgent.started, GatedAgent.gate, GatedAgent.fails = threading.Event(), threading.Event(), None
    yield GatedAgent
    GatedAgent.gate.set()  # a test that failed leaves no agent waiting


@pytest.fixture
def served(make_app, tmp_path, gated):
    """An ``httpx.Client`` of the app served by uvicorn in a thread (records in ``tmp_path``,
    the gated agent allowed, 2 games kept): requests really overlap."""
    import httpx

    from experiments.serve.testing import serve_in_thread
    from tests.web.gated_agent import NAME

    app = make_app(records=tmp_path, agents=(NAME,), max_games=2)
    with serve_in_thread(app) as base, httpx.Client(base_url=base, timeout=QUICK) as client:
        yield client

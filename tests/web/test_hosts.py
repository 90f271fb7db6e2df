"""The Host header check against DNS rebinding: the app's allowed hosts, and the command
line's ``--host`` and ``--allowed-hosts``."""

import re
import socket

import pytest
from starlette.testclient import TestClient

from experiments.serve.app import ServeConfig, create_app
from experiments.serve.hosts import LOOPBACK_HOSTS, allowed_hosts, check_allowed_hosts, host_pattern

GAME = {"variant": "gin_rummy", "opponents": ["random"], "seed": 5}


@pytest.fixture
def default_app(served_folders):
    """An app with ``ServeConfig``'s default allowed hosts (not the tests' ``testserver``)."""
    records, results = served_folders
    return create_app(ServeConfig(records=records, results=results, save_games=False))


def test_the_default_app_answers_only_to_this_machines_names(default_app):
    assert default_app.state.config.allowed_hosts == ("localhost", "127.0.0.1", "[::1]")
    with TestClient(default_app) as c:
        # a rebinding page's requests name its own site: refused before any route, no game made
        for host in ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.evil.example"]:
            r = c.post("/api/games", json=GAME, headers={"Host": host})
            assert (r.status_code, r.text) == (400, "Invalid host header"), host
            r = c.get("/api/records", headers={"Host": host})
            assert (r.status_code, r.text) == (400, "Invalid host header"), host
        assert len(default_app.state.games) == 0
        # TestClient's own name is not this machine's either: the default is the safe one
        assert c.get("/api/config").status_code == 400
        for n, host in enumerate(["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1"], 1):
            r = c.post("/api/games", json=GAME, headers={"Host": host})
            assert r.status_code == 200, (host, r.text)
            assert len(default_app.state.games) == n
            assert c.get("/api/records", headers={"Host": host}).status_code == 200


def test_allowed_hosts_patterns(make_app):
    app = make_app(allowed_hosts=("box.lan", "*.home.arpa", "::1"), save_games=False)
    assert app.state.config.allowed_hosts == ("box.lan", "*.home.arpa", "[::1]")
    with TestClient(app) as c:
        for host, status in [
            ("box.lan:8000", 200),
            ("BOX.LAN", 200),
            ("a.home.arpa:80", 200),
            ("[::1]:8000", 200),
            ("localhost:8000", 400),  # the app's list is all it takes; the command line adds the loopback names
            ("home.arpa", 400),
            ("box.lan.evil.example", 400),
        ]:
            assert c.get("/api/config", headers={"Host": host}).status_code == status, host
    with TestClient(make_app(allowed_hosts=("*",), save_games=False)) as c:
        assert c.get("/api/config", headers={"Host": "evil.example"}).status_code == 200


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("localhost", "localhost"),
        (" Box.LAN ", "box.lan"),
        ("*.home.arpa", "*.home.arpa"),
        ("*", "*"),
        ("::1", "[::1]"),
        ("[0:0::1]", "[::1]"),
        ("FE80::A", "[fe80::a]"),
        ("10.0.0.5", "10.0.0.5"),
        ("my_box", "my_box"),
    ],
)
def test_host_pattern(name, pattern):
    assert host_pattern(name) == pattern


@pytest.mark.parametrize(
    "name", ["", "box.lan:8000", "http://box.lan", "box.lan/play", "*box.lan", "a.*.lan", "[10.0.0.5]", "[box]", "a b"]
)
def test_host_pattern_refuses_what_is_not_a_host(name):
    message = (
        f"host {name!r} is not a host name, an IP address, '*' or '*.DOMAIN': give the name alone, without a "
        "scheme, port or path (e.g. myhost.lan, 192.168.1.5, ::1)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        host_pattern(name)


def test_allowed_hosts_add_the_bound_host_unless_it_is_every_address():
    assert allowed_hosts("127.0.0.1", []) == LOOPBACK_HOSTS
    assert allowed_hosts("box.lan", ["10.0.0.5", "BOX.lan"]) == (*LOOPBACK_HOSTS, "box.lan", "10.0.0.5")
    assert allowed_hosts("fe80::a", []) == (*LOOPBACK_HOSTS, "[fe80::a]")
    for everywhere in ["0.0.0.0", "::", "[::]", "0:0::0"]:
        assert allowed_hosts(everywhere, ["box.lan"]) == (*LOOPBACK_HOSTS, "box.lan")


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ("localhost", "allowed_hosts must be a list of host names, got the string 'localhost'"),
        ((), "allowed_hosts is empty: every request would be refused; give at least one host name"),
        (("box.lan", 7), "host 7 is not a string: give a host name, an IP address, '*' or '*.DOMAIN'"),
    ],
)
def test_the_app_refuses_bad_allowed_hosts(names, message, make_app):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_allowed_hosts(names)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make_app(allowed_hosts=names)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_command_line_serves_the_allowed_hosts(tmp_path, capsys, monkeypatch):
    import uvicorn

    from experiments.serve.__main__ import main

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: served.update(app=app, **kwargs))
    port = _free_port()
    folders = ["--records", str(tmp_path), "--results", str(tmp_path), "--no-save", "--port", str(port)]
    assert main([*folders, "--allowed-hosts", "box.lan"]) == 0
    assert served["app"].state.config.allowed_hosts == (*LOOPBACK_HOSTS, "box.lan")
    with TestClient(served["app"]) as c:
        assert c.get("/api/config", headers={"Host": f"box.lan:{port}"}).status_code == 200
        assert c.get("/api/config", headers={"Host": f"localhost:{port}"}).status_code == 200
        assert c.get("/api/config", headers={"Host": "evil.example"}).status_code == 400
    assert "--allowed-hosts" not in capsys.readouterr().err
    # an IPv6 address is bracketed in the URL printed, as the browser's Host header has it
    assert main([*folders, "--host", "::1"]) == 0
    assert served["host"] == "::1" and served["app"].state.config.allowed_hosts == LOOPBACK_HOSTS
    assert f"serve: http://[::1]:{port}/  " in capsys.readouterr().out
    assert main([*folders, "--allowed-hosts", "*"]) == 0
    assert served["app"].state.config.allowed_hosts == (*LOOPBACK_HOSTS, "*")
    assert capsys.readouterr().err == (
        "serve: --allowed-hosts '*': requests naming any host are served, also those of a page of another site "
        "whose name is made to resolve to this machine (DNS rebinding)\n"
    )

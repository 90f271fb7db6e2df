"""The Host header check against DNS rebinding: the app's allowed hosts, and the command
line's ``--host`` and ``--allowed-hosts``."""

import re
import socket

import pytest
from starlette.testclient import TestClient

from experiments.serve.app import ServeConfig, create_app
from experiments.serve.hosts import (
    LOOPBACK_HOSTS,
    allowed_hosts,
    check_allowed_hosts,
    host_name,
    host_pattern,
    listens_everywhere,
    middleware_hosts,
)

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
            assert (r.status_code, r.json()) == (400, {"error": _refused(host)}), host
            r = c.get("/api/records", headers={"Host": host})
            assert (r.status_code, r.json()) == (400, {"error": _refused(host)}), host
        assert len(default_app.state.games) == 0
        # TestClient's own name is not this machine's either: the default is the safe one
        assert c.get("/api/config").status_code == 400
        # a name's fully qualified spelling (http://localhost.:8000/) is the same name
        hosts = ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1", "localhost.:8000"]
        for n, host in enumerate(hosts, 1):
            r = c.post("/api/games", json=GAME, headers={"Host": host})
            assert r.status_code == 200, (host, r.text)
            assert len(default_app.state.games) == n
            assert c.get("/api/records", headers={"Host": host}).status_code == 200


def _refused(host, name=None):
    name = name or host.split(":")[0]
    return (
        f"Host {host!r} is not a name this server answers to (the check against DNS rebinding): to reach it by this "
        f"name, start it with --allowed-hosts {name}"
    )


def test_a_refused_host_is_told_which_host_it_sent_and_how_to_allow_it(make_app):
    app = make_app(allowed_hosts=("myhost.lan",), save_games=False)
    with TestClient(app, base_url="http://192.168.1.5:8000") as c:
        # the API answers in its own error shape, a page in text; both 400
        r = c.get("/api/agents")
        assert (r.status_code, r.headers["content-type"], r.json()) == (
            400,
            "application/json",
            {"error": _refused("192.168.1.5:8000")},
        )
        r = c.get("/play")
        assert (r.status_code, r.headers["content-type"], r.text) == (
            400,
            "text/plain; charset=utf-8",
            _refused("192.168.1.5:8000"),
        )
        # the name suggested is as --allowed-hosts takes it: lower case, no trailing dot, IPv6 bracketed
        assert c.get("/api", headers={"Host": "Other.LAN.:80"}).json() == {
            "error": _refused("Other.LAN.:80", "other.lan")
        }
        assert c.get("/", headers={"Host": "[FE80::A]:80"}).text == _refused("[FE80::A]:80", "[fe80::a]")
        assert c.get("/api/config", headers={"Host": "a b"}).json() == {
            "error": "Host 'a b' is not a HOST[:PORT]: this server answers only to the names of localhost and of its "
            "--allowed-hosts (the check against DNS rebinding)"
        }
        # a Host of 5,000 characters is cut as any refused value is, not sent back whole
        long = c.get("/api/config", headers={"Host": "a" * 5000}).json()["error"]
        assert long == "Host '" + "a" * 464 + " [... 9196 characters ...] " + "a" * 470
        assert c.get("/api/config", headers={"Host": "myhost.lan."}).status_code == 200


async def _no_host_header(app, path):
    """The status, content type and body of ``GET path`` sent without a ``Host`` header
    (which TestClient always adds)."""
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 1234),
        "root_path": "",
        "asgi": {"version": "3.0"},
    }
    await app(scope, receive, send)
    headers = dict(sent[0]["headers"])
    return sent[0]["status"], headers[b"content-type"].decode(), b"".join(m.get("body", b"") for m in sent[1:])


def test_a_request_without_host_is_refused_with_the_reason(default_app):
    import asyncio

    message = (
        "the request has no Host header: this server answers only to the names of localhost and of its "
        "--allowed-hosts (the check against DNS rebinding)"
    )
    with TestClient(default_app):  # started, as a server is
        status, kind, body = asyncio.run(_no_host_header(default_app, "/"))
    assert (status, kind, body.decode()) == (400, "text/plain; charset=utf-8", message)


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
            ("box.lan.:8000", 200),  # the fully qualified spelling of box.lan
            ("a.home.arpa.", 200),
            ("box.lan..", 400),
            ("127.0.0.1.", 400),  # an address has no dotted form
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
        ("MyHost.LAN.", "myhost.lan"),  # one trailing dot: the fully qualified spelling
        ("*.home.arpa.", "*.home.arpa"),
        ("localhost.", "localhost"),
    ],
)
def test_host_pattern(name, pattern):
    assert host_pattern(name) == pattern


@pytest.mark.parametrize(
    "name",
    [
        "",
        "box.lan..",
        ".",
        "box.lan:8000",
        "http://box.lan",
        "box.lan/play",
        "*box.lan",
        "a.*.lan",
        "[10.0.0.5]",
        "[box]",
        "a b",
    ],
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
    # every spelling the system binds as every address: getaddrinfo's IPv4 shorthands too
    for everywhere in ["0.0.0.0", "::", "[::]", "0:0::0", "0", "0.0", "0x0", "000.0.0.0", "::ffff:0.0.0.0"]:
        assert listens_everywhere(everywhere), everywhere
        assert allowed_hosts(everywhere, ["box.lan"]) == (*LOOPBACK_HOSTS, "box.lan")
    for one in ["127.0.0.1", "1", "0.0.0.1", "::1", "box.lan", "localhost", "[x", ""]:
        assert not listens_everywhere(one), one


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
    # every address: no browser may name it, so the URLs printed are localhost's and the names given
    for everywhere in ["0.0.0.0", "::", "0"]:
        assert main([*folders, "--host", everywhere, "--allowed-hosts", "myhost.lan,*.home.arpa,10.0.0.5"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith(f"serve: http://localhost:{port}/  (records from ")
        assert out[1:] == [f"serve: from other machines: http://myhost.lan:{port}/, http://10.0.0.5:{port}/"]
        with TestClient(served["app"]) as c:
            for url in [f"localhost:{port}", f"myhost.lan:{port}", f"10.0.0.5:{port}"]:
                assert c.get("/api/config", headers={"Host": url}).status_code == 200, url
    assert main([*folders, "--host", "0.0.0.0", "--allowed-hosts", "*"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(f"serve: http://localhost:{port}/  (records from ")
    assert main([*folders, "--allowed-hosts", "*"]) == 0
    assert served["app"].state.config.allowed_hosts == (*LOOPBACK_HOSTS, "*")
    assert capsys.readouterr().err == (
        "serve: --allowed-hosts '*': requests naming any host are served, also those of a page of another site "
        "whose name is made to resolve to this machine (DNS rebinding)\n"
    )


def test_the_middleware_gets_each_name_also_with_a_trailing_dot():
    patterns = ("localhost", "127.0.0.1", "[::1]", "*.home.arpa", "*", "box.lan")
    assert middleware_hosts(patterns) == [
        "localhost",
        "localhost.",
        "127.0.0.1",
        "[::1]",
        "*.home.arpa",
        "*.home.arpa.",
        "*",
        "box.lan",
        "box.lan.",
    ]


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("Box.LAN.:8000", "box.lan"),
        ("[::1]:80", "[::1]"),
        ("10.0.0.5", "10.0.0.5"),
        ("x:", "x"),
        (None, None),
        ("", None),
        ("a b", None),
        ("::1", None),  # an IPv6 address unbracketed is not a Host
        ("*", None),
        ("*.lan", None),
    ],
)
def test_host_name(header, name):
    assert host_name(header) == name

"""python -m experiments.serve's command line: safe defaults and clear refusals."""

import re

import pytest

from experiments.serve.__main__ import main, parse_args


def test_the_defaults_bind_this_machine_only():
    args = parse_args([])
    assert (args.host, args.port, str(args.records), str(args.results), args.agents) == (
        "127.0.0.1",
        8000,
        "results",
        "results",
        [],
    )
    assert (args.max_games, args.max_idle, args.max_upload_kb, args.no_save) == (64, 7200.0, 1000, False)
    assert args.allowed_hosts == ("localhost", "127.0.0.1", "[::1]")


def test_allowed_hosts_are_the_loopback_names_host_and_the_lists_given():
    argv = ["--host", "Box.lan", "--allowed-hosts", "10.0.0.5, box.lan", "--allowed-hosts", "::1,*.home.arpa"]
    assert parse_args(argv).allowed_hosts == ("localhost", "127.0.0.1", "[::1]", "box.lan", "10.0.0.5", "*.home.arpa")
    # every address names no host: only the names given, or any with '*' said explicitly
    assert parse_args(["--host", "0.0.0.0", "--allowed-hosts", "box.lan"]).allowed_hosts[3:] == ("box.lan",)
    assert parse_args(["--host", "::", "--allowed-hosts", "*"]).allowed_hosts[3:] == ("*",)
    assert parse_args(["--host", "0", "--allowed-hosts", "box.lan"]).allowed_hosts[3:] == ("box.lan",)
    # a trailing dot is the fully qualified spelling of the same name
    assert parse_args(["--allowed-hosts", "MyHost.LAN.,*.home.arpa."]).allowed_hosts[3:] == (
        "myhost.lan",
        "*.home.arpa",
    )


def _everywhere(host):
    return (
        f"--host {host} listens on every address of this machine, which names no host: give the names or addresses "
        "the browsers will use with --allowed-hosts HOST[,HOST...] (e.g. --allowed-hosts myhost.lan,192.168.1.5), "
        "or --allowed-hosts '*' to accept any Host header (no DNS-rebinding check)"
    )


def _not_a_host(name):
    return (
        f"argument --allowed-hosts: host {name!r} is not a host name, an IP address, '*' or '*.DOMAIN': give the "
        "name alone, without a scheme, port or path (e.g. myhost.lan, 192.168.1.5, ::1)"
    )


BAD = [
    (["--port", "70000"], "--port must be in 1..65535, got 70000"),
    (["--port", "0"], "--port must be in 1..65535, got 0"),
    (["--max-games", "0"], "--max-games must be >= 1, got 0"),
    (["--max-upload-kb", "0"], "--max-upload-kb must be >= 1, got 0"),
    (["--max-idle", "0"], "--max-idle must be a finite number of seconds > 0, got 0.0"),
    (["--max-idle", "nan"], "--max-idle must be a finite number of seconds > 0, got nan"),
    (["--max-idle", "inf"], "--max-idle must be a finite number of seconds > 0, got inf"),
    # the games played are saved there: a folder that can never exist is refused at the start
    (
        ["--records", "/dev/null/x"],
        "--records' play/ '/dev/null/x/play' cannot be made or written: '/dev/null' is not a writable folder: "
        "the games played are saved there; give another --records or --no-save",
    ),
    (["--records", ""], "argument --records: an empty path: give a file or folder name"),
    # a server on every address must be told the names it is reached by (DNS rebinding)
    (["--host", "0.0.0.0"], _everywhere("0.0.0.0")),
    (["--host", "::"], _everywhere("::")),
    # other spellings the system binds as every address (getaddrinfo's IPv4 shorthands, a bracketed ::)
    (["--host", "0"], _everywhere("0")),
    (["--host", "0.0"], _everywhere("0.0")),
    (["--host", "[::]"], _everywhere("[::]")),
    (["--allowed-hosts", "box.lan:8000"], _not_a_host("box.lan:8000")),
    (["--allowed-hosts", "http://box.lan"], _not_a_host("http://box.lan")),
    (
        ["--host", "0.0.0.0", "--allowed-hosts", "box.lan,,x"],
        "argument --allowed-hosts: 'box.lan,,x' has an empty name: give HOST[,HOST...], e.g. myhost.lan,10.0.0.5",
    ),
    (
        ["--allowed-hosts", ""],
        "argument --allowed-hosts: '' has an empty name: give HOST[,HOST...], e.g. myhost.lan,10.0.0.5",
    ),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_flags_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(f"error: {message}\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 60.0), "max_games must be an int >= 1, got 0"),
        ((2.5, 60.0), "max_games must be an int >= 1, got 2.5"),
        ((4, float("nan")), "max_idle must be a finite number of seconds > 0, got nan"),
        ((4, -1), "max_idle must be a finite number of seconds > 0, got -1"),
        ((4, "60"), "max_idle must be a finite number of seconds > 0, got '60'"),
    ],
)
def test_the_game_store_refuses_bad_limits(args, message):
    from experiments.serve.store import GameStore

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        GameStore(*args)
    assert GameStore(4, 60).max_idle == 60


def test_a_file_given_as_a_folder_is_refused(tmp_path, capsys):
    afile = tmp_path / "records.jsonl"
    afile.write_text("")
    for flag in ("--records", "--results"):
        with pytest.raises(SystemExit) as stop:
            parse_args([flag, str(afile)])
        assert stop.value.code == 2 and f"error: {flag} {afile} is a file, not a folder" in capsys.readouterr().err


def test_a_busy_port_is_refused_before_the_banner(tmp_path, capsys):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SystemExit) as stop:
            main(["--port", str(port), "--records", str(tmp_path), "--results", str(tmp_path), "--no-save"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in err
    assert "serve: http://" not in out


def test_an_unknown_host_is_refused(tmp_path, capsys, monkeypatch):
    import socket

    def unknown(*args, **kwargs):  # no DNS lookup in the test: the resolver's answer for an unknown name
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with pytest.raises(SystemExit) as stop:
        main(["--host", "no-such-host.invalid", "--records", str(tmp_path), "--results", str(tmp_path), "--no-save"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "error: cannot listen on no-such-host.invalid:8000: " in err
    assert "Name or service not known" in err


def test_an_unwritable_records_folder_is_fine_without_saving():
    assert str(parse_args(["--records", "/dev/null/x", "--no-save"]).records) == "/dev/null/x"

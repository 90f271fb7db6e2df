"""``python -m experiments.serve``: parse the flags and run the app with uvicorn (see the
package docstring for the pages and the safety rules)."""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from experiments.common import check_folder, description, path_arg, program_name

INSTALL = 'the server needs the web extra: pip install -e ".[web]"'


def _host_list(text: str) -> list[str]:
    """``--allowed-hosts``' value: host names separated by commas, as Host patterns."""
    from experiments.serve.hosts import host_pattern

    names = text.split(",")
    if "" in (n.strip() for n in names):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty name: give HOST[,HOST...], e.g. myhost.lan,10.0.0.5")
    try:
        return [host_pattern(n) for n in names]
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line (``--help`` lists it)."""
    import experiments.serve as package

    p = argparse.ArgumentParser(
        prog=program_name("experiments.serve", "rummy-serve"),
        description=description(package.__doc__),
        epilog="Binds 127.0.0.1 unless --host says otherwise: anyone who reaches the port can play and read "
        "the records and results served.  A request whose Host header names none of the allowed hosts is "
        "refused (400), so that a page of another site whose name is made to resolve to this machine (DNS "
        "rebinding) cannot use the server.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument(
        "--records",
        type=path_arg,
        default=Path("results"),
        help="folder of game records for the Replay page; games played are saved to its play/ (default: results)",
    )
    p.add_argument(
        "--results",
        type=path_arg,
        default=Path("results"),
        help="folder of tournaments and evaluations (default: results)",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        default=[],
        metavar="NAME",
        help="agents the browser may choose besides random and heuristic (and its styles), e.g. "
        "'pimc' 'policy:docs/results/sb3-gin/model.zip': any name the tournament takes",
    )
    p.add_argument("--max-games", type=int, default=64, help="games kept in memory at once (default: 64)")
    p.add_argument("--max-idle", type=float, default=7200.0, help="seconds an untouched game is kept (default: 7200)")
    p.add_argument("--max-upload-kb", type=int, default=1000, help="largest record upload in kB (default: 1000)")
    p.add_argument(
        "--allowed-hosts",
        action="append",
        type=_host_list,
        default=[],
        metavar="HOST[,HOST...]",
        help="host names or addresses the browsers use to reach the server (the HTTP Host header), besides "
        "localhost, 127.0.0.1, [::1] and --host; '*.example.lan' allows a domain's names, '*' any host (no "
        "DNS-rebinding check); a trailing dot is dropped (myhost.lan. is myhost.lan).  Required with --host "
        "0.0.0.0, :: or 0 (every address), which name no host.  May be repeated",
    )
    p.add_argument("--no-save", action="store_true", help="do not write the records of the games played")
    args = p.parse_args(argv)
    from experiments.serve.hosts import allowed_hosts, listens_everywhere

    extra = [name for names in args.allowed_hosts for name in names]
    if listens_everywhere(args.host) and not extra:
        p.error(
            f"--host {args.host} listens on every address of this machine, which names no host: give the names "
            "or addresses the browsers will use with --allowed-hosts HOST[,HOST...] (e.g. --allowed-hosts "
            "myhost.lan,192.168.1.5), or --allowed-hosts '*' to accept any Host header (no DNS-rebinding check)"
        )
    try:
        args.allowed_hosts = allowed_hosts(args.host, extra)
    except ValueError as err:
        p.error(f"--host: {err}")
    if not 1 <= args.port <= 65535:  # 0 would let the system pick one the address printed could not name
        p.error(f"--port must be in 1..65535, got {args.port}")
    for flag, value in (("--max-games", args.max_games), ("--max-upload-kb", args.max_upload_kb)):
        if value < 1:
            p.error(f"{flag} must be >= 1, got {value}")
    from experiments.serve.store import check_max_idle

    try:
        check_max_idle(args.max_idle, "--max-idle")
    except ValueError as err:
        p.error(str(err))
    for flag, folder in (("--records", args.records), ("--results", args.results)):
        if folder.exists() and not folder.is_dir():  # a missing folder is fine: nothing to list yet
            p.error(f"{flag} {folder} is a file, not a folder")
    if not args.no_save:  # every game played is saved in --records/play: refuse now, not at each game's end
        try:
            check_folder(args.records / "play", "--records' play/")
        except ValueError as err:
            p.error(f"{err}: the games played are saved there; give another --records or --no-save")
    args.parser = p
    return args


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port``: an unknown host, or the port in use
    (or not allowed) at every address of the host; None when one address binds.  uvicorn
    binds each address itself and skips those the machine lacks (an IPv6 ``::1`` with
    IPv6 off), so an address that is merely unavailable is no reason to refuse."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        return str(err)
    reasons = []
    for family, kind, proto, _, address in addresses:
        try:  # a family the machine lacks fails at socket(), an address in use at bind()
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
            return None
        except OSError as err:
            if err.errno in (errno.EADDRINUSE, errno.EACCES):
                reasons.append(err.strerror)
    return reasons[0] if reasons else None


def _url_hosts(host: str, allowed: Sequence[str]) -> list[str]:
    """The hosts of the URLs printed: ``host`` (an IPv6 address bracketed); for every address
    (``0.0.0.0``, ``::``, ``0``: :func:`~experiments.serve.hosts.listens_everywhere`), which
    no browser's ``Host`` may name, ``localhost`` and then the names of ``--allowed-hosts``
    (``*`` and ``*.DOMAIN`` left out: they name no one host)."""
    from experiments.serve.hosts import LOOPBACK_HOSTS, listens_everywhere

    if not listens_everywhere(host):
        return [f"[{host}]" if ":" in host and not host.startswith("[") else host]
    return ["localhost", *(name for name in allowed if name not in LOOPBACK_HOSTS and not name.startswith("*"))]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until Ctrl-C; returns the exit code."""
    args = parse_args(argv)
    try:
        import uvicorn

        from experiments.serve.app import ServeConfig, create_app
    except ImportError as err:
        args.parser.error(f"{INSTALL} ({err})")
    config = ServeConfig(
        records=args.records,
        results=args.results,
        agents=tuple(args.agents),
        max_games=args.max_games,
        max_idle=args.max_idle,
        max_upload=args.max_upload_kb * 1000,
        save_games=not args.no_save,
        allowed_hosts=args.allowed_hosts,
    )
    try:
        app = create_app(config)
    except ValueError as err:
        args.parser.error(str(err))
    busy = _cannot_listen(args.host, args.port)
    if busy:  # a usage error now, not a server error after the banner
        args.parser.error(f"cannot listen on {args.host}:{args.port}: {busy}")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"serve: binding {args.host}: other machines can reach this server", file=sys.stderr)
    if "*" in args.allowed_hosts:
        print(
            "serve: --allowed-hosts '*': requests naming any host are served, also those of a page of another site "
            "whose name is made to resolve to this machine (DNS rebinding)",
            file=sys.stderr,
        )
    urls = [f"http://{name}:{args.port}/" for name in _url_hosts(args.host, args.allowed_hosts)]
    print(f"serve: {urls[0]}  (records from {args.records}/, results from {args.results}/; Ctrl-C stops)")
    if urls[1:]:
        print(f"serve: from other machines: {', '.join(urls[1:])}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Starlette app: the three pages (static HTML, CSS and JavaScript of the package) and
the JSON API they call.  See the package docstring (``experiments/serve/__init__.py``)
for the pages, the API and the safety rules.

Each handler parses its request, then does the work in a worker thread
(``run_in_threadpool``): building agents, an agent's move, replaying a record and drawing
SVG never run on the event loop.  Refusals are :class:`~experiments.serve.safety.ApiError`
and answer ``{"error": reason}`` with their status: 4xx for a request refused, 503 for a
server too busy, 500 for an agent of the server that chose an illegal move or failed.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import rummy_env
from experiments.serve import results as results_data
from experiments.serve.games import GameSession
from experiments.serve.hosts import LOOPBACK_HOSTS, check_allowed_hosts, host_name, middleware_hosts
from experiments.serve.replays import ReplayStore, list_records, record_index
from experiments.serve.safety import (
    MAX_UPLOAD_BYTES,
    ApiError,
    builtin_agents,
    check_agent,
    check_options,
    check_token,
    check_upload_size,
    check_variant,
    option_fields,
    shown,
)
from experiments.serve.store import MAX_GAMES, MAX_IDLE_SECONDS, GameStore
from rummy_env.games.rummy.config import RESHUFFLES

STATIC = Path(__file__).resolve().parent / "static"
#: a JSON request body larger than this is refused (bytes)
MAX_JSON_BYTES = 64_000
TOKEN_HEADER = "x-game-token"
GAME_ACTIONS = ("move", "advance", "hint", "quit", "undo")
#: seeds are below this: a random one must be too many to try.  The human sees its hand and
#: the upcard, which single out the seed among 2**31 (a search of some core-hours at 10 us a
#: deal), and the seed gives every other card; 2**53 is JavaScript's exact integers (the form's)
SEED_BOUND = 2**53
#: the option fields of the Play form whose values are a fixed list
CHOICES = {"episode": ["hand", "game"], "reward": ["win", "score"], "reshuffle": list(RESHUFFLES)}


@dataclass
class ServeConfig:
    """The server's settings (the command line's flags).

    Args:
        records: the folder of game records: listed on the Replay page; played games are
            written to its ``play/`` subfolder.
        results: the folder of tournaments and evaluations (the Results page).
        agents: agent names the browser may choose besides the built-in ones (checked
            against each variant when the app is made; a name no variant takes is an error).
        max_games, max_idle: games kept in memory at once, and seconds an untouched game is kept.
        max_upload: the largest record upload, in bytes.
        save_games: write the record of each game played to ``records/play/``.
        allowed_hosts: the names a request's ``Host`` header may give (a request naming
            another is refused, 400: a DNS-rebinding page names its own site there);
            ``*.DOMAIN`` allows a domain's names, ``*`` any (see
            :mod:`~experiments.serve.hosts`).  Default: this machine's loopback names.
    """

    records: Path = Path("results")
    results: Path = Path("results")
    agents: tuple[str, ...] = ()
    max_games: int = MAX_GAMES
    max_idle: float = MAX_IDLE_SECONDS
    max_upload: int = MAX_UPLOAD_BYTES
    save_games: bool = True
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    allowed: dict[str, list[str]] = field(default_factory=dict)  #: filled by :func:`allowed_agents`


def allowed_agents(extra: tuple[str, ...]) -> dict[str, list[str]]:
    """The agent names offered per variant: the built-in ones, then each name of ``extra``
    that ``agents.make_agent`` can build for that variant.

    Raises:
        ValueError: a name of ``extra`` that no variant can use (with each variant's reason).
    """
    from agents import make_agent
    from experiments.common import load_variant

    out = {v: builtin_agents(v) for v in rummy_env.VARIANTS}
    for name in extra:
        reasons = {}
        for variant in rummy_env.VARIANTS:
            try:
                make_agent(name, load_variant(variant).env(), seed=0)
            except (ValueError, TypeError, OSError) as err:
                reasons[variant] = str(err)
                continue
            if name not in out[variant]:
                out[variant].append(name)
        if len(reasons) == len(rummy_env.VARIANTS):
            first, *others = reasons
            if all(r.startswith(f"unknown agent {name!r}") for r in reasons.values()):
                # one list of the known names, not four that differ only in the heuristic's styles
                raise ValueError(
                    f"--agents {name!r} plays no variant: {reasons[first]} "
                    f"(and likewise for {', '.join(others)}, with their own heuristic styles)"
                )
            raise ValueError(
                f"--agents {name!r} plays no variant: " + "; ".join(f"{v}: {r}" for v, r in reasons.items())
            )
    return out


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


#: the scope key by which :class:`HostCheck` learns that Starlette's check let a request through
_HOST_PASSED = "rummy_env.host_passed"


class HostCheck(TrustedHostMiddleware):
    """Starlette's ``TrustedHostMiddleware`` (no ``www.`` redirect, the names' dotted forms
    added by :func:`~experiments.serve.hosts.middleware_hosts`) whose refusal says what to
    do: still a 400, but naming the ``Host`` received and ``--allowed-hosts``, as JSON
    (``{"error": ...}``) under ``/api`` and as text elsewhere.  Starlette's check decides;
    its own answer (a bare "Invalid host header") is dropped, and this one sent instead.

    Args:
        app: the app behind the check.
        allowed_hosts: the patterns of :func:`~experiments.serve.hosts.check_allowed_hosts`.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str]) -> None:
        super().__init__(self._passed, allowed_hosts=middleware_hosts(allowed_hosts), www_redirect=False)
        self.inner = app

    async def _passed(self, scope: Scope, receive: Receive, send: Send) -> None:
        # reached only through Starlette's check: the request's own send, not the one dropping the refusal
        passed, real_send = scope.pop(_HOST_PASSED, (None, send))
        if passed is not None:
            passed.append(True)
        await self.inner(scope, receive, real_send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run Starlette's check; a request it refuses gets :meth:`refusal` instead of its answer."""
        if scope["type"] not in ("http", "websocket"):  # lifespan: no Host to check
            await self.inner(scope, receive, send)
            return
        passed: list[bool] = []

        async def drop(message: dict) -> None:  # only Starlette's refusal is sent here
            pass

        await super().__call__({**scope, _HOST_PASSED: (passed, send)}, receive, drop)
        if not passed:
            await self.refusal(scope)(scope, receive, send)

    @staticmethod
    def refusal(scope: Scope) -> Response:
        """The 400 answer to a request whose ``Host`` none of the allowed hosts matches."""
        host = Headers(scope=scope).get("host")
        name = host_name(host)
        if name is not None:
            message = (
                f"Host {host!r} is not a name this server answers to (the check against DNS rebinding): "
                f"to reach it by this name, start it with --allowed-hosts {name}"
            )
        else:
            given = "the request has no Host header" if host is None else f"Host {host!r} is not a HOST[:PORT]"
            message = (
                f"{given}: this server answers only to the names of localhost and of its --allowed-hosts "
                "(the check against DNS rebinding)"
            )
        message = ApiError(400, message).message  # a long Host is cut as any refused value is
        path = scope.get("path", "")
        if path == "/api" or path.startswith("/api/"):
            return _error(400, message)
        return PlainTextResponse(message, status_code=400)


def _view_or_unchanged(version: int, seen: str | None, view: Callable[[], dict]) -> Response:
    """A game's view answered with ``ETag: "VERSION"`` (its ``version``): 304 with no body
    when ``seen`` (the request's ``If-None-Match``) names it, so that a page polling an
    unchanged game costs no drawing; else the view (``view()``).  ``no-store``: a view
    holds the seat's hand, and its page asks anew each time."""
    etag = f'"{version}"'
    headers = {"ETag": etag, "Cache-Control": "no-store"}
    tags = [t.strip().removeprefix("W/") for t in (seen or "").split(",")]
    if etag in tags or "*" in tags:
        return Response(status_code=304, headers=headers)
    return JSONResponse(view(), headers=headers)


async def _body(request: Request, limit: int, what: str = "upload") -> bytes:
    """The request body, refused (413) as soon as it passes ``limit`` bytes (``what``: the
    message's name for it, ``check_upload_size``)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit():
        check_upload_size(int(declared), limit, what)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        check_upload_size(len(data), limit, what)
    return bytes(data)


def _media_type(request: Request) -> str:
    """The request's media type, lower case, without parameters (``""`` when none is sent)."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _require_media(media: str, expected: str, send: str, page: str) -> None:
    """Refuse (415) a body sent as ``media`` (:func:`_media_type`) instead of ``expected``: a
    page of another site can post text/plain, a form or no type with no CORS preflight.

    Raises:
        ApiError: 415 ``"{send} Content-Type: {expected} (as the {page}), got {media}"``.
    """
    if media != expected:
        raise ApiError(415, f"{send} Content-Type: {expected} (as the {page}), got {shown(media) if media else 'none'}")


async def _json(request: Request, json_type: bool = False) -> dict:
    """The request's JSON object (413 past :data:`MAX_JSON_BYTES`, 400 not a JSON object);
    with ``json_type``, a body sent as anything but ``Content-Type: application/json`` is
    refused (415)."""
    data = await _body(request, MAX_JSON_BYTES, "request body")
    if json_type and data:
        # another website's page may send a form or text/plain here with no CORS preflight
        # (the game routes need the X-Game-Token header, which forces one): it would start
        # games in the user's browser's name, pushing the user's own game out of the store
        _require_media(
            _media_type(request), "application/json", "a new game's request body must be sent as", "Play page sends it"
        )
    try:
        body = json.loads(data or b"{}")
    except ValueError as err:
        if "integer string conversion" in str(err):  # Python's int parsing limit, sys.get_int_max_str_digits
            limit = sys.get_int_max_str_digits()
            raise ApiError(
                400, f"the request body holds an integer of over {limit:,} digits, which no field takes"
            ) from None
        raise ApiError(400, "the request body is not JSON") from None
    except RecursionError:
        raise ApiError(400, "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return body


def create_app(config: ServeConfig | None = None) -> Starlette:
    """The app serving the pages and the API with ``config`` (default: ``ServeConfig()``).

    Raises:
        ValueError: a ``config.agents`` name that no variant can use, or
            ``config.allowed_hosts`` empty or with a name that is not a host name.
    """
    config = config or ServeConfig()
    config.allowed_hosts = check_allowed_hosts(config.allowed_hosts)
    if not config.allowed:
        config.allowed = allowed_agents(tuple(config.agents))
    games = GameStore(config.max_games, config.max_idle)
    replays = ReplayStore(config.records, config.max_upload)
    play_dir = config.records / "play" if config.save_games else None

    def page(name: str):
        async def handler(request: Request) -> Response:
            return FileResponse(STATIC / name, media_type="text/html")

        return handler

    async def api_config(request: Request) -> Response:
        def work() -> dict:
            return {
                "variants": {v: {"options": option_fields(v), "agents": config.allowed[v]} for v in rummy_env.VARIANTS},
                "choices": CHOICES,
                "max_upload": config.max_upload,
            }

        return JSONResponse(await run_in_threadpool(work))

    # ----------------------------------------------------------- play
    async def new_game(request: Request) -> Response:
        body = await _json(request, json_type=True)
        variant = check_variant(body.get("variant"))
        options = check_options(body.get("options"), variant)
        opponents = body.get("opponents")
        if not isinstance(opponents, list):  # how many: GameSession, after the env has checked the options
            raise ApiError(400, "opponents must be a list of agent names, one per other seat")
        opponents = [check_agent(a, config.allowed[variant], variant) for a in opponents]
        seat = body.get("seat", "player_0")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(SEED_BOUND)
        elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < SEED_BOUND:
            raise ApiError(
                400,
                f"seed {shown(seed)} is not an int in 0..2**{SEED_BOUND.bit_length() - 1}-1 (or null for a random one)",
            )

        def work() -> dict:
            session = GameSession(variant, options, seat, opponents, seed, play_dir)
            games.add(session)
            with session.lock:
                return {"id": session.id, "token": session.token, "view": session.view()}

        return JSONResponse(await run_in_threadpool(work))

    def game_route(action: str):
        async def handler(request: Request) -> Response:
            game_id = check_token(request.path_params["game_id"], "game")
            body = await _json(request) if request.method == "POST" else {}
            token = request.headers.get(TOKEN_HEADER)

            version = body.get("version")  # the view the request was made from (optional)
            seen = request.headers.get("if-none-match")

            def work() -> Response:
                session = games.get(game_id, token)  # in the thread: it may save games it drops
                if action == "advance":
                    session.advance(version)  # takes the lock itself, let go while the agent thinks
                with session.lock:
                    if action == "move":
                        if "action" not in body:
                            raise ApiError(400, "a move needs 'action': an action id or the move's text")
                        session.move(body["action"], version)
                    elif action == "hint":
                        return JSONResponse(session.hint(version))
                    elif action == "quit":
                        session.quit(version)
                    elif action == "undo":
                        session.undo(version)
                    elif action == "view":  # its ETag, unless its seconds count (an opponent thinks)
                        if session.thinking is None:
                            return _view_or_unchanged(session.version, seen, session.view)
                        return JSONResponse(session.view(), headers={"Cache-Control": "no-store"})
                    return JSONResponse(session.view())  # a change's answer: never a 304

            return await run_in_threadpool(work)

        return handler

    # -------------------------------------------------------- replays
    async def records(request: Request) -> Response:
        variant = request.query_params.get("variant") or None
        if variant is not None:
            variant = check_variant(variant)
        agents = request.query_params.getlist("agent")
        folder = request.query_params.get("folder")  # "": the top folder itself
        if folder and len(folder) > 1024:
            raise ApiError(400, f"folder {shown(folder)} is refused: at most 1024 characters")
        if folder and any(p in ("", ".", "..") for p in folder.split("/")):
            raise ApiError(400, f"folder {folder!r} is refused: a relative path under --records, no ..")
        found = await run_in_threadpool(list_records, config.records, variant, agents, folder)
        return JSONResponse({"records": found})

    async def upload(request: Request) -> Response:
        media = _media_type(request)
        if media == "multipart/form-data":
            raise ApiError(415, "send the record file itself as the request body (as the page does), not a form")
        # as for new games: a page of another site's uploads would push the user's replays out of memory
        _require_media(
            media, "application/octet-stream", "send the record file as the request body with", "Replays page does"
        )
        data = await _body(request, config.max_upload)
        # no file name travels: the page shows the one it chose, the server names it by its id
        rep = await run_in_threadpool(replays.upload, data)
        return JSONResponse({"upload": rep.name.split("/", 1)[1], **rep.meta()})

    def _replay(request: Request):
        params = request.query_params
        if "upload" in params:
            upload_id = check_token(params["upload"], "upload")
            return lambda: replays.uploaded(upload_id)
        return lambda: replays.file(params.get("record"))

    async def replay_meta(request: Request) -> Response:
        find = _replay(request)
        return JSONResponse(await run_in_threadpool(lambda: find().meta()))

    async def replay_frame(request: Request) -> Response:
        find = _replay(request)
        raw_step = request.query_params.get("step", "0")
        # isascii: str.isdigit() also holds for characters int() refuses (superscripts, circled digits)
        step = int(raw_step) if raw_step.isascii() and raw_step.isdigit() and len(raw_step) < 9 else raw_step
        seat = request.query_params.get("seat", "all")
        return JSONResponse(await run_in_threadpool(lambda: find().frame(step, seat)))

    # -------------------------------------------------------- results
    async def runs(request: Request) -> Response:
        return JSONResponse({"runs": await run_in_threadpool(results_data.list_runs, config.results)})

    async def run(request: Request) -> Response:
        name = request.query_params.get("name")

        def work() -> bytes:
            return results_data.run_json(config.results, name, record_index(config.records), config.records)

        return Response(await run_in_threadpool(work), media_type="application/json")

    async def image(request: Request) -> Response:
        path = await run_in_threadpool(results_data.image_path, config.results, request.query_params.get("name"))
        return FileResponse(path, media_type="image/png")

    # --------------------------------------------------------- errors
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}")

    routes = [
        Route("/", page("index.html")),
        Route("/play", page("play.html")),
        Route("/replay", page("replay.html")),
        Route("/results", page("results.html")),
        Route("/api/config", api_config),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_route("view"), methods=["GET"]),
        *(Route(f"/api/games/{{game_id}}/{a}", game_route(a), methods=["POST"]) for a in GAME_ACTIONS),
        Route("/api/records", records),
        Route("/api/uploads", upload, methods=["POST"]),
        Route("/api/replays/meta", replay_meta),
        Route("/api/replays/frame", replay_frame),
        Route("/api/results", runs),
        Route("/api/results/run", run),
        Route("/api/results/image", image),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        # the server stops (Ctrl-C, SIGTERM): the games still being played keep their moves
        for fate in await run_in_threadpool(games.close):
            print(f"serve: {fate}", file=sys.stderr)

    # the Host check comes first: a request naming another site reaches no route (DNS rebinding)
    hosts_only = Middleware(HostCheck, allowed_hosts=config.allowed_hosts)
    app = Starlette(
        routes=routes,
        middleware=[hosts_only],
        exception_handlers={ApiError: api_error, HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.config = config
    app.state.games = games
    app.state.replays = replays
    return app

"""Play, watch and compare in the browser: ``python -m experiments.serve``.

    pip install -e ".[web]"
    python -m experiments.serve                                   # http://127.0.0.1:8000/
    python -m experiments.serve --records results --results results --agents pimc policy:docs/results/sb3-gin/model.zip
    python -m experiments.serve --port 8080 --max-games 16 --no-save

One Starlette app (served by uvicorn) with three pages of plain HTML, CSS and a little
JavaScript shipped in this package (``static/``, no build step) over a JSON API.  The
server owns every game; a page only shows what one seat may see.

Flags: ``--host`` (default ``127.0.0.1``), ``--port`` (8000), ``--records DIR`` (records
to replay; games played are saved to ``DIR/play/``; default ``results``), ``--results
DIR`` (tournaments and evaluations; default ``results``), ``--agents NAME ...`` (agents the
browser may choose besides the built-in ones), ``--max-games`` (64), ``--max-idle``
(seconds, 7200), ``--max-upload-kb`` (1000), ``--allowed-hosts HOST[,HOST...]`` (the
names the browsers use to reach the server besides ``localhost``, ``127.0.0.1``, ``[::1]``
and ``--host``; may be repeated; required with ``--host 0.0.0.0``, ``::`` or another
spelling of every address, see the safety rules), ``--no-save``.

Pages
-----
- **Play** (``/play``): choose a variant (``gin_rummy``, ``rummy``, ``crazy_rummy``,
  ``rummikub``), its ``env()`` options (the form lists the variant's options with their
  defaults), your seat, an opponent per other seat and optionally a seed, then play.  The
  table is the SVG the env draws for your seat (``env.unwrapped.render_svg(agent)``).  On
  your turn the legal moves are buttons with their texts (``action_to_string``), and the
  cards of your hand (Rummikub: the tiles of your rack) are clickable in the picture: a
  click plays the move that names exactly that card when it is the only move naming it
  (a discard in Gin, ``add R7`` in Rummikub), otherwise it selects the card and marks the
  moves that use the selected cards (click more cards for a meld, then its button).
  **Hint** asks the variant's heuristic and outlines its move.  In Rummikub **Take back
  tile** takes back the last tile added to the play being built (the env has no such
  action: the game is replayed from its seed without it, as ``experiments.play``'s
  ``undo``); the other variants' moves are final, as in the terminal.  The opponents' moves are
  made one at a time (``opponents' moves every ... ms``), each shown in the picture and in
  the move list.  While an opponent chooses its move (a search agent may take seconds) the
  game's view answers at once, as it was before that move, its ``thinking`` naming the seat
  and the seconds since it began; the page says "player_0 (pimc) is choosing its move… (2.5 s)"
  (the page that asked for the move once it has not come within 0.5 s, counting the seconds
  itself, and "is to move…" again beside the error when no move comes: the agent failed, a
  network error; a page reloaded
  meanwhile, from the view, polling it rather than asking for another move; a second tab
  that asks for an opponent's move another tab asked for first gets a 409, shows no error
  for it but the view saying who is choosing, and polls it until the move is made, for each
  of the opponents' moves it meets so); Quit ends the game at once (the move, when it comes,
  is not played); a move, a hint, an undo or a second ask for the opponent's move gets a 409
  until the move is made.
  When a hand ends the panel explains it: the winner and how (Gin's knock,
  gin or undercut, with the showdown of ``infos``: the knocker's melds and deadwood, the
  other hand's melds, lay-offs and deadwood), the hand's and the total scores.  A finished
  (or quit) game is saved as a record (``experiments.common.records``) to
  ``--records/play/``, which the Replay page and ``python -m experiments.replay`` read
  (a record that cannot be written ends the game all the same: the panel says why, as
  the view's ``record_error``, and stderr names the file).
  A game abandoned before its end (its tab closed, then dropped after ``--max-idle``,
  or pushed out by ``--max-games`` newer games) is saved the same way as a quit game
  (end status ``"quit"``, with the moves played), as ``experiments.play`` saves a game
  left with Ctrl-C; a link to a dropped game then says what became of it and names its record.
  An idle game is dropped by the first request after its ``--max-idle`` (any game's), and
  the games still being played when the server stops (Ctrl-C, SIGTERM) are saved as quit
  games too, a line on stderr naming each record.
  A game's page (``/play?game=ID``) opens only in the tab that started it (its token is
  kept in that tab's ``sessionStorage``); another tab says so instead of an empty page.
  A copy of that tab (the browser's "Duplicate", which copies ``sessionStorage``) shows
  the same game, and every such tab follows it: while the game is live and a page waits
  on nothing (its turn, or another tab's), it asks for the game's view every 2 s (not while
  its tab is hidden, in the background or minimized: it asks at once when shown again), which
  answers 304 while the game is unchanged (nothing redrawn: a selection of cards being
  made stays), and shows a changed one, the other tab's moves then the opponents' (which
  either tab asks for); it stops asking once the game ended.  A move (or undo, hint,
  ask for an opponent's move, or quit) sent from a view the game has passed (another tab played in
  between) is refused with a 409 that changes nothing, and the page shows the game as it
  is, with that 409's message (none for an ask for an opponent's move: the other tab's
  was made, and the page goes on from it), then asks for the opponents' moves if one is
  to move; a view answered after a newer one (its ``version`` lower) is not shown.  Quit
  is sent with the view's version too: a tab that had not caught up gets the 409 and shows
  the game, still played, with Quit on again (a quit that crossed this page's own move,
  undo or ask for an opponent's move, played just before it, is sent again from its view).
- **Replays** (``/replay``): the records under ``--records`` (newest first; the Results
  page links here with ``?variant=...&agent=...&folder=...`` to list one tournament's
  games of an agent or a pair), or a record uploaded from your disk.  A record is checked by replaying it
  (every deck, action and reward, as ``experiments.replay`` does), then shown step by
  step: a slider, buttons, the arrow keys (Home/End: first and last step, PageUp/PageDown:
  ten steps), from one seat's view or with all hands open (every seat's view side by
  side), with the move list (click a move to jump to it) and the result of each hand.
- **Results** (``/results``): every ``summary.json`` (``python -m experiments.tournament``)
  and ``evaluation.json`` (``python -m experiments.evaluate``) under ``--results``.  A
  tournament shows its win rates with 95% intervals, points per hand and ratings, the
  head-to-head heat map of each variant (the row agent's win rate against the column
  agent, an HTML table coloured from red 0 to green 1), its figures, and the games it
  recorded (``--record DIR`` with ``DIR`` under the server's ``--records``; a record is
  the tournament's when its seed, seats and options are those of its ``games.csv``, so
  another tournament's record of the same name is never linked); each summary row and
  heat-map cell links to the tournament's recorded games of that agent or pair (only
  those in its record folder: not web games nor other jobs' games), or says "none
  recorded".  An evaluation shows its row per opponent of the panel (it records no games:
  no replay links).  The listings read a record's game line and a run's title once, and
  again only when the file changes (its modification time, size, inode or ctime:
  :mod:`~experiments.serve.filecache`), which the walk's one ``stat`` of each file tells.

API (JSON; errors are ``{"error": reason}`` with a 4xx status)
--------------------------------------------------------------
``GET /api/config`` (variants, their options and agents); ``POST /api/games`` (``{variant,
options, seat, opponents, seed?}`` -> ``{id, token, view}``); ``GET /api/games/{id}`` and
``POST /api/games/{id}/move`` (``{action: id or text, version?}``), ``/advance``
(``{version?}``; one opponent
move; a 409 while another request's opponent is still choosing, or when the game ended
while it chose; a 500 naming the agent when it chose an illegal move or failed, the game unchanged; the
illegal move itself, the seed and that seat's legal moves, or the failing agent's message
and traceback, go to the server's stderr only),
``/hint`` (``{version?}``), ``/quit`` (``{version?}``), ``/undo`` (Rummikub; ``{version?}``), each with the header
``X-Game-Token``.  A view's ``version`` counts the game's changes (each move, undo, and
its end); ``GET /api/games/{id}`` answers with ``ETag: "VERSION"`` (none while an
opponent is thinking: its seconds count) and ``Cache-Control: no-store``, and with a 304
and no body when ``If-None-Match`` names that ETag (the other routes answer with the view,
or the hint, whatever it names); a ``version`` sent with a move, undo, hint, advance or quit
older than the game's is refused (409; a later one, which no view had, or one that is not
an int >= 0: 400), the game unchanged (without it, as before: whatever
the version; a quit while an opponent chooses its move is from the view that says so, whose
version is the game's until that move is played).  ``GET /api/records``
(``?variant=&agent=&folder=``); ``POST /api/uploads`` (the record file as the body,
``Content-Type: application/octet-stream``);
``GET /api/replays/meta`` and ``/api/replays/frame`` (``?record=NAME`` or ``?upload=ID``,
``&step=K&seat=player_0|all``); ``GET /api/results``, ``/api/results/run?name=``,
``/api/results/image?name=``.

Safety rules
------------
- It binds ``127.0.0.1`` unless ``--host`` says otherwise (then it warns): anyone who
  reaches the port can play and read the records and results served.
- Agents: a browser chooses only among the built-in names (``random``, ``heuristic`` and
  the heuristic's styles ``heuristic:style=NAME`` where the registry has them) and the
  server's ``--agents``, compared as exact strings; an import path (``package.module:Name``)
  or a file (``policy:PATH``) from a request is refused (400) before any agent is built.
- Records and results: a name is a relative path inside ``--records`` (``--results``):
  ``..``, absolute paths, backslashes, NUL bytes and links whose real path leaves the
  folder are refused (400), listings skip such links, and only ``.jsonl`` records and the
  jobs' own files (``summary.json``, ``evaluation.json``, the figures) are served.
- Uploads are refused above ``--max-upload-kb`` (413, also from the ``Content-Length``
  before reading), then read by ``read_record``, checked line by line
  (:func:`~experiments.serve.safety.check_record_lines`) and replayed; a damaged record or
  one that does not replay is refused (422) with the reason (its step numbered from 1, as
  the Replay page shows it, and the record's own 0-based ``step``).  JSON request bodies
  are limited to 64 kB.
- Other websites: ``POST /api/games`` takes only ``Content-Type: application/json`` and
  ``POST /api/uploads`` only ``application/octet-stream`` (415 otherwise), which a page of
  another site cannot send without a CORS preflight this server never grants, and the game
  routes need the ``X-Game-Token`` header, which forces one too: a page the user visits
  cannot start games or upload records here and push the user's out.
- DNS rebinding: a page of another site whose name is made to resolve to this machine
  is same-origin to the browser, but its requests' ``Host`` header names that site: a
  request whose ``Host`` is none of the allowed hosts is refused (400, Starlette's
  ``TrustedHostMiddleware``) before any route.  Allowed, as Django's ``ALLOWED_HOSTS``
  does: ``localhost``, ``127.0.0.1``, ``[::1]``, the ``--host`` bound, and the names of
  ``--allowed-hosts`` (``*.DOMAIN`` allows a domain's names).  A name matches with or
  without one trailing dot (``myhost.lan.`` is ``myhost.lan``), in any case.
  ``--host 0.0.0.0`` (or ``::``, or any spelling the system binds as every address:
  ``0``, ``0.0``, ``[::]``, ...) names no host a browser sends, so the server refuses to
  start without ``--allowed-hosts``: name the hosts (``--allowed-hosts
  myhost.lan,192.168.1.5``), or pass ``--allowed-hosts '*'`` to accept any ``Host`` and do
  without this check (it warns); it then prints ``http://localhost:PORT/`` and the URLs of
  the names given.  A refused request gets a 400 naming the ``Host`` it sent and the
  ``--allowed-hosts`` that would allow it (``{"error": ...}`` under ``/api``, text elsewhere).
- Moves: a move for an unknown or dropped game is a 404, without the game's token a 403,
  after the end, out of turn or from a view the game has passed (its ``version``) a 409,
  not an action a 400, not legal now a 422 (naming legal moves); the game is left as it was.
- Hidden cards: a view carries the seat's own SVG, its own hand and legal moves, the
  moves made (another seat's Rummikub tiles stay hidden until its commit), the public
  results, never the seed or the deck; ``tests/web/test_views.py`` permutes the hidden
  cards (``state.resample``) and checks that the view, JSON and SVG, does not change.
  A random seed is drawn below 2**53, too many to find by trying the deals that give the
  hand one sees (a seed chosen in the form, 0..2**53-1, is known to the player anyway).
- Games: at most ``--max-games`` in memory (the least recently used is dropped for a new
  one, finished games first), each dropped after ``--max-idle`` seconds untouched (an
  unfinished one is saved as quit first; a game whose agent is choosing the move a request
  asked for is not idle, however long it thinks, nor is a game played on in an open tab: its page asks
  for the view every 2 s, which touches it, so the time counts from its last tab's close; a
  hidden tab does not ask, so a game left only in background tabs is dropped ``--max-idle``
  after they were hidden).
  Agents' moves, hints, replays and pictures are computed in worker threads
  (``run_in_threadpool``), so the event loop keeps serving other games meanwhile; an agent
  chooses its move without the game's lock, so only the request that asked for the move
  waits for it (in its worker thread): the game's other requests answer at once (each one
  waiting on the lock held a worker thread, of the 40 every route shares).

Modules: :mod:`~experiments.serve.app` (the app and routes), :mod:`~experiments.serve.games`
(game sessions), :mod:`~experiments.serve.store` (their store), :mod:`~experiments.serve.hosts` (the allowed
``Host`` names), :mod:`~experiments.serve.table` (a seat's view),
:mod:`~experiments.serve.replays` (records), :mod:`~experiments.serve.results` (results),
:mod:`~experiments.serve.filecache` (what is read from files, kept until they change),
:mod:`~experiments.serve.safety` (the checks), :mod:`~experiments.serve.testing` (the
server in a thread and headless Chromium, for the tests and screenshots).  The browser
tests (``tests/web/test_browser.py``) use Debian's ``chromium`` through Playwright's
``executable_path``; ``.ci/run`` installs it.
"""

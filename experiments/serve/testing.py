"""Running the server in a thread and a headless Chromium against it: what the browser
tests (``tests/web/``) and the screenshots (``python -m experiments.dev.serve_screenshots``)
share.

The browser is Debian's ``chromium`` (``apt-get install chromium``; ``.ci/run`` installs
it), driven by Playwright for Python through ``executable_path``: Playwright's own browser
download (``playwright install``) is never used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

#: Debian's path; elsewhere the first ``chromium`` on the PATH (:func:`chromium_path`)
CHROMIUM = "/usr/bin/chromium"
#: Chromium as root in a container with no network: no sandbox, no GPU, nothing fetched
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
)


@contextlib.contextmanager
def serve_in_thread(app: Any, startup_seconds: float = 30.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of 127.0.0.1 in a daemon thread; yields
    its base URL (``http://127.0.0.1:PORT``) and stops the server on exit.

    Raises:
        RuntimeError: the server did not start within ``startup_seconds``.
    """
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_seconds
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def chromium_path() -> str:
    """The Chromium executable: :data:`CHROMIUM` when it is there, else ``chromium`` on the
    PATH.

    Raises:
        FileNotFoundError: neither, with the install line.
    """
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    found = shutil.which("chromium")
    if found is None:
        raise FileNotFoundError(
            f"no Chromium at {CHROMIUM} nor on the PATH: the browser tests and screenshots drive Debian's "
            "chromium (apt-get install chromium chromium-driver; .ci/run installs it when it is missing)"
        )
    return found


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A Playwright browser context of headless Chromium (a fresh ``--user-data-dir``);
    yields the context (``context.new_page()``).

    Raises:
        FileNotFoundError: no Chromium (:func:`chromium_path`)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=executable,
            headless=True,
            args=list(CHROMIUM_ARGS),
            viewport={"width": width, "height": height},
        )
        try:
            yield context
        finally:
            context.close()

"""The host names the server answers to: the HTTP ``Host`` header a request must carry.

A page of another site can point its own domain name at 127.0.0.1 (DNS rebinding): the
browser then sends that page's requests here as same-origin, and only the ``Host`` header,
which still names the other site, tells them apart.  The app refuses (400) a request
whose ``Host`` is not one of its allowed hosts, with Starlette's ``TrustedHostMiddleware``;
this module turns the command line's names into the middleware's patterns.  The rule is
that of Django's ``ALLOWED_HOSTS``: this machine's loopback names always, the names the
user gives, and ``*`` (any host) only when the user says so.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

#: the names a browser on this machine reaches it by; a rebinding page's requests name its
#: own domain instead.  An IPv6 address is bracketed, as in a URL and a ``Host`` header
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
#: a DNS name, or ``*.`` and a domain: its names (``TrustedHostMiddleware``'s wildcard)
_NAME = re.compile(r"(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def host_pattern(name: str) -> str:
    """``name`` as ``TrustedHostMiddleware`` compares it with the ``Host`` header: lower case,
    an IPv6 address in brackets and in its short form (``::1`` and ``[0:0::1]`` give ``[::1]``).

    Raises:
        ValueError: ``name`` is not a host name, an IP address, ``*`` or ``*.DOMAIN`` (a
            port, scheme or path included, an empty name).
    """
    if not isinstance(name, str):
        raise ValueError(f"host {name!r} is not a string: give a host name, an IP address, '*' or '*.DOMAIN'")
    text = name.strip().lower()
    bracketed = text.startswith("[") and text.endswith("]")
    ip = _ip(text[1:-1] if bracketed else text)
    if ip is not None and (ip.version == 6 or not bracketed):
        return f"[{ip.compressed}]" if ip.version == 6 else ip.compressed
    if text == "*" or (not bracketed and _NAME.fullmatch(text)):
        return text
    raise ValueError(
        f"host {name!r} is not a host name, an IP address, '*' or '*.DOMAIN': give the name alone, "
        "without a scheme, port or path (e.g. myhost.lan, 192.168.1.5, ::1)"
    )


def listens_everywhere(host: str) -> bool:
    """Whether ``--host`` is the unspecified address (``0.0.0.0``, ``::``): every address of
    the machine, which names no host a browser would send."""
    ip = _ip(host.strip().strip("[]"))
    return ip is not None and ip.is_unspecified


def allowed_hosts(host: str, extra: Iterable[str]) -> tuple[str, ...]:
    """The ``Host`` patterns of a server bound to ``host``: :data:`LOOPBACK_HOSTS`, ``host``
    itself (unless it is ``0.0.0.0`` or ``::``), then ``extra``, each once.

    Raises:
        ValueError: a name that :func:`host_pattern` refuses.
    """
    names = [*LOOPBACK_HOSTS, *([] if listens_everywhere(host) else [host]), *extra]
    return tuple(dict.fromkeys(host_pattern(n) for n in names))


def check_allowed_hosts(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` (``ServeConfig.allowed_hosts``) as patterns (:func:`host_pattern`).

    Raises:
        ValueError: a string rather than a list of names, no name (every request would be
            refused), or a name :func:`host_pattern` refuses.
    """
    if isinstance(names, str):
        raise ValueError(f"allowed_hosts must be a list of host names, got the string {names!r}")
    out = tuple(dict.fromkeys(host_pattern(n) for n in names))
    if not out:
        raise ValueError("allowed_hosts is empty: every request would be refused; give at least one host name")
    return out

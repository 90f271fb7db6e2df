"""The host names the server answers to: the HTTP ``Host`` header a request must carry.

A page of another site can point its own domain name at 127.0.0.1 (DNS rebinding): the
browser then sends that page's requests here as same-origin, and only the ``Host`` header,
which still names the other site, tells them apart.  The app refuses (400) a request
whose ``Host`` is not one of its allowed hosts, with Starlette's ``TrustedHostMiddleware``;
this module turns the command line's names into the middleware's patterns.  The rule is
that of Django's ``ALLOWED_HOSTS``: this machine's loopback names always, the names the
user gives, and ``*`` (any host) only when the user says so.

A name is compared without one trailing dot (``myhost.lan.`` is the fully qualified
spelling of ``myhost.lan``, and browsers send either): :func:`host_pattern` strips it from
the names given and :func:`middleware_hosts` adds the dotted form of each name for the
middleware, which compares the ``Host`` header as sent (lower case, port dropped).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable

#: the names a browser on this machine reaches it by; a rebinding page's requests name its
#: own domain instead.  An IPv6 address is bracketed, as in a URL and a ``Host`` header
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
#: a DNS name, or ``*.`` and a domain: its names (``TrustedHostMiddleware``'s wildcard)
_NAME = re.compile(r"(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")
#: a ``Host`` header: a name or address, an IPv6 one bracketed, and maybe a port
_HOST_PORT = re.compile(r"(\[[^\]]*\]|[^:\[\]]+)(?::[0-9]*)?")


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def host_pattern(name: str) -> str:
    """``name`` as ``TrustedHostMiddleware`` compares it with the ``Host`` header: lower case,
    without one trailing dot (``MyHost.LAN.`` gives ``myhost.lan``), an IPv6 address in
    brackets and in its short form (``::1`` and ``[0:0::1]`` give ``[::1]``).

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
        return text.removesuffix(".")
    raise ValueError(
        f"host {name!r} is not a host name, an IP address, '*' or '*.DOMAIN': give the name alone, "
        "without a scheme, port or path (e.g. myhost.lan, 192.168.1.5, ::1)"
    )


def host_name(header: str | None) -> str | None:
    """The name of a ``Host`` header as ``--allowed-hosts`` takes it (:func:`host_pattern`,
    the port dropped: ``Box.LAN.:8000`` gives ``box.lan``), or None for no header or one
    that names no host (``*`` included)."""
    match = None if header is None else _HOST_PORT.fullmatch(header)
    try:
        name = None if match is None else host_pattern(match[1])
    except ValueError:
        return None
    return None if name is None or name.startswith("*") else name


def listens_everywhere(host: str) -> bool:
    """Whether ``--host`` is an unspecified address: every address of the machine, which
    names no host a browser would send.  The address is read as the system reads it when
    binding (``getaddrinfo`` of a numeric host), so the IPv4 shorthands ``0``, ``0.0`` and
    ``0x0`` count as ``0.0.0.0``, and ``::``, ``[::]`` and ``0:0::0`` as ``::``; a name is
    not looked up (no name resolves to every address)."""
    text = host.strip().removeprefix("[").removesuffix("]")
    try:
        found = socket.getaddrinfo(text, None, flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError, ValueError):  # a name, or not an address at all
        return False
    for *_, address in found:
        ip = ipaddress.ip_address(address[0].partition("%")[0])  # an IPv6 zone is not part of it
        mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:0.0.0.0 binds 0.0.0.0's addresses
        if ip.is_unspecified or (mapped is not None and mapped.is_unspecified):
            return True
    return False


def allowed_hosts(host: str, extra: Iterable[str]) -> tuple[str, ...]:
    """The ``Host`` patterns of a server bound to ``host``: :data:`LOOPBACK_HOSTS`, ``host``
    itself (unless it is every address, :func:`listens_everywhere`), then ``extra``, each once.

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


def middleware_hosts(patterns: Iterable[str]) -> list[str]:
    """The list ``TrustedHostMiddleware`` takes for ``patterns`` (:func:`check_allowed_hosts`):
    each name also with a trailing dot, as a browser sends it for ``http://myhost.lan.:8000/``
    (the middleware compares the ``Host`` header as it came, and ``localhost.`` is
    ``localhost``).  An IP address and ``*`` are kept alone: an address has no dotted form.
    """
    out = []
    for pattern in patterns:
        out.append(pattern)
        if pattern != "*" and not pattern.startswith("[") and _ip(pattern) is None:
            out.append(pattern + ".")
    return out

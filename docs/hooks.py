"""MkDocs hook of the documentation site (``mkdocs.yml``: ``hooks``).

The docstrings are written for both ``help()`` and Sphinx-style readers: cross-references
such as ``:func:`~agents.panel.panel``` reach the page as ``:func:`` followed by the code
span.  This hook drops the role (and the ``~`` that shortens a dotted name to its last
part), so the page shows the name as code.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj):(<code>)(~?)([\w.]+)")


def _shown(match: re.Match) -> str:
    name = match.group(3)
    return match.group(1) + (name.rsplit(".", 1)[-1] if match.group(2) else name)


def on_page_content(html: str, **kwargs) -> str:
    """The page's HTML with the Sphinx roles removed from its code spans."""
    return ROLE.sub(_shown, html)

"""The code blocks of the project's markdown (``README.md``, the documentation site's pages)
and how their Python blocks run: in order, in one namespace per file, as a reader would."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: a fenced block at the start of a line: its language, then its text
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", flags=re.S | re.M)

#: an mkdocstrings directive (``::: rummy_env.envs.gin_rummy``): the page shows that object's docstring
DIRECTIVE = re.compile(r"^::: ([\w.]+)", flags=re.M)


def code_blocks(text: str, language: str = "python") -> list[str]:
    """The blocks of ``text`` fenced as ``language`` (```` ```python ````), in order."""
    return [body for lang, body in FENCE.findall(text) if lang == language]


def module_docstring(module: str) -> str:
    """The docstring of ``module`` (a dotted name under :data:`ROOT`), read without importing it."""
    path = ROOT.joinpath(*module.split("."))
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return ast.get_docstring(ast.parse(source.read_text())) or ""


def page_text(path: Path) -> str:
    """A site page as the reader sees it: its markdown, then the module docstrings its
    mkdocstrings directives render (the environment pages are generated from them)."""
    text = path.read_text()
    return "\n".join([text, *(module_docstring(m) for m in DIRECTIVE.findall(text) if "." in m or m.isidentifier())])


def run_python_blocks(text: str, filename: str) -> dict:
    """Execute every Python block of ``text`` in order in one namespace; return the namespace."""
    namespace: dict = {"__name__": "__docs__"}
    for block in code_blocks(text):
        exec(compile(block, filename, "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace

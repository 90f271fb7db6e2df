"""Every job command the README and the documentation site show parses as written: its
flags exist and their values are of the right kind (``python -m experiments.<job> ...``,
run with ``runpy`` up to the end of its argument parsing, nothing after)."""

from __future__ import annotations

import argparse
import re
import runpy
import shlex
import sys

import pytest

from tests.markdown_code import FENCE, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: a command in a fenced shell block (continuation lines joined) or in one inline code span
JOB = re.compile(r"(?:PYTHONPATH=(\S+) )?python -m (experiments(?:\.\w+)+)((?: [^#`|;&\n]*)?)")
INLINE = re.compile(r"(?<!`)`((?:[^`\n]|\n(?!\s*\n))*python -m experiments(?:[^`\n]|\n(?!\s*\n))*)`(?!`)")
#: arguments standing for the reader's own value, not literal text
PLACEHOLDER = re.compile(r"<[^>]*>|\$|\.\.\.|^[A-Z]+$")


def _commands() -> list[tuple[str, str | None, str, list[str]]]:
    found = []
    for page in PAGES:
        text = page.read_text()
        shell = [body for lang, body in FENCE.findall(text) if lang in ("bash", "sh", "")]
        # (line, whether a job named alone is a command: in a code block, not in a sentence's span)
        lines = [(line, True) for body in shell for line in re.sub(r"\\\n\s*", " ", body).splitlines()]
        prose = FENCE.sub("", text)
        lines += [(" ".join(span.split()), False) for span in INLINE.findall(prose)]  # a span may wrap
        indented = re.sub(r"\\\n\s*", " ", prose).splitlines()  # indented code blocks
        lines += [(line, True) for line in indented if line.startswith("    ")]
        for line, bare in lines:
            for m in JOB.finditer(line):
                args = shlex.split(m.group(3))
                if (args or bare) and m.group(2) != "experiments.dev" and not any(PLACEHOLDER.search(a) for a in args):
                    found.append((page.relative_to(ROOT).as_posix(), m.group(1), m.group(2), args))
    return found


COMMANDS = _commands()


class _Parsed(Exception):
    """Raised once a job's arguments parsed: the test stops the job there."""


def test_the_pages_show_the_jobs_commands():
    jobs = {job for _, _, job, _ in COMMANDS}
    assert {"experiments.tournament", "experiments.evaluate", "experiments.exploit", "experiments.selfplay"} <= jobs
    assert len(COMMANDS) > 150


# runpy runs a job's module again as __main__ after earlier tests imported it, and says so
@pytest.mark.filterwarnings("ignore:.*found in sys.modules after import of package:RuntimeWarning")
@pytest.mark.parametrize(
    ("page", "path", "job", "args"), COMMANDS, ids=[f"{c[0]}:{c[2]} {' '.join(c[3])}"[:90] for c in COMMANDS]
)
def test_a_documented_command_parses(page, path, job, args, monkeypatch, capsys):
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, *a, **k):
        parse(self, *a, **k)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    for folder in (path or "").split(":"):
        if folder:
            monkeypatch.syspath_prepend(str(ROOT / folder))
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", [job, *args])
    with pytest.raises(_Parsed):
        try:
            runpy.run_module(job, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            if exc.code == 0 and "--help" in args:
                raise _Parsed from exc
            pytest.fail(f"{page}: python -m {job} {shlex.join(args)} exits {exc.code}: {capsys.readouterr().err}")

"""The documentation site (``mkdocs.yml``, ``docs/``): every page of its navigation exists,
and every Python block on its pages runs as written (in order, one namespace per page), as
the README's do (``tests/test_readme.py``).  ``mkdocs build --strict`` (CI, the ``docs``
extra) checks the links and the rendering."""

import re

import pytest

from tests.markdown_code import ROOT, code_blocks, page_text, run_python_blocks

DOCS = ROOT / "docs"
MKDOCS = (ROOT / "mkdocs.yml").read_text()
NAV = re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)\s*$", MKDOCS.split("\nnav:", 1)[1], flags=re.M)
# the committed runs' folders (docs/results/<run>/README.md) are data with notes, not pages
PAGES = sorted({*NAV, *(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if p.parent.parent != DOCS / "results")})


def test_the_navigation_lists_every_page_and_only_pages_that_exist():
    assert {"index.md", "install.md", "results.md", "changelog.md", "envs/gin_rummy.md"} <= set(NAV)
    for page in NAV:
        assert (DOCS / page).is_file(), page
    assert sorted(set(NAV)) == PAGES, "a page not in mkdocs.yml's nav (or the nav names a missing page)"


CODE_PAGES = [p for p in PAGES if code_blocks(page_text(DOCS / p))]


def test_the_pages_with_python_blocks_are_found():
    # an empty parametrization is skipped, not failed: a fence reader that finds no block
    # would leave test_python_blocks_run with nothing to run and the suite green
    assert {"index.md", "install.md", "agents.md", "vector.md", "envs/index.md"} <= set(CODE_PAGES)


@pytest.mark.parametrize("page", CODE_PAGES)
def test_python_blocks_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the pages name files by their path in the repository
    run_python_blocks(page_text(DOCS / page), f"docs/{page}")


def test_environment_pages_are_generated_from_the_module_docstrings():
    for variant in ("rummy", "gin_rummy", "crazy_rummy", "rummikub"):
        text = (DOCS / "envs" / f"{variant}.md").read_text()
        assert f"::: rummy_env.envs.{variant}\n" in text
        assert "## Action Space" in page_text(DOCS / "envs" / f"{variant}.md")


def test_the_table_pictures_are_the_render_goldens():
    for variant in ("rummy", "gin_rummy", "crazy_rummy", "rummikub"):
        golden = ROOT / "tests" / "render" / "golden" / f"{variant}.png"
        assert (DOCS / "images" / f"table_{variant}.png").read_bytes() == golden.read_bytes(), variant


def test_the_changelog_page_includes_the_changelog():
    assert (DOCS / "changelog.md").read_text().strip() == '--8<-- "CHANGELOG.md"'
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")

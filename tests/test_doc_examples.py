"""Every Python example of the README and of ``docs/`` runs: a block of ``>>>`` lines is a doctest (its output is
checked), any other ``python`` block is run as a script from the repository's root. An example that no longer
runs — an import from the wrong module, a renamed argument — fails here, named by its file and line."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _examples() -> list[tuple[str, int, str]]:
    """(page, line, code) of every ```python block."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            found.append((str(page.relative_to(REPO)), text.count("\n", 0, match.start()) + 1, match.group(1)))
    return found


EXAMPLES = _examples()


def test_the_docs_have_examples():
    assert any(page == "README.md" for page, _, _ in EXAMPLES)


@pytest.mark.parametrize("page,line,code", EXAMPLES, ids=[f"{p}:{n}" for p, n, _ in EXAMPLES])
def test_the_example_runs(page, line, code, monkeypatch):
    monkeypatch.chdir(REPO)
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, {}, f"{page}:{line}", page, line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=_collect(failures := []))
        assert not runner.failures, f"{page}, the example at line {line}:\n" + "".join(failures)
    else:
        exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__doc_example__"})  # noqa: S102


def test_the_plain_list_functions_examples_run():
    """The docstrings of the front door's functions hold examples too."""
    from mtdiag.pipeline import from_lists

    result = doctest.testmod(from_lists, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and not result.failed


def _collect(into: list):
    return into.append


"""How far a session's inputs travel, measured as the code runs: the functions of ``mtdiag`` that receive the user's
tags (from a click on the Segments page to the Slice finder) and the error-weighting scheme (chosen in the sidebar;
given as ``--error-weights`` on the command line) — as an argument or inside one (a report, a set, the session's
``Current``, a dict of options), followed by identity, one level down.

A *hop* is a function that receives the input, a *file* a module holding such functions. The walk of
``farm-studio`` reads the same from the code's tokens; this one runs it (``sys.setprofile``, calls into ``mtdiag``
only), so a route through a shared report counts every function that is handed that report.

Scenarios (AppTest, the sample set the dashboard opens on):

- ``tags``: select two rows of the Segments page's queue, tag them, then open the Slice finder;
- ``weights-sidebar``: upload an MQM error file to the sample set, then choose the ``esa`` scheme (the ESA scheme
  object is followed, and the choice as the sidebar first carried it, ``("esa",)``);
- ``weights-cli``: ``mtdiag triage --testset tests/data/dev/ted/zh-en --error-weights esa --top 1 --metrics chrf``.

Run: ``python benchmarks/walk_inputs.py [--scenario tags] [--list]`` (in another checkout:
``PYTHONPATH=/that/checkout python benchmarks/walk_inputs.py``).
"""

from __future__ import annotations

import argparse
import sys
import threading
import types
import weakref
from collections import defaultdict
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
CARRIERS = ("tags", "evalset", "report", "current", "weights", "error_weights", "data")


def carries(value, is_input, depth: int = 2) -> bool:
    """Whether ``value`` is the input (``is_input``) or holds it: an attribute of :data:`CARRIERS`, a dict's value
    or a short tuple's item, ``depth`` levels down (pandas objects are data, never carriers)."""
    if is_input(value):
        return True
    if depth == 0 or value is None or isinstance(value, (pd.DataFrame, pd.Series, str, bytes, int, float,
                                                          types.ModuleType)):
        return False
    if isinstance(value, dict):
        return any(carries(v, is_input, depth - 1) for v in list(value.values())[:50])
    if isinstance(value, (tuple, list)) and len(value) <= 20:
        return any(carries(v, is_input, depth - 1) for v in value)
    for name in CARRIERS:
        try:
            inner = object.__getattribute__(value, name) if not isinstance(value, type) else None
        except Exception:  # noqa: BLE001 - a property that fails or an object without it: no carrier
            continue
        if isinstance(inner, weakref.ref):  # the session's Current, held weakly
            inner = inner()
        elif callable(inner):  # a method or a module's function: never called from here
            inner = None
        if inner is not None and carries(inner, is_input, depth - 1):
            return True
    return False


class Walk:
    """Follows the input (``is_input``: a test of a value) through every call into mtdiag, in every thread."""

    def __init__(self, is_input):
        self.is_input = is_input
        self.hops: dict[str, set[str]] = defaultdict(set)

    def __call__(self, frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if "/mtdiag/" not in code.co_filename:
            return
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        if any(carries(frame.f_locals.get(name), self.is_input) for name in names):
            where = code.co_filename.split("/mtdiag/", 1)[1]
            self.hops[where].add(code.co_qualname)

    def core(self) -> dict[str, set[str]]:
        """The hops below the command line and the dashboard (``cli/`` and ``ui/`` left out): the route through
        the package's own layers."""
        return {where: names for where, names in self.hops.items() if not where.startswith(("cli/", "ui/"))}

    def run(self, action) -> "Walk":
        threading.setprofile(self)  # AppTest runs the script in a thread of its own
        sys.setprofile(self)
        try:
            action()
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        return self


def _app():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=300)
    at.run()
    return at


def _visit(at, name: str):
    from mtdiag.ui import navigation

    script = navigation.layout(name)
    if script is not None:
        return at.switch_page(str(script.relative_to(REPO)))
    at._page_hash = next(k for k, p in at._registered_pages.items() if p.get("url_pathname") == name)
    return at


def tags() -> Walk:
    """Tag two rows of the queue, then open the Slice finder: the tag set the click stored is followed."""
    at = _app()
    _visit(at, "segments").run()
    at.session_state["seg_table"] = {"selection": {"rows": [0, 1], "columns": [], "cells": []}}
    at.run()
    at.text_input(key="seg_table_tag_name").set_value("check")

    def is_tags(value) -> bool:
        return (isinstance(value, pd.DataFrame) and list(value.columns) == ["seg", "system", "tag"]
                and "check" in set(value["tag"]))

    def click_then_finder():
        at.button(key="seg_table_tag_add").click().run()
        _visit(at, "slices").run()
        assert not at.exception, [e.value for e in at.exception]

    return Walk(is_tags).run(click_then_finder)


MQM = ("system\tseg_id\trater\ttarget\tcategory\tseverity\n"
       "UEdin\t1\tr1\tx\tSource issue\tMajor\nUEdin\t2\tr1\t<v>x</v>\tStyle/Awkward\tMinor\n")


def weights_sidebar() -> Walk:
    """Upload an error file to the sample set, then choose ``esa``: the ESA scheme (and the choice as a tuple)."""
    from mtdiag.io import ERROR_WEIGHT_SCHEMES

    at = _app()
    at.file_uploader(key="up_annotations").set_value(("mqm.errors.tsv", MQM.encode(), "text/tab-separated-values"))
    at.run()
    esa = ERROR_WEIGHT_SCHEMES["esa"]
    walk = Walk(lambda value: value is esa or (isinstance(value, tuple) and value == ("esa",)))
    return walk.run(lambda: (at.selectbox(key="up_error_weights").set_value("esa").run(), _visit(at, "human").run()))


def weights_cli() -> Walk:
    """``mtdiag triage … --error-weights esa``: the ESA scheme from the flag on."""
    from mtdiag import cli
    from mtdiag.io import ERROR_WEIGHT_SCHEMES

    esa = ERROR_WEIGHT_SCHEMES["esa"]
    walk = Walk(lambda value: value is esa or (isinstance(value, str) and value == "esa"))
    argv = ["triage", "--testset", str(REPO / "tests" / "data" / "dev" / "ted" / "zh-en"), "--error-weights", "esa",
            "--top", "1", "--metrics", "chrf", "--format", "json"]
    return walk.run(lambda: cli.main(argv))


SCENARIOS = {"tags": tags, "weights-sidebar": weights_sidebar, "weights-cli": weights_cli}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=list(SCENARIOS), action="append")
    parser.add_argument("--list", action="store_true", help="list every function the input reached")
    args = parser.parse_args()
    for name in args.scenario or list(SCENARIOS):
        walk = SCENARIOS[name]()
        hops, core = walk.hops, walk.core()
        print(f"{name}: {sum(len(f) for f in hops.values())} hops over {len(hops)} files; below cli/ and ui/: "
              f"{sum(len(f) for f in core.values())} hops over {len(core)} files")
        if args.list:
            for where in sorted(hops):
                print(f"  {where}: {', '.join(sorted(hops[where]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

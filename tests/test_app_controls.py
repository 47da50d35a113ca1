"""Issue 23, the stale-control class: every choice control of every page follows the data it is shown with.

A control is *stale* when the browser shows one value and the page computes with another (the Baseline box showed
a sample system after an upload while the ▲/▼/= marks were computed against another system). AppTest reads the
script's value from the session state, so these tests also model the browser: a widget shows the value Streamlit
sent with it (``set_value``: ``raw_value(s)``), else the value it showed before (the user's last choice), else
its ``default``. After every run, on every page, before and after switching to another sample folder and to an
upload, what the browser shows must be what the page uses, and a value among the control's options.
"""

from __future__ import annotations

import ast

import pyarrow as pa
import pytest

from tests.test_app import (  # noqa: F401  (the autouse fixtures of the dashboard tests apply here too)
    DE, PAGES, REPO, SAMPLE, clear_caches, de_lines, lines_file, no_data_argument, start, table_with, visit)

UPLOADED = {"alpha": "newstest2021.en-de.Online-W.txt", "beta": "newstest2021.en-de.UEdin.txt",
            "gamma": "newstest2021.en-de.Facebook-AI.txt"}  # system names no sample set has


def choices(at) -> dict:
    """The main area's choice controls by key: select boxes, multiselects, radios, segmented controls."""
    found = [*at.main.selectbox, *at.main.multiselect, *at.main.radio, *at.main.segmented_control]
    return {w.key: w for w in found if w.key}


def used(widget) -> list[str]:
    """The labels of the value the script uses."""
    if widget.type == "multiselect":
        return [widget.options[i] for i in widget.indices]
    if widget.type == "button_group":
        return list(widget.formatted_values)
    return [] if widget.index is None else [widget.options[widget.index]]


def sent(widget) -> list[str] | None:
    """The labels Streamlit told the browser to show with this run (None: it keeps its own)."""
    proto = widget.proto
    if not proto.set_value:
        return None
    if widget.type in ("multiselect", "button_group"):
        return list(proto.raw_values)
    return [proto.raw_value]


def defaults(widget) -> list[str]:
    """What a browser shows for a widget it has never drawn (the element's default)."""
    default = widget.proto.default
    indices = list(default) if widget.type in ("multiselect", "button_group") else [default]
    return [widget.options[i] for i in indices]


class Browser:
    """What the browser shows in each choice control, run after run (see the module docstring)."""

    def __init__(self) -> None:
        self.shown: dict[str, list[str]] = {}

    def after_run(self, at) -> dict:
        controls = choices(at)
        shown = {}
        for key, widget in controls.items():
            told = sent(widget)
            shown[key] = told if told is not None else self.shown.get(key, defaults(widget))
        self.shown = shown  # a widget that is not drawn is forgotten (unmounted)
        return controls

    def pick(self, widget, labels: list[str]) -> None:
        self.shown[widget.key] = labels


def assert_in_step(at, browser: Browser, when: str) -> dict:
    assert not at.exception, (when, [e.value for e in at.exception])
    controls = browser.after_run(at)
    for key, widget in controls.items():
        assert browser.shown[key] == used(widget), f"{when}: {key} shows {browser.shown[key]}, uses {used(widget)}"
        assert set(used(widget)) <= set(widget.options), f"{when}: {key} = {used(widget)} not among its options"
    return controls


def run(at, browser: Browser, when: str) -> dict:
    at.run()
    return assert_in_step(at, browser, when)


def choose_another(browser: Browser, widget) -> bool:
    """Set ``widget`` to a choice other than the current one, as a user would (by its labels: AppTest sends them
    as the browser does); False when there is no other."""
    options, current = widget.options, used(widget)
    if widget.type == "multiselect":
        labels = [options[-1]] if options and current != [options[-1]] else options[:1]
        if not labels or labels == current:
            return False
        widget.set_value(labels)
    else:
        others = [o for o in options if [o] != current]
        if not others:
            return False
        labels = [others[-1]]
        widget.set_value(labels[0])
    browser.pick(widget, labels)
    return True


def set_every_choice(at, browser: Browser, page: str) -> None:
    """Change every choice control of the page once (controls that appear on the way included)."""
    done: set[str] = set()
    while True:
        controls = choices(at)
        todo = [key for key in controls if key not in done]
        if not todo:
            return
        key = todo[0]
        done.add(key)
        if choose_another(browser, controls[key]):
            run(at, browser, f"{page}: {key} changed")


def upload(at, browser: Browser) -> None:
    """Upload mode: source, references A and C, three systems named as no sample set names them, a glossary."""
    at.radio(key="data_mode").set_value("Upload files")
    run(at, browser, "upload mode, nothing uploaded yet (the data loaded before stays)")
    at.file_uploader(key="up_src").set_value(lines_file("src.txt", de_lines("src.txt")))
    at.file_uploader(key="up_refs").set_value([lines_file("ref.A.txt", de_lines("ref.A.txt")),
                                               lines_file("ref.C.txt", de_lines("ref.C.txt"))])
    at.file_uploader(key="up_hyps").set_value([lines_file(f"{name}.txt", de_lines(file))
                                               for name, file in UPLOADED.items()])
    glossary = DE / "glossary.tico19.facebook.en-de.tsv"
    at.file_uploader(key="up_terms").set_value((glossary.name, glossary.read_bytes(), "text/plain"))


def baseline_marked(at) -> set[str]:
    """The systems the Overview's corpus table marks with = (the baseline its ▲/▼ were computed against), read from
    the styled cells the browser draws."""
    for frame in at.dataframe:
        if {"otem", "bleu"} <= set(frame.value.columns):
            cells = pa.ipc.open_stream(frame.proto.arrow_data.styler.display_values).read_all().to_pandas()
            return {system for system, row in cells.iterrows() if any(str(v).endswith(" =") for v in row)}
    raise AssertionError("no corpus table")


def check_marks(at, browser: Browser, page: str) -> None:
    if page == "overview":
        assert baseline_marked(at) == set(browser.shown["ov_baseline"]) - {"(none)"}


@pytest.mark.parametrize("page", PAGES)
def test_every_choice_follows_the_data_it_is_shown_with(page):
    at, browser = start(), Browser()
    assert_in_step(at, browser, "the first page")
    visit(at, page)
    run(at, browser, f"{page} on wmt21.en-de")
    set_every_choice(at, browser, page)
    check_marks(at, browser, page)
    at.selectbox(key="data_set").set_value(str(SAMPLE / "wmt21.en-ja"))
    run(at, browser, f"{page} after switching to wmt21.en-ja")
    assert not at.error, [e.value for e in at.error]
    check_marks(at, browser, page)
    set_every_choice(at, browser, page)
    upload(at, browser)
    controls = run(at, browser, f"{page} after the upload")
    assert not at.error, [e.value for e in at.error]
    check_marks(at, browser, page)
    if page == "overview":
        assert browser.shown["ov_baseline"] == ["alpha"]  # the new data's default, not a sample system
    for key in ("cmp_a", "cmp_b", "bk_a", "bk_b", "ng_system", "ou_system", "wn_system", "tm_system"):
        if key in controls:
            assert set(used(controls[key])) <= set(UPLOADED), (key, used(controls[key]))


def test_no_page_draws_a_choice_without_following_the_data():
    """Every select box, multiselect, radio and segmented control of the pages goes through the widgets that follow
    the data (:func:`mtdiag.ui.widgets.follow`); only those wrappers call Streamlit's."""
    direct = {"selectbox", "multiselect", "radio", "segmented_control"}
    offenders = []
    ui = REPO / "mtdiag" / "ui"
    for path in [*sorted((ui / "layouts").glob("*.py")), ui / "generic.py", ui / "choices.py",
                 *sorted((ui / "widgets").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wrappers = {node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                    and node.name in ("select", "multiselect", "segmented", "radio")}
        inside = {id(n) for w in wrappers for n in ast.walk(w)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in direct
                    and id(node) not in inside and not (isinstance(node.func.value, ast.Name)
                                                        and node.func.value.id == "widgets")):
                offenders.append(f"{path.name}:{node.lineno} {node.func.attr}")
    assert offenders == []

"""User text stays text on every page (issue 39, finding 5; issue 11 before it), under AppTest: a test set whose
system, reference and document names are Markdown links and images is uploaded, and every page is drawn — the
N-grams page in both of its modes. Every string the page sends to the browser is read from the elements' protos:
wherever Streamlit renders Markdown (bodies of markdown, captions, headings and banners; labels, help texts and the
options of radio buttons and segmented controls; tabs, expanders, progress texts) a name must arrive escaped
(:func:`mtdiag.core.highlight.escape_markdown`); it may arrive as written only where Streamlit shows plain text (select-box
options, tables, code, HTML built by :mod:`mtdiag.core.highlight`, plotly figures).

Before, the N-grams page's "two systems" caption rendered a live link and an image, and its table toggle read
"only login" (the browser test ``tests/e2e/test_injection.py`` covers the same in Chromium)."""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Sequence

import pytest
from google.protobuf.message import Message

from mtdiag import views
from mtdiag.core.highlight import escape_markdown
from tests.test_app import de_lines, shown, start, visit
from tests.test_app import clear_caches, no_data_argument  # noqa: F401 - the dashboard tests' autouse fixtures

HOST = "http://127.0.0.1:9"
IMAGE = f"![x]({HOST}/ngrams.png)"
LINK = f"[login]({HOST}/phish)"
REFERENCE = f"[ref]({HOST}/ref)"
DOCUMENT = f"![doc]({HOST}/doc.png)"
RAW = ("](http",)  # what a payload holds as written; escaped it is "\](http\:"

PLAIN = {  # (element, field): Streamlit shows these as plain text, never as Markdown
    ("Dataframe", "column_order"), ("Selectbox", "options"), ("Selectbox", "default"), ("Selectbox", "raw_value"),
    ("MultiSelect", "options"), ("MultiSelect", "default"), ("MultiSelect", "raw_values"),
    ("StringArray", "data"), ("Html", "body"), ("Code", "code_text"), ("PlotlyChart", "spec"),
    ("PlotlyChart", "figure"), ("Arrow", "columns"), ("Arrow", "data"), ("Arrow", "styler"), ("TextInput", "value"),
    ("TextInput", "default"), ("TextInput", "placeholder"), ("DownloadButton", "url"), ("PageLink", "page"),
    ("PageLink", "query_string"), ("ButtonGroup", "value"), ("ButtonGroup", "default"), ("Radio", "value"),
}


def hostile_testset() -> tuple[str, bytes, str]:
    """The sample wmt21.en-de set as one TSV whose two systems, reference and document names are payloads."""
    src, ref = de_lines("src.txt"), de_lines("ref.A.txt")
    a, b = de_lines("newstest2021.en-de.UEdin.txt"), de_lines("newstest2021.en-de.Online-W.txt")
    out = io.StringIO()
    out.write(f"doc\tsrc\tref.{REFERENCE}\t{IMAGE}\t{LINK}\n")
    for i, row in enumerate(zip(src, ref, a, b)):
        out.write(("talk" if i < 60 else DOCUMENT) + "\t" + "\t".join(row) + "\n")
    return "hostile.tsv", out.getvalue().encode("utf-8"), "text/tab-separated-values"


def _strings(message: Message, path: str):
    """(element.field, text) of every string field of a proto message, nested ones too."""
    for descriptor, value in message.ListFields():
        where = (type(message).__name__, descriptor.name)
        values = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
        for item in values:
            if isinstance(item, Message):
                yield from _strings(item, f"{path}.{descriptor.name}")
            elif where == ("Dataframe", "columns"):  # the column settings, JSON: only their help renders Markdown
                for name, config in json.loads(item or "{}").items():
                    yield ("column", "help"), f"{path}.columns[{name!r}].help", str(config.get("help", ""))
            elif isinstance(item, str):
                yield where, f"{path}.{descriptor.name}", item


def markup_sent(at) -> list[str]:
    """Every place the run sent a payload as written where the browser renders Markdown."""
    found = []
    for node in at._tree:
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        for where, path, text in _strings(proto, type(proto).__name__):
            if where not in PLAIN and any(raw in text for raw in RAW):
                found.append(f"{getattr(node, 'type', '?')} {path}: {text[:160]!r}")
    return found


@pytest.fixture
def hostile():
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_testset").set_value(hostile_testset()).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any("hostile.tsv" in shown(c.value) for c in at.sidebar.caption)
    return at


def raw_options(widget) -> list:
    """The values of a radio group's or segmented control's options (AppTest sees only their formatted texts): the
    keys of the dict whose ``__getitem__`` formats them (unwrapping :func:`functools.partial`), else the texts."""
    fn = widget.format_func
    while isinstance(fn, functools.partial):
        fn = next((a for a in fn.args if callable(a)), fn.func)
    mapping = getattr(fn, "__self__", None)
    if isinstance(mapping, dict):
        return [v for v in mapping if str(widget.format_func(v)) in widget.options]
    return list(widget.options)


def modes(at) -> list[tuple[str, str]]:
    """(kind, key) of every keyed radio group and segmented control of the page's main area: the page's modes."""
    return [(kind, w.key) for kind in ("radio", "segmented_control") for w in getattr(at.main, kind) if w.key]


@pytest.mark.parametrize("page", list(views.REGISTRY))
def test_names_reach_every_page_escaped(hostile, page):
    """Each page, and each mode of it (every option of its radio groups and segmented controls, one at a time)."""
    at = hostile
    visit(at, page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert markup_sent(at) == []
    sent = "\n".join(text for node in at._tree if getattr(node, "proto", None) is not None
                     for _, _, text in _strings(node.proto, ""))
    assert escape_markdown(IMAGE) in sent and escape_markdown(LINK) in sent  # the names did reach the page
    for kind, key in modes(at):
        if key not in {k for _, k in modes(at)}:
            continue  # another mode took this control away
        for value in raw_options(getattr(at, kind)(key=key)):
            if key not in {k for _, k in modes(at)}:
                break
            getattr(at, kind)(key=key).set_value(value).run()
            assert not at.exception, [e.value for e in at.exception]
            assert markup_sent(at) == [], (key, value)


def test_the_ngrams_page_comparing_two_systems_keeps_their_names_text(hostile):
    at = hostile
    visit(at, "ngrams").run()
    at.radio(key="ng_mode").set_value("system").run()
    assert not at.exception, [e.value for e in at.exception]
    caption = next(c.value for c in at.caption if "never does" in c.value)  # escaped: "n\\-grams"
    assert "never does" in caption and IMAGE not in caption and LINK not in caption
    assert markup_sent(at) == []
    at.segmented_control(key="ng_side").set_value("only_b").run()
    assert markup_sent(at) == []

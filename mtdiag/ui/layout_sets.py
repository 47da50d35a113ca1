"""A WMT release in mt-metrics-eval's layout in the sidebar (:mod:`mtdiag.io.mtme`): a year's folder on the server
(offered among the test sets) or an uploaded ``.zip``/``.tar.gz`` of one, then what to open of it — the year when
the tree holds several, the language pair, which human score is "human" (MQM first), the human outputs scored as
systems and the references kept. Every reader's result is cached (a folder by its files' sizes and times, an upload
by its bytes); every problem is returned as one message naming the file (and the line). On a release's data the
sidebar also asks whether the tool's slowest metrics are computed (:func:`scoring_choice`)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import streamlit as st

from mtdiag.core.errors import InputError
from mtdiag.io.archives import is_archive_name, open_tree
from mtdiag.io.mtme import Layout, LayoutChoice, find_layouts, is_layout_folder, load_mtme
from mtdiag.pipeline.inputs import Options, default_metrics
from mtdiag.ui import state

def _stamp(path: str) -> tuple:
    """Sizes and times of the files of a release's folders that the layout reads (a changed file reloads it)."""
    found = []
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [(folder, f, os.stat(os.path.join(folder, f)).st_size, os.stat(os.path.join(folder, f)).st_mtime_ns)
                  for f in sorted(files)]
    return tuple(found)


@st.cache_resource(show_spinner="Listing the release's files …", max_entries=4)
def _folder_layouts(path: str, files: tuple) -> list[Layout]:
    return find_layouts(open_tree(path, limits=state.session_limits()))


@st.cache_resource(show_spinner="Reading the archive's directory …", max_entries=2, ttl=state.REPORT_TTL_S)
def _upload_layouts(name: str, data: bytes) -> list[Layout]:
    return find_layouts(open_tree((name, data), limits=state.session_limits()))


@st.cache_resource(show_spinner="Reading the release (texts, human and metric scores) …", max_entries=4,
                   ttl=state.REPORT_TTL_S)
def _load(key: tuple, choice: LayoutChoice, origin: str, _layout: Layout) -> state.Dataset:
    """One language pair of a layout (``key`` identifies the tree and the year: its stamp or its bytes); its error
    rows as read, weighed by the session's scheme when the report is joined with them."""
    evalset = load_mtme(_layout, choice, limits=state.session_limits())
    return state.Dataset(evalset, evalset.content_hash(), origin, f"{_layout.name} {choice.lp}")


state.register_per_upload(_upload_layouts.clear)
state.register_per_upload(_load.clear)


def choice_widgets(layout: Layout, key: str) -> LayoutChoice:
    """What to open of ``layout`` (:class:`mtdiag.io.mtme.LayoutChoice`), as the user chooses it in widgets.

    The language pair, the human score type, the human outputs scored as systems and the references kept. The
    options are names from the files, shown as plain text (a select box does not read Markdown)."""
    sb = st.sidebar
    lp = sb.selectbox("Language pair", layout.language_pairs(), key=f"{key}_lp")
    types = layout.human_types(lp)
    human = sb.selectbox("Human scores", types, key=f"{key}_human",
                         help="Which of the release's human scores is 'human' for every page (MQM first when "
                              "present). Its seg scores are the human scores, its .sys.score is shown as published "
                              "and its .seg.rating spans are the human error spans.") if types else None
    include = sb.multiselect("Score human outputs as systems", layout.human_outputs(lp), key=f"{key}_include_{lp}",
                             help="Outputs named after a reference (another translation, or synthetic_ref) are left "
                                  "out of the systems, as WMT leaves them out; an included one is no reference.")
    references = [r for r in layout.pairs[lp].references if r not in include]
    kept = sb.multiselect("References", references, default=layout.default_references(lp, include),
                          key=f"{key}_refs_{lp}_{'_'.join(include)}",
                          help="The references the tool's metrics score against. A release's metric that used "
                               "another reference (its file name ends -refX) is left out, as WMT does.")
    return LayoutChoice(lp, human, tuple(kept), tuple(include))


def _year(layouts: list[Layout], key: str, where: str) -> Layout:
    if not layouts:
        raise InputError(where, "holds no year of WMT's mt-metrics-eval layout (sources/, system-outputs/, …)")
    if len(layouts) == 1:
        return layouts[0]
    names = {layout.prefix: layout for layout in layouts}
    chosen = st.sidebar.selectbox("Year", list(names), key=f"{key}_year", format_func=lambda p: names[p].name)
    return names[chosen]


def folder_dataset(path: str) -> tuple[state.Dataset | None, list[str]]:
    """The layout widgets of a release's folder on the server and the data they choose.

    None and the problem when it cannot be read."""
    try:
        files = _stamp(path)
        layout = _year(_folder_layouts(path, files), "mtme_folder", path)
        choice = choice_widgets(layout, "mtme_folder")
        return _load((path, files, layout.prefix), choice, "folder", layout), []
    except InputError as error:
        return None, [str(error)]


def upload_dataset(name: str, data: bytes) -> tuple[state.Dataset | None, list[str]]:
    """The layout widgets of an uploaded ``.zip``/``.tar.gz`` release and the data they choose."""
    try:
        layout = _year(_upload_layouts(name, data), "mtme_upload", name)
        choice = choice_widgets(layout, "mtme_upload")
        return _load((name, data, layout.prefix), choice, "upload", layout), []
    except InputError as error:
        return None, [str(error)]


def is_release(path: str) -> bool:
    """Whether a path the sidebar offers is a release's folder (:func:`mtdiag.io.mtme.is_layout_folder`)."""
    return is_layout_folder(Path(path))


def is_release_upload(name: str) -> bool:
    """Whether an uploaded test-set file is an archive of a release."""
    return is_archive_name(name)


SLOW = ("ter", "predicted_mqm")
"""The tool's metrics a release's data computes on request above :data:`SLOW_PAIRS`: measured on WMT23 (CPU seconds,
loaded machine) TER 8.0 and predicted MQM 4.8–6.9 for en-de (6,684 pairs of long paragraphs) and zh-en (29,640 pairs),
against 3.3–5.7 for BLEU, chrF, OTEM/UTEM, WAFT/NEVA and the length ratio together — a release brings its own
metrics, and the Overview should open in seconds."""
SLOW_PAIRS = 5_000


def scoring_choice(data: state.Dataset, options: Options) -> Options:
    """For a WMT release's data (a set with published system scores): whether the slow metrics are computed too.

    The tool's slow metrics (:data:`SLOW`) — on by default up to :data:`SLOW_PAIRS` (system, segment) pairs — as
    ``options.metrics``; other data, and options that name their metrics, unchanged."""
    evalset = data.evalset
    if options.metrics is not None or not (evalset.human_systems is not None
                                           or any(spec.published for spec in evalset.imported)):
        return options
    pairs = evalset.n_segments * len(evalset.systems)
    slow = st.sidebar.toggle("Also score with TER and predicted MQM", value=pairs <= SLOW_PAIRS,
                             key=f"mtme_slow_{data.data_key[:16]}",
                             help=f"This release's data has {pairs:,} (system, segment) pairs: the tool's TER and "
                                  "predicted MQM take longer than the rest of its metrics together (a WMT23 zh-en: "
                                  "about 15 s of CPU). Off, the Overview opens sooner with the release's own metrics "
                                  "and the tool's BLEU, chrF, OTEM/UTEM, WAFT/NEVA; on, the Metrics-vs-humans page "
                                  "puts TER and predicted MQM on trial too.")
    if slow:
        return options
    return replace(options, metrics=tuple(m for m in default_metrics(evalset) if m not in SLOW))

"""The data a user uploads: a whole test set file (WMT XML, SGML, TSV/CSV, JSONL, any ``.gz``; read by
:func:`mtdiag.io.load_testset`), or a source, one or more references, one or more system outputs (several at once;
each system named after its file, editable), optional terms/glossary and human scores; system outputs added to a
test-set folder; and, in both modes, **MQM/ESA error annotations** and Pearmut's annotation logs
(:func:`mtdiag.io.with_error_annotations`: their rows kept as read, weighed by the scheme the session chooses,
:func:`error_weights_widgets` — WMT, ESA-style or the user's own weights file —, when the report is joined with them:
:func:`mtdiag.ui.reports.report_for`),
**error spans a metric predicted** (xCOMET JSON/JSONL: :func:`mtdiag.io.with_metric_spans`) and **metric scores
computed elsewhere** (COMET, MetricX, …: :func:`mtdiag.io.with_metric_scores`).

Every reader's result is cached by the files' bytes and goes with the reports
(:func:`mtdiag.ui.state.register_per_upload`); every problem is returned as a message naming the file and the line (:class:`mtdiag.core.errors.InputError`).
Human files (human scores, annotations) are read apart from the texts and join the loaded set: they change the
data's key, not its scoring key (:attr:`mtdiag.ui.state.Dataset.scoring_key`), so nothing is scored again."""

from __future__ import annotations

import threading
from dataclasses import replace

import streamlit as st

from mtdiag.core import highlight
from mtdiag import io as mio
from mtdiag.core.errors import InputError
from mtdiag.io.files import empty_output_warning, read_text_file
from mtdiag.io.testsets import TESTSET_SUFFIXES
from mtdiag.ui import layout_sets, state


TEXT_TYPES = ["txt"]
TABLE_TYPES = ["tsv", "txt"]
TESTSET_TYPES = [suffix.lstrip(".") for suffix in TESTSET_SUFFIXES] + ["gz", "zip", "tgz", "tar"]  # gz: the inner name
ANNOTATION_TYPES = ["tsv", "jsonl", "json"]
METRIC_SPAN_TYPES = ["json", "jsonl"]
SCORE_TYPES = ["tsv", "csv", "jsonl"]
WEIGHTS_KEY, WEIGHTS_FILE_KEY = "up_error_weights", "up_error_weights_file"
OWN_WEIGHTS = "file"
WEIGHT_CHOICES = {**{name: f"{name}: {scheme.about}" for name, scheme in mio.ERROR_WEIGHT_SCHEMES.items()},
                  OWN_WEIGHTS: "my own weights file (severity, category, weight)"}


def chosen_error_weights() -> tuple["mio.ErrorWeights", str | None]:
    """(the weighting scheme of human error rows the session chose, a problem or None).

    A scheme by name, or the user's weights file (read once per file, :func:`_weights_file`; a bad one is one line
    naming the file and the line, and the default scheme is used meanwhile). Read from the session: the widgets are
    drawn after the data is loaded, their values are known before."""
    choice = st.session_state.get(WEIGHTS_KEY, mio.DEFAULT_ERROR_WEIGHTS.name)
    uploaded = st.session_state.get(WEIGHTS_FILE_KEY)
    if choice == OWN_WEIGHTS and uploaded is not None:
        try:
            return _weights_file(uploaded.name, uploaded.getvalue()), None
        except InputError as error:
            return mio.DEFAULT_ERROR_WEIGHTS, (f"{error}  \nThe human error rows are weighed by the "
                                               f"{mio.DEFAULT_ERROR_WEIGHTS.name} scheme meanwhile.")
    return mio.ERROR_WEIGHT_SCHEMES.get(choice, mio.DEFAULT_ERROR_WEIGHTS), None


@st.cache_resource(show_spinner=False, max_entries=8, ttl=state.REPORT_TTL_S)
def _weights_file(name: str, data: bytes) -> "mio.ErrorWeights":
    """A user's weights file, read once per content (:func:`mtdiag.io.read_error_weights`)."""
    return mio.read_error_weights((name, data), limits=state.session_limits())


def error_weights_widgets() -> None:
    """How human error rows become segment scores: a scheme, or the user's own weights file (docs/inputs.md)."""
    choice = st.selectbox("Error weights (MQM/ESA rows → human scores)", list(WEIGHT_CHOICES),
                          format_func=WEIGHT_CHOICES.get, key=WEIGHTS_KEY,
                          help="How error rows (uploaded annotations, a folder's mqm.errors.tsv without mqm.seg.tsv) "
                               "become human segment scores. wmt: the weights of Google's WMT MQM releases (major 5, "
                               "minor 1, minor punctuation 0.1, non-translation 25, source issues and creative "
                               "reinterpretations 0); esa: severity only; or a TSV of rules severity, category, weight "
                               "(* for any; the most specific rule applies). Every rule and its source: docs/inputs.md.")
    if choice == OWN_WEIGHTS:
        st.file_uploader("Weights file (TSV: severity, category, weight)", type=TABLE_TYPES + ["csv", "jsonl"],
                         key=WEIGHTS_FILE_KEY)


@st.cache_resource(show_spinner=False, max_entries=8, ttl=state.REPORT_TTL_S)
def _with_extra_systems(base_key: str, extras: tuple[tuple[str, str, bytes], ...], _base: state.Dataset) -> state.Dataset:
    """The base set with uploaded system outputs added (each checked against the set's segment count)."""
    evalset = _base.evalset
    hyps = evalset.hyps.copy()
    warnings = list(evalset.warnings)
    for name, file_name, data in extras:
        name = mio.clean_name(name)
        if not name:
            raise InputError(file_name, "the system name is empty")
        if name in hyps.columns:
            raise InputError(file_name, f"system name {name!r} is already used in {_base.label}; rename it")
        if name in evalset.ref_names:
            raise InputError(file_name, f"system name {name!r} is also the name of a reference; rename it")
        lines = read_text_file(name, "system", (file_name, data), file_name, state.session_limits(), warnings).lines
        if len(lines) != evalset.n_segments:
            hint = " (an extra blank line at the end?)" if len(lines) == evalset.n_segments + 1 and not lines[-1].strip() else ""
            raise InputError(file_name, f"has {len(lines)} line{'s' if len(lines) != 1 else ''} but the test set "
                                        f"{_base.label} has "
                                        f"{evalset.n_segments} segments{hint}")
        if not any(line.strip() for line in lines):
            warnings.append(empty_output_warning(file_name))
        hyps[name] = lines
    extended = replace(evalset.with_hyps(hyps), warnings=tuple(warnings))
    label = f"{_base.label} + {len(extras)} uploaded"
    return state.Dataset(extended, extended.content_hash(), "upload", label)  # holds uploaded data: never on disk


@st.cache_resource(show_spinner="Reading the uploaded files …", max_entries=4, ttl=state.REPORT_TTL_S)
def _load_upload(src: tuple | None, refs: tuple, hyps: tuple, terms: tuple | None, lang_pair: str | None
                 ) -> state.Dataset:
    """An EvalSet from uploaded text files; every argument is (name, file name, bytes) so the cache keys on
    content."""
    evalset = mio.load_files(
        src=(src[1], src[2]) if src else None,
        refs=[(name, (file_name, data)) for name, file_name, data in refs],
        hyps=[(name, (file_name, data)) for name, file_name, data in hyps],
        terms=(terms[1], terms[2]) if terms else None,
        name="upload",
        lang_pair=lang_pair,
        limits=state.session_limits(),
    )
    return state.Dataset(evalset, evalset.content_hash(), "upload", "uploaded files")


@st.cache_resource(show_spinner="Reading the human scores …", max_entries=4, ttl=state.REPORT_TTL_S)
def _with_human(base_key: str, human: tuple[str, bytes], _base: state.Dataset) -> state.Dataset:
    """The uploaded set with an uploaded human-score file joined (a score TSV, or an error file whose rows give the
    scores: :func:`mtdiag.io.with_human_file`): the texts are not read again, and the scoring key stays."""
    evalset = mio.with_human_file(_base.evalset, human, human[0], limits=state.session_limits())
    return state.Dataset(evalset, evalset.content_hash(), "upload", _base.label)


@st.cache_resource(show_spinner="Reading the test set file …", max_entries=4, ttl=state.REPORT_TTL_S)
def _load_testset_upload(file_name: str, data: bytes) -> state.Dataset:
    """A whole test set from one uploaded file (WMT XML, SGML, TSV/CSV, JSONL, any of them ``.gz``), refused before
    it is parsed when its bytes show a set over the session's memory budget (:func:`mtdiag.ui.state.
    testset_over_budget`: a 25 MB TSV was parsed to 362 MB before being refused)."""
    limits = state.session_limits()
    inflated, _ = mio.read_maybe_gzip((file_name, data), file_name, limits=limits)  # counted: bounded by the limits
    too_large = state.testset_over_budget(file_name, inflated)
    if too_large:
        raise InputError(file_name, too_large)
    del inflated
    evalset = mio.load_testset((file_name, data), limits=limits)
    return state.Dataset(evalset, evalset.content_hash(), "upload", file_name)


@st.cache_resource(show_spinner="Reading the annotations and scores …", max_entries=4, ttl=state.REPORT_TTL_S)
def _with_additions(base_key: str, annotations: tuple[str, bytes] | None, metric_spans: tuple[str, bytes] | None,
                    scores: tuple[str, bytes] | None, _base: state.Dataset) -> state.Dataset:
    """The base data with human error rows (MQM/ESA/Pearmut, as read: weighed by the session's scheme when the
    report is joined with them), metric error spans (xCOMET) and/or imported metric scores added."""
    evalset, added, limits = _base.evalset, [], state.session_limits()
    if annotations is not None:
        evalset = mio.with_error_annotations(evalset, annotations, limits=limits)
        added.append(annotations[0])
    if metric_spans is not None:
        evalset = mio.with_metric_spans(evalset, metric_spans, limits=limits)
        added.append(metric_spans[0])
    if scores is not None:
        evalset = mio.with_metric_scores(evalset, scores, limits=limits)
        added.append(scores[0])
    return state.Dataset(evalset, evalset.content_hash(), "upload", f"{_base.label} + {' + '.join(added)}")


state.register_per_upload(_with_extra_systems.clear)  # uploads go with their reports (mtdiag.ui.state, memory)
state.register_per_upload(_load_upload.clear)
state.register_per_upload(_with_human.clear)
state.register_per_upload(_weights_file.clear)
state.register_per_upload(_load_testset_upload.clear)
state.register_per_upload(_with_additions.clear)


def _file_tuple(uploaded, name: str | None = None) -> tuple[str, str, bytes]:
    return (name or uploaded.name, uploaded.name, uploaded.getvalue())


def _system_names(files, prefix: str) -> list[str]:
    """Editable system names, one text box per uploaded system file (default: from the file name)."""
    names = []
    if not files:
        return names
    with st.sidebar.expander("System names", expanded=False):
        for i, f in enumerate(files):
            names.append(st.text_input(highlight.escape_markdown(f.name), value=mio.system_name_from_file(f.name),
                                       key=f"{prefix}_name_{i}_{f.name}"))
    return names


def _guess_lang_pair(file_names: list[str]) -> str:
    """The language pair the uploaded file names carry (:func:`mtdiag.io.resolve_lang_pair`), or ``""``."""
    return mio.resolve_lang_pair(file_names=file_names) or ""


@st.cache_resource(show_spinner=False)
def _load_kernels() -> threading.Thread:
    """Once per server, when the upload form is first shown: load the compiled TER kernel in a background thread
    (:func:`mtdiag.pipeline.inputs.warm_up`) while the user picks the files, so that scoring the upload does
    not wait 1-3 s for numba. Not at the first page: the sample sets open from disk without it
    (:mod:`mtdiag.scoring.report_cache`), and a loading thread then took CPU from the browser drawing that page."""
    from mtdiag.pipeline.inputs import warm_up

    thread = threading.Thread(target=warm_up, name="mtdiag-load-kernels", daemon=True)
    thread.start()
    return thread


def _testset_upload(testset) -> tuple[state.Dataset | None, list[str]]:
    """One uploaded test-set file: a WMT release's archive (:mod:`mtdiag.ui.layout_sets`, which asks what to open of
    it), else a test set read whole (:func:`_parsed`)."""
    if layout_sets.is_release_upload(testset.name):
        return layout_sets.upload_dataset(testset.name, testset.getvalue())
    return _parsed("the test set file", lambda: _load_testset_upload(testset.name, testset.getvalue()))


def upload_widgets() -> tuple[state.Dataset | None, list[str]]:

    """The upload form; returns (the uploaded data set or None while incomplete, the problems found).

    A test set file, when given, is the whole data; else the text files make it."""
    _load_kernels()
    sb = st.sidebar
    testset = sb.file_uploader(
        "Test set file (WMT XML, SGML, TSV/CSV, JSONL; optionally .gz), or a WMT release (.zip, .tar.gz)",
        type=TESTSET_TYPES, key="up_testset",
        help="One file with the source, the references and the systems: WMT XML (<doc> with <src>, <ref "
             "translator=…>, <hyp system=…>), WMT SGML, or a table with named columns (source, ref…, one column "
             "per system, optional doc); or a .zip/.tar.gz of a year of WMT's mt-metrics-eval layout (wmt23/ with "
             "sources/, system-outputs/, human-scores/, metric-scores/ …): choose its language pair below. When "
             "given, the text-file uploads below are not used.")
    if testset is not None:
        return _testset_upload(testset)
    src = sb.file_uploader("Source (optional)", type=TEXT_TYPES, key="up_src")
    refs = sb.file_uploader("References (optional: without one, the reference-free checks and consensus)",
                            type=TEXT_TYPES, accept_multiple_files=True, key="up_refs")
    hyps = sb.file_uploader("System outputs (one or more)", type=TEXT_TYPES, accept_multiple_files=True,
                            key="up_hyps")
    terms = sb.file_uploader("Terms or glossary (TSV, optional)", type=TABLE_TYPES, key="up_terms")
    human = sb.file_uploader("Human scores (TSV: system, seg_id, score; optional)", type=TABLE_TYPES, key="up_human")
    names = _system_names(hyps, "up")
    guess = _guess_lang_pair([f.name for f in (hyps or [])] + [f.name for f in (refs or [])])
    typed = sb.text_input("Language pair (optional)", key="up_lang", placeholder=guess or "e.g. en-de",
                          help="Chooses the tokeniser (ja-mecab, zh) and the stop words of term windows. Empty: "
                               "read from the file names when they carry one (e.g. newstest2021.en-de.X.txt).")
    lang = typed.strip() or guess or None
    if not hyps or not (refs or src):
        sb.info("Upload one or more system outputs and a source or a reference (or both). Until then the previous "
                "data stays loaded.")
        return None, []
    too_large = state.uploads_over_budget([(f.name, f.getvalue()) for f in [src, *refs, *hyps] if f is not None])
    if too_large:  # judged before anything is parsed
        return None, [too_large]

    def parse() -> state.Dataset:
        data = _load_upload(
            _file_tuple(src, "src") if src else None,
            tuple(_file_tuple(f, mio.ref_name_from_file(f.name)) for f in refs),
            tuple(_file_tuple(f, n) for f, n in zip(hyps, names)),
            _file_tuple(terms) if terms else None,
            lang,
        )
        return _with_human(data.data_key, (human.name, human.getvalue()), data) if human is not None else data

    return _parsed("the uploaded files", parse)


def extra_systems(base: state.Dataset) -> tuple[state.Dataset | None, list[str]]:
    """The uploader of system outputs scored against the chosen test-set folder; returns (data, problems).

    The data: ``base`` with them, or ``base`` itself without; None on a problem, so the data loaded before stays."""
    extra = st.sidebar.file_uploader("Add system outputs (one segment per line)", type=TEXT_TYPES,
                                     accept_multiple_files=True, key="up_extra",
                                     help="Score your own outputs against this test set; the system is named after "
                                          "the file.")
    if not extra:
        return base, []
    names = _system_names(extra, "extra")
    files = tuple(_file_tuple(f, n) for f, n in zip(extra, names))
    too_large = state.additions_over_budget(base, [(f[1], f[2]) for f in files], systems=len(files))
    if too_large:  # judged before anything is parsed; what was loaded before stays
        return None, [too_large]
    return _parsed("the uploaded system outputs", lambda: _with_extra_systems(base.data_key, files, base))


def addition_widgets(base: state.Dataset | None) -> tuple[state.Dataset | None, list[str]]:
    """Uploads that add to the data: human error spans (MQM/ESA) and metric scores computed elsewhere.

    Returns (``base`` with them, or ``base`` itself without them; None on a problem, so the data loaded before
    stays; the problems found)."""
    sb = st.sidebar
    with sb.expander("Human error spans and metric scores"):
        annotations = st.file_uploader(
            "MQM/ESA annotations (MQM error TSV; ESA JSONL or TSV; a Pearmut log)", type=ANNOTATION_TYPES,
            key="up_annotations",
            help="MQM: system, doc, seg_id, rater, source, target, category, severity, spans marked <v>…</v>. "
                 "ESA: system, seg_id, score, error_spans. Pearmut: the annotation log data/annotations/CAMPAIGN.jsonl "
                 "(or the dashboard's annotations.json) of a campaign made on the Segments page or by mtdiag "
                 "pearmut export. Adds human scores and the error spans shown in the segment detail.")
        metric_spans = st.file_uploader(
            "Metric error spans (xCOMET JSON or JSONL)", type=METRIC_SPAN_TYPES, key="up_metric_spans",
            help="Records {system, seg_id, error_spans: [{start, end, severity, text, confidence}]} or comet-score "
                 "--to_json output; start/end are character offsets into the output (not bytes). Drawn in the "
                 "segment detail apart from the human spans; never human scores. Scores in the file are not read: "
                 "upload them as metric scores.")
        scores = st.file_uploader(
            "Metric scores (COMET, MetricX, …)", type=SCORE_TYPES, key="up_scores",
            help="Long (system, seg_id, metric, score[, higher_is_better]) or wide (system, seg_id, one column per "
                 "metric); seg_id 1-based. Each metric becomes a column in every view.")
        error_weights_widgets()
    if base is None or (annotations is None and scores is None and metric_spans is None):
        return base, []
    added = [(f.name, f.getvalue()) if f is not None else None for f in (annotations, metric_spans, scores)]
    too_large = state.additions_over_budget(base, [f for f in added if f is not None])
    if too_large:  # judged before anything is parsed; what was loaded before stays
        return None, [too_large]
    return _parsed("the annotations or scores", lambda: _with_additions(base.data_key, *added, base))


def _parsed(what: str, parse) -> tuple[state.Dataset | None, list[str]]:
    """``(parse(), [])``, or ``(None, [one line])`` when the files cannot be read: an input problem (file and line),
    a reader's ``ValueError``/``UnicodeError`` (never a traceback on the page), or an allocation that fails while
    they are parsed (``MemoryError``, numpy's ``_ArrayMemoryError``: the memory is handed back, and the data loaded
    before stays)."""
    try:
        return parse(), []
    except InputError as error:
        return None, [str(error)]
    except (ValueError, UnicodeError) as error:
        return None, [f"{what} could not be read: {error}"]
    except MemoryError:
        state.release_memory()
        return None, [f"Reading {what} needs more memory than the server has free. {state.OUT_OF_MEMORY_HINT}"]

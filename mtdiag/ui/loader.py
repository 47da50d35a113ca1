"""The sidebar: which data (a test-set folder, or uploaded files) and which tokenisation/case/metric options.

- **Test set folder** (the default): the folders found under ``--data DIR`` (``mtdiag serve --data DIR`` passes it
  to ``app.py`` after ``--``; ``MTDIAG_DATA`` works too) and under ``sample_data/``. The richest set (most
  references, then most systems) comes first and is loaded without a click. Extra system outputs can be uploaded
  and are scored against the chosen set.
- **Upload files**: a whole **test set file** in the field's formats (WMT XML, SGML, TSV/CSV, JSONL, any ``.gz``;
  read by :func:`mtdiag.io.load_testset`), or a source, one or more references, one or more system outputs (several
  at once; each system is named after its file, editable), optional terms/glossary and human scores.
- In both modes, **MQM/ESA error annotations** (:func:`mtdiag.io.with_error_annotations`), **error spans a metric
  predicted** (xCOMET JSON/JSONL: :func:`mtdiag.io.with_metric_spans`) and **metric scores computed elsewhere**
  (COMET, MetricX, …: :func:`mtdiag.io.with_metric_scores`) can be added to the data.
- **Saved runs** (:mod:`mtdiag.workspace`, folder from ``--workspace DIR`` / ``MTDIAG_WORKSPACE`` /
  :func:`mtdiag.workspace.default_folder`): save the current report under a label, list, open (the report is
  rebuilt from the stored statistics and put into the report store: nothing is scored), delete (after a
  confirmation), and add a system to a saved run (only that system is scored).

Every input problem (``mtdiag.io.InputError``: file and line) is shown as an ``st.error`` on the page; the data
loaded before stays loaded. Those messages quote file names and values from the files, so :func:`sidebar` returns
them Markdown-escaped (:func:`mtdiag.highlight.escape_markdown`), like every file, system and set name shown here.

Switching to other data (another set, new uploads, an added system) puts every choice control of the pages
(system, metric, reference, column and dimension pickers, filters) back to its default for the new data, and a
choice that is no longer among its options is replaced: :func:`mtdiag.ui.widgets.follow`, which assigns the value
so that the browser shows the value the page uses (issue 23). Free-form inputs (search text, toggles, numbers)
keep what the user typed: they name nothing of the data. Nothing here computes a metric.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import streamlit as st

from mtdiag import highlight
from mtdiag import io as mio
from mtdiag.api import Options
from mtdiag.errors import InputError
from mtdiag.io.testsets import TESTSET_SUFFIXES
from mtdiag.io.files import empty_output_warning, read_text_file
from mtdiag.metrics import REGISTRY
from mtdiag.tokenize import TOKENIZERS, default_tokenizer
from mtdiag.ui import state, tagging
from mtdiag.workspace import DB_FILE, Workspace, default_folder, set_aside

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO_ROOT / "sample_data"
MODES = ("Test set folder", "Upload files")
LAST_GOOD = "_mtdiag_last_good"
OPEN_RUN = "_mtdiag_open_run"  # the saved run shown instead of the loaded data: its id
WORKSPACE_NOTE = "_mtdiag_workspace_note"  # (kind, text) from a button's callback, shown in Saved runs on the next run
TEXT_TYPES = ["txt"]
TABLE_TYPES = ["tsv", "txt"]
TESTSET_TYPES = [suffix.lstrip(".") for suffix in TESTSET_SUFFIXES] + ["gz"]  # read_maybe_gzip checks the inner name
ANNOTATION_TYPES = ["tsv", "jsonl"]
METRIC_SPAN_TYPES = ["json", "jsonl"]
SCORE_TYPES = ["tsv", "csv", "jsonl"]
LOWERCASE_NOTE = ("BLEU, chrF and TER are not affected: they keep sacrebleu's defaults (BLEU and chrF case-sensitive, "
                  "TER case-insensitive; TER's own option in *Metric options*).")


# --------------------------------------------------------------------------------------------- folders


def _script_argument(flag: str, argv: list[str] | None) -> str | None:
    """The value of ``flag`` (``--flag VALUE`` or ``--flag=VALUE``) among the script arguments."""
    argv = sys.argv[1:] if argv is None else argv
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    return None


def data_argument(argv: list[str] | None = None) -> str | None:
    """``--data DIR`` from the script arguments (``streamlit run app.py -- --data DIR``), else ``MTDIAG_DATA``."""
    return _script_argument("--data", argv) or os.environ.get("MTDIAG_DATA") or None


def workspace_argument(argv: list[str] | None = None) -> Path:
    """The workspace folder: ``--workspace DIR`` from the script arguments (``mtdiag serve --workspace DIR``), else
    :func:`mtdiag.workspace.default_folder` (``MTDIAG_WORKSPACE``, else ``~/.mtdiag/workspace``)."""
    given = _script_argument("--workspace", argv)
    return Path(given) if given else default_folder()


def _inputs(folder: Path) -> mio.FolderInputs | None:
    """The folder's inputs by :mod:`mtdiag.io.naming`'s rule, or None when it cannot be read."""
    try:
        return mio.folder_inputs(folder)
    except InputError:
        return None


def _is_set(folder: Path) -> bool:
    """A test-set folder has a reference file, or a source and a system output (reference-free), by the io naming
    rule."""
    inputs = _inputs(folder)
    return inputs is not None and bool(inputs.systems) and (bool(inputs.refs) or inputs.src is not None)


def _richness(folder: Path) -> tuple[int, int]:
    """(references, systems) of a folder, as :func:`mtdiag.io.load_folder` would read them."""
    inputs = _inputs(folder)
    return (len(inputs.refs), len(inputs.systems)) if inputs is not None else (0, 0)


@st.cache_data(show_spinner=False, ttl=60)
def find_sets(root: str) -> list[str]:
    """Test-set folders at ``root``: the folder itself when it is one, else its sub-folders (two levels deep)
    that are; richest first (most references, then most systems), then by name."""
    base = Path(root)
    if not base.is_dir():
        return []
    if _is_set(base):
        return [str(base)]
    found = [p for p in sorted(base.iterdir()) if p.is_dir() and _is_set(p)]
    for sub in sorted(base.iterdir()):
        if sub.is_dir() and not _is_set(sub):
            found += [p for p in sorted(sub.iterdir()) if p.is_dir() and _is_set(p)]

    def order(p: Path):
        refs, systems = _richness(p)
        return (-refs, -systems, p.name)

    return [str(p) for p in sorted(found, key=order)]


def available_sets() -> list[str]:
    """Folders from ``--data`` first, then the sample sets (each once)."""
    sets: list[str] = []
    arg = data_argument()
    if arg:
        sets += find_sets(str(Path(arg).resolve()))
    for path in find_sets(str(SAMPLE_DIR)):
        if path not in sets:
            sets.append(path)
    return sets


def set_label(path: str) -> str:
    p = Path(path)
    try:
        return str(p.relative_to(REPO_ROOT))
    except ValueError:
        return "/".join(p.parts[-2:])  # e.g. wmt21/en-ja


def _stamp(path: str) -> tuple:
    """Names, sizes and modification times of a folder's files: a changed file reloads the set."""
    return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in Path(path).iterdir() if p.is_file()))


@st.cache_resource(show_spinner="Reading the test set …", max_entries=8)
def _load_folder(path: str, stamp: tuple) -> state.Dataset:
    evalset = mio.load_folder(path, limits=state.session_limits())
    return state.Dataset(evalset, evalset.content_hash(), "folder", Path(path).name)


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
    return state.Dataset(extended, extended.content_hash(), "folder", label)


# --------------------------------------------------------------------------------------------- uploads


@st.cache_resource(show_spinner="Reading the uploaded files …", max_entries=4, ttl=state.REPORT_TTL_S)
def _load_upload(src: tuple | None, refs: tuple, hyps: tuple, terms: tuple | None, human: tuple | None,
                 lang_pair: str | None) -> state.Dataset:
    """An EvalSet from uploaded files; every argument is (name, file name, bytes) so the cache keys on content."""
    evalset = mio.load_files(
        src=(src[1], src[2]) if src else None,
        refs=[(name, (file_name, data)) for name, file_name, data in refs],
        hyps=[(name, (file_name, data)) for name, file_name, data in hyps],
        terms=(terms[1], terms[2]) if terms else None,
        human=(human[1], human[2]) if human else None,
        name="upload",
        lang_pair=lang_pair,
        limits=state.session_limits(),
    )
    return state.Dataset(evalset, evalset.content_hash(), "upload", "uploaded files")


@st.cache_resource(show_spinner="Reading the test set file …", max_entries=4, ttl=state.REPORT_TTL_S)
def _load_testset_upload(file_name: str, data: bytes) -> state.Dataset:
    """A whole test set from one uploaded file (WMT XML, SGML, TSV/CSV, JSONL, any of them ``.gz``)."""
    evalset = mio.load_testset((file_name, data), limits=state.session_limits())
    return state.Dataset(evalset, evalset.content_hash(), "upload", file_name)


@st.cache_resource(show_spinner="Reading the annotations and scores …", max_entries=4, ttl=state.REPORT_TTL_S)
def _with_additions(base_key: str, annotations: tuple[str, bytes] | None, metric_spans: tuple[str, bytes] | None,
                    scores: tuple[str, bytes] | None, _base: state.Dataset) -> state.Dataset:
    """The base data with human error spans (MQM/ESA), metric error spans (xCOMET) and/or imported metric scores
    added."""
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
    return state.Dataset(evalset, evalset.content_hash(), _base.origin, f"{_base.label} + {' + '.join(added)}")


state.register_per_upload(_with_extra_systems.clear)  # uploads go with their reports (mtdiag.ui.state, memory)
state.register_per_upload(_load_upload.clear)
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


def _upload_widgets() -> tuple[state.Dataset | None, list[str]]:
    """The upload form; returns (the uploaded data set or None while incomplete, the problems found). A test set
    file, when given, is the whole data; else the text files make it."""
    sb = st.sidebar
    testset = sb.file_uploader(
        "Test set file (WMT XML, SGML, TSV/CSV, JSONL; optionally .gz)", type=TESTSET_TYPES, key="up_testset",
        help="One file with the source, the references and the systems: WMT XML (<doc> with <src>, <ref "
             "translator=…>, <hyp system=…>), WMT SGML, or a table with named columns (source, ref…, one column "
             "per system, optional doc). When given, the text-file uploads below are not used.")
    if testset is not None:
        try:
            return _load_testset_upload(testset.name, testset.getvalue()), []
        except InputError as error:
            return None, [str(error)]
        except (ValueError, UnicodeError) as error:  # a reader bug must not become a traceback on the page
            return None, [f"the test set file could not be read: {error}"]
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
    try:
        data = _load_upload(
            _file_tuple(src, "src") if src else None,
            tuple(_file_tuple(f, mio.ref_name_from_file(f.name)) for f in refs),
            tuple(_file_tuple(f, n) for f, n in zip(hyps, names)),
            _file_tuple(terms) if terms else None,
            _file_tuple(human) if human else None,
            lang,
        )
    except InputError as error:
        return None, [str(error)]
    except (ValueError, UnicodeError) as error:  # a reader bug must not become a traceback on the page
        return None, [f"the uploaded files could not be read: {error}"]
    return data, []


def _folder_widgets(sets: list[str]) -> tuple[state.Dataset | None, list[str]]:
    sb = st.sidebar
    if not sets:
        sb.warning("No test-set folder found: upload files instead.")
        return None, []
    path = sb.selectbox("Test set", sets, format_func=set_label, key="data_set")
    try:
        base = _load_folder(path, _stamp(path))
    except InputError as error:
        return None, [str(error)]
    extra = sb.file_uploader("Add system outputs (one segment per line)", type=TEXT_TYPES,
                             accept_multiple_files=True, key="up_extra",
                             help="Score your own outputs against this test set; the system is named after the file.")
    if not extra:
        return base, []
    names = _system_names(extra, "extra")
    try:
        return _with_extra_systems(base.data_key, tuple(_file_tuple(f, n) for f, n in zip(extra, names)), base), []
    except InputError as error:  # keep what was loaded before (this set, with any earlier uploads)
        return None, [str(error)]
    except (ValueError, UnicodeError) as error:
        return None, [f"the uploaded system outputs could not be read: {error}"]


def _addition_widgets(base: state.Dataset | None) -> tuple[state.Dataset | None, list[str]]:
    """Uploads that add to the data: human error spans (MQM/ESA) and metric scores computed elsewhere. Returns
    (``base`` with them, or ``base`` itself without them; None on a problem, so the data loaded before stays)."""
    sb = st.sidebar
    with sb.expander("Human error spans and metric scores"):
        annotations = st.file_uploader(
            "MQM/ESA annotations (MQM error TSV; ESA JSONL or TSV)", type=ANNOTATION_TYPES, key="up_annotations",
            help="MQM: system, doc, seg_id, rater, source, target, category, severity, spans marked <v>…</v>. "
                 "ESA: system, seg_id, score, error_spans. Adds human scores and the error spans shown in the "
                 "segment detail.")
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
    if base is None or (annotations is None and scores is None and metric_spans is None):
        return base, []
    try:
        return _with_additions(base.data_key, (annotations.name, annotations.getvalue()) if annotations else None,
                               (metric_spans.name, metric_spans.getvalue()) if metric_spans else None,
                               (scores.name, scores.getvalue()) if scores else None, base), []
    except InputError as error:
        return None, [str(error)]
    except (ValueError, UnicodeError) as error:
        return None, [f"the annotations or scores could not be read: {error}"]


# --------------------------------------------------------------------------------------------- saved runs


@st.cache_resource(show_spinner=False, max_entries=4)
def _workspace(folder: str) -> Workspace:
    return Workspace(folder)


def _runs(folder: Path):
    """The saved runs (:meth:`mtdiag.workspace.Workspace.runs`); none, without creating anything, when the
    folder has no workspace yet. A file that is no workspace raises :class:`InputError` (naming it)."""
    if not (folder / DB_FILE).exists():
        return None
    return _workspace(str(folder)).runs()


def _opened_run(folder: Path) -> state.Current | None:
    """The saved run this session opened, from the report store or rebuilt by
    :meth:`mtdiag.workspace.Workspace.open` (statistics → scores: nothing is scored); None when none is open, it
    was deleted meanwhile, or the workspace cannot be read any more (the Saved runs section then says why)."""
    run = st.session_state.get(OPEN_RUN)
    if run is None:
        return None
    if not (folder / DB_FILE).exists():  # another workspace folder since (never create one to look)
        del st.session_state[OPEN_RUN]
        return None
    try:
        report = state.stored_report(f"run:{folder}:{run}", lambda: _workspace(str(folder)).open(run))
        runs = _runs(folder)
    except (KeyError, InputError):  # deleted by another session, or the file is damaged
        del st.session_state[OPEN_RUN]
        return None
    label = runs.set_index("id")["label"].get(run, run) if runs is not None else run
    data = state.Dataset(report.evalset, f"run:{run}", "saved", f"saved run: {label}", saved_in=(str(folder), run))
    return state.Current(data, report.options, report)


def _saved_runs(current: state.Current | None, folder: Path) -> list[str]:
    """The "Saved runs" expander: save this run, the list, open, delete (confirmed), add a system. Returns the
    problems to show. A workspace file that cannot be used is named here, with a button that sets it aside and
    starts a new workspace (issue 22): every other part of the app keeps working; a read-only workspace lists and
    opens runs, and saving says why it cannot."""
    problems: list[str] = []
    note = st.session_state.pop(WORKSPACE_NOTE, None)
    with st.sidebar.expander("Saved runs", expanded=st.session_state.get(OPEN_RUN) is not None or bool(note)):
        st.caption(f"Workspace: {highlight.escape_markdown(str(folder))}")
        if note:
            (st.error if note[0] == "error" else st.info)(highlight.escape_markdown(note[1]))
        try:
            runs = _runs(folder)
        except InputError as error:
            _offer_a_new_workspace(folder, error)
            return problems
        read_only = runs is not None and _workspace(str(folder)).read_only
        if current is not None:
            label = st.text_input("Label", key="run_label", placeholder=current.data.label)
            if st.button("Save this run", key="run_save"):
                try:
                    _workspace(str(folder)).save(current.report, label.strip() or current.data.label)
                except InputError as error:  # read-only, over the size limit, or damaged meanwhile
                    st.error(highlight.escape_markdown(str(error)))
                else:
                    st.success(f"Saved as {highlight.escape_markdown(label.strip() or current.data.label)}.")
                    runs = _runs(folder)
        if runs is None or runs.empty:
            st.caption("No saved runs yet.")
            return problems
        if read_only:
            st.caption("This workspace is read-only: its runs can be opened, not deleted or added to.")
        st.dataframe(runs[["label", "created", "systems", "segments"]], hide_index=True, key="run_table")
        titles = {row.id: f"{row.label} · {row.created:%Y-%m-%d %H:%M} UTC" for row in runs.itertuples()}
        run = st.selectbox("Run", list(titles), format_func=titles.__getitem__, key="run_pick")
        left, right = st.columns(2)
        if left.button("Open", key="run_open"):
            st.session_state[OPEN_RUN] = run
            st.rerun()
        if read_only:
            return problems
        confirm = st.checkbox("Yes, delete this run", key="run_delete_confirm")
        right.button("Delete", key="run_delete", disabled=not confirm, on_click=_delete_run, args=(folder, run))
        added = st.file_uploader("Add a system to this run (one segment per line)", type=TEXT_TYPES,
                                 key="run_add_file")
        if added is not None:
            name = st.text_input("System name", value=mio.system_name_from_file(added.name),
                                 key=f"run_add_name_{added.name}")
            if st.button("Add and save", key="run_add"):
                try:
                    new = _add_system(folder, run, name, added)
                except InputError as error:
                    problems.append(str(error))
                except ValueError as error:  # a name already used, a line count that differs
                    problems.append(f"{added.name}: {error}")
                else:
                    st.session_state[OPEN_RUN] = new
                    st.rerun()
    return problems


def _offer_a_new_workspace(folder: Path, error: InputError) -> None:
    """The workspace file cannot be used: say so in one line, and offer to set it aside and start anew."""
    st.error(highlight.escape_markdown(str(error)))
    st.button("Start a new workspace", key="run_new_workspace", on_click=_start_a_new_workspace, args=(folder,),
              help="The unreadable file is kept beside it, renamed workspace.sqlite.unreadable-DATE-TIME; the next "
                   "save makes a new workspace.")


def _start_a_new_workspace(folder: Path) -> None:
    try:
        moved = set_aside(folder)
    except OSError as error:
        st.session_state[WORKSPACE_NOTE] = ("error", f"{folder / DB_FILE}: cannot be moved aside "
                                                     f"({error.strerror or error})")
        return
    _workspace.clear()
    st.session_state[WORKSPACE_NOTE] = ("info", f"The unreadable file was kept as {moved.name}; the next save starts "
                                                "a new workspace.")


def _delete_run(folder: Path, run: str) -> None:
    """The Delete button's callback (before the widgets exist, so the confirmation can be unticked)."""
    try:
        _workspace(str(folder)).delete(run)
    except KeyError:  # another session deleted it first
        pass
    except InputError as error:  # shown in the Saved runs section on this run
        st.session_state[WORKSPACE_NOTE] = ("error", str(error))
    if st.session_state.get(OPEN_RUN) == run:
        del st.session_state[OPEN_RUN]
    st.session_state["run_delete_confirm"] = False


def _add_system(folder: Path, run: str, name: str, uploaded) -> str:
    """The saved run plus the uploaded system (checked like any uploaded output), scoring only that system
    (:meth:`mtdiag.workspace.Workspace.add_system`); returns the new run's id."""
    name = mio.clean_name(name)
    if not name:
        raise InputError(uploaded.name, "the system name is empty")
    lines = read_text_file(name, "system", (uploaded.name, uploaded.getvalue()), uploaded.name,
                           state.session_limits(), []).lines
    return _workspace(str(folder)).add_system(run, name, lines)


# --------------------------------------------------------------------------------------------- options


def _option_widgets(data: state.Dataset) -> Options:
    sb = st.sidebar
    sb.subheader("Options")
    auto = default_tokenizer(data.evalset.tgt_lang)
    choice = sb.selectbox(
        "Tokeniser", ["auto", *TOKENIZERS], key="opt_tokenize",
        format_func=lambda t: f"auto ({auto} for this target language)" if t == "auto" else t,
        help="sacrebleu tokeniser for OTEM/UTEM, WAFT/NEVA, terms and n-grams (and BLEU). 'auto': ja-mecab for "
             "Japanese, zh for Chinese, 13a otherwise.")
    lowercase = sb.checkbox("Lower-case (case-insensitive scores)", value=True, key="opt_lowercase",
                            help="Folds case for OTEM/UTEM, WAFT/NEVA, terms and n-grams: the papers report "
                                 "case-insensitive scores.")
    sb.caption(LOWERCASE_NOTE)
    typography = sb.checkbox("Normalise typography (quotes, dashes, widths)", value=True, key="opt_typography",
                             help="Curly and straight quotes and apostrophes, dashes and full-width forms count as "
                                  "the same for OTEM/UTEM, WAFT/NEVA, terms and n-grams, so don’t vs don't is not a "
                                  "finding. BLEU, chrF and TER always see the texts as written.")
    chosen: dict[str, dict] = {}
    with sb.expander("Metric options"):
        for name, cls in REGISTRY.items():
            for spec in cls.info.options:
                value = _option_widget(cls.info, spec)
                if value is not None and value != spec.default:
                    chosen.setdefault(name, {})[spec.name] = value
    return Options(tokenize=None if choice == "auto" else choice, lowercase=lowercase, typography=typography,
                   metric_options=chosen)


def _option_widget(info, spec):
    """One widget drawn from a metric option's declaration (:class:`~mtdiag.metrics.OptionSpec`); the value chosen
    (None: the automatic default)."""
    label = f"{info.label}: {spec.help}"
    key = f"opt_{info.name}_{spec.name}"
    if spec.type is bool:
        if spec.default is None:
            picked = st.selectbox(label, ["auto", "yes", "no"], key=key)
            return None if picked == "auto" else picked == "yes"
        return st.checkbox(label, value=spec.default, key=key)
    if spec.choices is not None:
        return st.selectbox(label, list(spec.choices), index=list(spec.choices).index(spec.default), key=key)
    if spec.type is int:
        return int(st.number_input(label, min_value=None if spec.minimum is None else int(spec.minimum),
                                   max_value=None if spec.maximum is None else int(spec.maximum),
                                   value=spec.default, step=1, key=key))
    if spec.type is float:
        return float(st.number_input(label, min_value=spec.minimum, max_value=spec.maximum,
                                     value=float(spec.default), step=0.5, key=key))
    return st.text_input(label, value=spec.default, key=key)


# --------------------------------------------------------------------------------------------- the sidebar


def sidebar() -> tuple[state.Current | None, list[str]]:
    """Draw the sidebar, load the data, compute (or fetch) the report; returns (current, input problems).

    On a problem the last data loaded successfully stays in use.
    """
    sb = st.sidebar
    sb.title("mtdiag")
    sb.caption("Diagnostic evaluation of machine-translation output")
    folder = workspace_argument()
    opened = _opened_run(folder)
    if opened is not None:
        return _show_saved_run(opened, folder)
    mode = sb.radio("Data", MODES, key="data_mode", horizontal=True)
    if mode == MODES[0]:
        data, problems = _folder_widgets(available_sets())
    else:
        data, problems = _upload_widgets()
    data, more = _addition_widgets(data)
    problems += more
    if data is None:
        data = st.session_state.get(LAST_GOOD)
    if data is None:  # nothing loaded yet (e.g. upload mode from the start): fall back to the first set
        sets = available_sets()
        if sets:
            try:
                data = _load_folder(sets[0], _stamp(sets[0]))
            except InputError as error:
                problems.append(str(error))
    if data is None:
        return None, [highlight.escape_markdown(p) for p in problems]
    problems = [f"{highlight.escape_markdown(p)}  \nThe data loaded before stays in use "
                f"({highlight.escape_markdown(data.label)})." for p in problems]
    st.session_state[LAST_GOOD] = data
    options = _option_widgets(data)
    _summary(data)
    too_large = state.over_budget(data)
    if too_large:  # refused before scoring: the server stays up for the other sessions
        problems.append(too_large)
        return None, problems
    try:
        report = state.report_for(data, options)
    except (ValueError, RuntimeError) as error:  # e.g. a tokeniser that is not installed
        problems.append(f"The metrics cannot be computed with these options: {highlight.escape_markdown(error)}")
        return None, problems
    current = tagging.apply(state.Current(data, options, report))
    problems += [highlight.escape_markdown(p) for p in _saved_runs(current, folder)]
    return current, problems


def _show_saved_run(current: state.Current, folder: Path) -> tuple[state.Current, list[str]]:
    """The sidebar while a saved run is open: its name, its options (those it was saved with), a way back."""
    sb = st.sidebar
    sb.info(f"Showing the {highlight.escape_markdown(current.data.label)}, as saved (nothing recomputed).")
    if sb.button("Close the saved run", key="run_close"):
        del st.session_state[OPEN_RUN]
        st.rerun()
    _summary(current.data)
    options = current.options
    shown = [f"tokeniser {options.tokenize}", "lower-cased" if options.lowercase else "case-sensitive"]
    shown += [f"{metric} {option}={value}" for metric, chosen in options.metric_options for option, value in chosen]
    sb.caption("Options: " + highlight.escape_markdown(", ".join(shown)))
    current = tagging.apply(current)
    return current, [highlight.escape_markdown(p) for p in _saved_runs(current, folder)]


def _summary(data: state.Dataset) -> None:
    ev = data.evalset
    extras = []
    if ev.terms is not None and len(ev.terms):
        extras.append(f"{len(ev.terms)} term occurrences")
    if ev.human is not None and len(ev.human):
        extras.append(f"{len(ev.human)} human scores")
    if ev.metric_spans is not None and len(ev.metric_spans):
        extras.append(f"{len(ev.metric_spans)} metric error spans")
    lines = [f"**{highlight.escape_markdown(data.label)}**"
             + (f" ({highlight.escape_markdown(ev.lang_pair)})" if ev.lang_pair else ""),
             f"{ev.n_segments:,} segments · {len(ev.systems)} systems · "
             + (f"{len(ev.ref_names)} reference" + ("s" if len(ev.ref_names) != 1 else "") if ev.has_references
                else "no reference (reference-free checks)")]
    if extras:
        lines.append(" · ".join(extras))
    st.sidebar.caption("  \n".join(lines))
    if ev.warnings:
        with st.sidebar.expander(f"{len(ev.warnings)} input warning" + ("s" if len(ev.warnings) != 1 else "")):
            for warning in ev.warnings:
                st.caption(highlight.escape_markdown(warning))

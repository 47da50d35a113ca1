"""Read and validate every input into an :class:`~mtdiag.core.evalset.EvalSet`, at the edge, once (``docs/inputs.md``).

Inputs (``docs/inputs.md``):

- plain text, one segment per line (:mod:`.text`: ``read_lines``), gathered from a folder (:mod:`.folders`:
  ``load_folder``) or from named files / uploaded bytes (:mod:`.files`: ``load_files``);
- tables where the header names the roles (:mod:`.tables`: ``read_table`` / ``load_table``): TSV (no quoting, as
  in WMT files), CSV (standard quoting) and JSONL (one object per line);
- human scores, a long TSV ``system, seg_id, score`` (:mod:`.human_scores`: ``read_human_scores``,
  ``with_human_file``), and human error rows from MQM error TSVs, ESA files or Pearmut logs (:mod:`.annotations`:
  ``with_error_annotations``), kept as read and weighed by the scheme an analysis chooses (:mod:`.error_weights`:
  ``weighed``, ``error_weights``, ``read_error_weights``), and error spans a metric predicted, xCOMET-style JSON
  (:mod:`.metric_spans`: ``read_metric_spans``);
- terms and glossary TSVs (:mod:`.terms`: ``read_term_file``);
- whole test sets in the field's formats — WMT XML, SGML, TSV/CSV/JSONL, gzip (:mod:`.testsets`: ``load_testset``);
- metric scores computed elsewhere, COMET/MetricX/… (:mod:`.scores`: ``read_metric_scores``);
- one naming rule for sources, references, systems and the language pair (:mod:`.naming`).

Every problem is an :class:`InputError`: one sentence that starts with the file's name and, when known, ``line
N:``. Problems that leave the data usable (empty lines, very long segments, ignored numeric columns, a system
that outputs nothing, human scores for systems that are not loaded) become warning strings collected into
``EvalSet.warnings``.
"""

from mtdiag.core.errors import InputError
from mtdiag.io.annotations import read_error_annotations, with_error_annotations
from mtdiag.io.error_weights import DEFAULT_WEIGHTS as DEFAULT_ERROR_WEIGHTS
from mtdiag.io.error_weights import SCHEMES as ERROR_WEIGHT_SCHEMES
from mtdiag.io.error_weights import ErrorWeights, error_weights, read_error_weights, weighed
from mtdiag.io.files import load_files
from mtdiag.io.folders import FolderInputs, folder_inputs, load_folder, load_path
from mtdiag.io.human_scores import read_human_scores, with_human_file
from mtdiag.io.metric_spans import read_metric_spans, with_metric_spans
from mtdiag.io.naming import (
    clean_name,
    file_role,
    is_ignored_file,
    lang_pair_from_file_name,
    lang_pair_from_name,
    ref_name_from_column,
    ref_name_from_file,
    resolve_lang_pair,
    system_name_from_file,
    system_name_from_stem,
)
from mtdiag.io.scores import read_metric_scores, with_metric_scores
from mtdiag.io.testsets import load_testset, read_maybe_gzip, testset_shape
from mtdiag.io.tables import is_table_name, load_table, read_table, read_text_column
from mtdiag.io.term_files import read_term_file
from mtdiag.io.text import DEFAULT_LIMITS, LIMIT_SETTINGS, Limits, decode_text, read_lines, split_lines

__all__ = [
    "InputError",
    "DEFAULT_ERROR_WEIGHTS",
    "ERROR_WEIGHT_SCHEMES",
    "ErrorWeights",
    "error_weights",
    "read_error_weights",
    "weighed",
    "with_human_file",
    "Limits",
    "DEFAULT_LIMITS",
    "LIMIT_SETTINGS",
    "FolderInputs",
    "clean_name",
    "decode_text",
    "file_role",
    "folder_inputs",
    "is_ignored_file",
    "is_table_name",
    "lang_pair_from_file_name",
    "lang_pair_from_name",
    "load_files",
    "load_folder",
    "load_path",
    "load_table",
    "load_testset",
    "read_maybe_gzip",
    "testset_shape",
    "read_human_scores",
    "read_error_annotations",
    "read_metric_spans",
    "read_lines",
    "read_metric_scores",
    "read_table",
    "read_term_file",
    "read_text_column",
    "ref_name_from_column",
    "ref_name_from_file",
    "resolve_lang_pair",
    "split_lines",
    "system_name_from_file",
    "system_name_from_stem",
    "with_error_annotations",
    "with_metric_spans",
    "with_metric_scores",
]

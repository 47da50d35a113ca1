"""The one naming rule for input files: which file is the source, a reference or a system, what each is called,
and the language pair — used by the folder loader, the CLI and the dashboard alike (``docs/inputs.md``).

- A ``testset.xx-yy.`` prefix is not part of a name: ``newstest2021.en-de.Facebook-AI.txt`` -> ``Facebook-AI``.
- References: ``ref.txt`` -> ``ref``; ``ref.A.txt``, ``ref-A.txt``, ``ref_A.txt``, ``refA.txt`` and
  ``newstest2021.en-de.ref.B.txt`` -> ``A``/``B`` (the same rule as a table's ``ref*`` column headers).
- The source is ``src.txt`` (also with a ``testset.xx-yy.`` prefix).
- Never inputs: ``*.annotated.txt`` (inline term tags, read by the terms loader), hidden files, and
  README/LICENSE/NOTES-like files (``README.txt``, ``LICENSE.txt``, ``notes.txt``).
- Names are stripped of surrounding whitespace, so ``a`` and ``a `` are the same name (and so a duplicate).
- The language pair comes from ``--tgt-lang`` first, else a folder name ending in ``xx-yy`` (``wmt22.en-ja``,
  ``en-ja``, ``tico19-en-fr``), else a file name with a ``testset.xx-yy.`` prefix
  (``generaltest2022.en-ja.X.txt``) — :func:`resolve_lang_pair`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

__all__ = [
    "clean_name",
    "file_role",
    "is_ignored_file",
    "lang_pair_from_name",
    "lang_pair_from_file_name",
    "ref_name_from_column",
    "ref_name_from_file",
    "resolve_lang_pair",
    "system_name_from_file",
    "system_name_from_stem",
]

_PAIR = r"([a-z]{2,3})-([a-z]{2,3})"
_LANG_PAIR = re.compile(rf"(?:^|[._\-]){_PAIR}$", re.IGNORECASE)
_SYSTEM_PREFIX = re.compile(rf"^(?:[^.]+\.)?{_PAIR}\.", re.IGNORECASE)
_REF_BARE = re.compile(r"^(?:ref|reference)$", re.IGNORECASE)
_REF_SEPARATED = re.compile(r"^(?:ref|reference)[._\-: ](.+)$", re.IGNORECASE)
_REF_COMPACT = re.compile(r"^(?:ref|Ref|reference|Reference)([A-Z0-9]\w*)$")
_NOT_INPUT_FILES = re.compile(r"^(?:readme|license|licence|notes?)\b", re.IGNORECASE)


def clean_name(name: str) -> str:
    """A reference or system name as it is used: surrounding whitespace removed."""
    return name.strip()


def lang_pair_from_name(name: str) -> str | None:
    """The language pair at the end of a folder or file name, lower-cased; None when there is none.

    ``wmt21.en-de``, ``en-de``, ``tico19-en-fr`` -> ``en-de``/``en-fr``."""
    match = _LANG_PAIR.search(Path(name).name)
    return f"{match.group(1)}-{match.group(2)}".lower() if match else None


def lang_pair_from_file_name(file_name: str) -> str | None:
    """The language pair of a ``testset.xx-yy.NAME.ext`` file name; None without such a prefix.

    ``generaltest2022.en-ja.X.txt`` -> ``en-ja``; a bare ``Online-B.txt`` is a name, not a pair."""
    match = _SYSTEM_PREFIX.match(Path(file_name).stem)
    return f"{match.group(1)}-{match.group(2)}".lower() if match else None


def resolve_lang_pair(tgt_lang: str | None = None, folders: Iterable[str] = (),
                      file_names: Iterable[str] = ()) -> str | None:
    """The language pair of a set, from its folder names, else its file names; None when nothing names a language.

    From the folder names (:func:`lang_pair_from_name`), else the file names (:func:`lang_pair_from_file_name`);
    ``tgt_lang`` (e.g. ``--tgt-lang``) overrides the target side, and alone gives ``xx-LANG`` (source language
    unknown)."""
    pair = next((p for p in map(lang_pair_from_name, folders) if p), None)
    pair = pair or next((p for p in map(lang_pair_from_file_name, file_names) if p), None)
    tgt = (tgt_lang or "").strip().lower()
    if not tgt:
        return pair
    return f"{pair.split('-', 1)[0] if pair else 'xx'}-{tgt}"


def system_name_from_stem(stem: str) -> str:
    """A system name from a file stem, without a ``testset.xx-yy.`` prefix.

    ``newstest2021.en-de.Facebook-AI`` -> ``Facebook-AI``; ``tico19dev.en-fr.Fairseq`` -> ``Fairseq``."""
    stripped = _SYSTEM_PREFIX.sub("", stem, count=1)
    return clean_name(stripped or stem)


def system_name_from_file(file_name: str) -> str:
    """A system name from a file name: its stem (:func:`system_name_from_stem`)."""
    return system_name_from_stem(Path(file_name).stem)


def ref_name_from_column(column: str) -> str | None:
    """The reference name a table column header declares; None when the column is not a reference.

    ``ref`` -> ``ref``, ``ref.A``/``ref_A``/``refA`` -> ``A``."""
    if _REF_BARE.match(column):
        return "ref"
    match = _REF_SEPARATED.match(column) or _REF_COMPACT.match(column)
    return clean_name(match.group(1)) if match else None


def _declared_ref_name(file_name: str) -> str | None:
    """The reference name a file name declares (the column rule on the stem without a ``testset.xx-yy.`` prefix,
    from its first ``ref``/``reference`` part on), or None."""
    parts = system_name_from_file(file_name).split(".")
    for start in range(len(parts)):
        name = ref_name_from_column(".".join(parts[start:]))
        if name:
            return name
    return None


def ref_name_from_file(file_name: str) -> str:
    """A reference's name from its file name.

    ``ref.A.txt`` -> ``A``; ``ref.txt`` -> ``ref``; ``newstest2021.en-de.ref.B.txt`` -> ``B``; a file that declares no
    reference name is named like a system (``wmt.en-de.human.txt`` -> ``human``)."""
    return _declared_ref_name(file_name) or system_name_from_file(file_name)


def is_ignored_file(file_name: str) -> bool:
    """True for files that are never a source, reference or system.

    ``*.annotated.txt``, hidden files and README/LICENSE/NOTES-like files."""
    name = Path(file_name).name
    return name.startswith(".") or name.lower().endswith(".annotated.txt") or bool(_NOT_INPUT_FILES.match(name))


def file_role(file_name: str) -> tuple[str, str] | None:
    """The role and name of a test-set folder's text file, or None for a file that is no input.

    ``("src", "src")``, ``("ref", NAME)`` or ``("system", NAME)``; None for a file that is no input
    (:func:`is_ignored_file`)."""
    if is_ignored_file(file_name):
        return None
    if system_name_from_file(file_name).lower() == "src":
        return "src", "src"
    ref = _declared_ref_name(file_name)
    if ref is not None:
        return "ref", ref
    return "system", system_name_from_file(file_name)

"""One registry mechanism for what mtdiag finds by name: the metrics, the triage checks, the views (pages) and the
bucket dimensions (``docs/architecture.md``, "One registry mechanism").

A :class:`Registry` is a read-only mapping from names to entries, in the order they were registered — the order of
the command line's choices, the dashboard's columns and pages, the report's sections. Its rules are the same for
every kind of entry:

- **Entries by module name.** The built-in entries are listed once, by the names of the modules that define them
  (:meth:`Registry.of_modules`: the metrics' ``MODULES``, the checks' ``MODULES``, the views' ``PAGES``): a new
  metric, check or view is its module and one line there. A plug-in, or a test, adds one at run time with
  :meth:`Registry.register`.
- **A name is a word** (letters, digits and underscores, starting with a letter): it becomes a column, a flag, an
  option key and a page's address.
- **No duplicates.** Registering a name that is taken is a ``ValueError`` naming both entries — a plug-in never
  silently replaces a built-in.
- **``registered()`` restores what was there.** ``with registry.registered(entry):`` adds the entry for the block
  only; with ``replace=True`` it stands in for the entry of that name and puts the original back, at its place, on
  exit (whatever the block raised).
- **The registered set is part of every cache key that means "all"** (:func:`fingerprint`): the reports kept on
  disk for "every metric" (:mod:`mtdiag.scoring.report_cache`) and the dashboard's reports and frames
  (:mod:`mtdiag.ui.state`) are keyed on it, so a metric or check registered in one process never reaches a
  report computed without it, nor the reverse.
"""

from __future__ import annotations

import hashlib
import weakref
from contextlib import contextmanager
from importlib import import_module
from types import ModuleType
from typing import Callable, ClassVar, Generic, Iterable, Iterator, Mapping, TypeVar

T = TypeVar("T")


def origin(entry: object) -> str:
    """Where an entry is defined, for messages and cache keys.

    ``module.QualName`` of a class or function, else the module and class of the object (a view is a ``View``
    instance: its module says where it was declared)."""
    if isinstance(entry, type) or callable(entry) and hasattr(entry, "__qualname__"):
        return f"{entry.__module__}.{entry.__qualname__}"
    declared = getattr(entry, "module", None)
    return declared if isinstance(declared, str) and declared else f"{type(entry).__module__}.{type(entry).__qualname__}"


class Registry(Mapping[str, T], Generic[T]):
    """Named entries of one kind (``"metric"``, ``"check"``, ``"view"``, ``"bucket dimension"``), in registration order.

    ``name_of(entry)`` gives an entry's name (see the module docstring for the rules)."""

    _every: ClassVar[weakref.WeakSet] = weakref.WeakSet()

    def __init__(self, kind: str, name_of: Callable[[T], str], entries: Iterable[T] = ()) -> None:
        self.kind = kind
        self._name_of = name_of
        self._entries: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        for entry in entries:
            self.register(entry)
        Registry._every.add(self)

    @classmethod
    def of_modules(cls, kind: str, package: str, modules: Iterable[str], name_of: Callable[[T], str],
                   entries_of: Callable[[ModuleType], Iterable[T]]) -> "Registry[T]":
        """A registry of the entries that each module ``package.NAME`` of ``modules`` defines, module after module.

        A module's entries are ``entries_of(module)``, in the module's order."""
        registry = cls(kind, name_of)
        for name in modules:
            module = import_module(f"{package}.{name}")
            for entry in entries_of(module):
                registry.register(entry, where=module.__name__)
        return registry

    # -- the mapping (read-only: entries change through register and unregister only)
    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    __eq__ = object.__eq__  # one registry is one place, compared by identity (and so usable in a weak set)
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._entries)})"

    # -- changes
    def register(self, entry: T, *, where: str | None = None) -> T:
        """Add ``entry`` under its name (the last place in the order); returns it, so it serves as a decorator.

        A name that is not a word, or that is taken, is a ``ValueError``."""
        name = self._name_of(entry)
        if not isinstance(name, str) or not name or not name.replace("_", "").isalnum() or not name[0].isalpha():
            raise ValueError(f"{self.kind} name {name!r}: use letters, digits and underscores, starting with a letter")
        if name in self._entries:
            raise ValueError(f"a {self.kind} named {name!r} is already registered ({self._origins[name]}); "
                             f"choose another name, or replace it for a while with registered(..., replace=True)")
        self._entries[name] = entry
        self._origins[name] = where or origin(entry)
        return entry

    def unregister(self, name: str) -> T | None:
        """Remove the entry ``name`` (nothing when there is none); returns it."""
        self._origins.pop(name, None)
        return self._entries.pop(name, None)

    @contextmanager
    def registered(self, entry: T, *, replace: bool = False) -> Iterator[T]:
        """``with registry.registered(entry):`` — ``entry`` is registered inside the block only.

        With ``replace=True`` it stands in for the entry of the same name, which is put back at its place on exit;
        without, a taken name is refused before the block runs (nothing is changed)."""
        name = self._name_of(entry)
        if not (replace and name in self._entries):
            self.register(entry)
            try:
                yield entry
            finally:
                if self._entries.get(name) is entry:
                    self.unregister(name)
            return
        place = list(self._entries).index(name)
        original, where = self._entries[name], self._origins[name]
        self._entries[name], self._origins[name] = entry, origin(entry)
        try:
            yield entry
        finally:
            names = [n for n in self._entries if n != name]
            names.insert(min(place, len(names)), name)
            self._entries = {n: original if n == name else self._entries[n] for n in names}
            self._origins[name] = where

    # -- identity
    def origin(self, name: str) -> str:
        """Where entry ``name`` was defined (a module, or ``module.Class``)."""
        return self._origins[name]

    def fingerprint(self) -> str:
        """A digest of the registered set: every name with where it was defined, in order."""
        text = "\x1f".join(f"{name}={self._origins[name]}" for name in self._entries)
        return hashlib.sha256(f"{self.kind}\x1e{text}".encode()).hexdigest()[:16]


def fingerprint() -> str:
    """A digest of every registry of the process (:meth:`Registry.fingerprint`).

    It is part of every cache key that stands for "all the registered ones"."""
    parts = sorted(f"{r.kind}:{r.fingerprint()}" for r in Registry._every)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]

"""One registry mechanism (:class:`mtdiag.core.registry.Registry`) for the metrics, the checks, the views and the
bucket dimensions: built-in entries by module name, duplicates refused with a clear error, ``registered()``
restoring what was there, and the registered set in every key that means "all"."""

from __future__ import annotations

import pytest

from mtdiag import metrics, views
from mtdiag.analysis import segment_groups
from mtdiag.core import registry
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.registry import Registry
from mtdiag.scoring.evaluate import evaluate
from mtdiag.triage import checks
from mtdiag.triage.checks.base import Check
from tests.test_registry_surfaces import LongWords

REGISTRIES = {
    "metric": (metrics.REGISTRY, "bleu"),
    "check": (checks.REGISTRY, "repetition"),
    "view": (views.REGISTRY, "segments"),
    "bucket dimension": (segment_groups.DIMENSIONS, "src_length"),
}


class Repetition(Check):
    """A throw-away check named like a built-in."""

    name = "repetition"
    label = "mine"
    help = "a check named like a built-in"

    def fires(self, report):
        return checks.REGISTRY["empty"]().fires(report)

    def explain(self, report, system, seg):
        raise NotImplementedError


def test_every_registry_is_one_of_the_mechanism():
    for kind, (found, _) in REGISTRIES.items():
        assert isinstance(found, Registry) and found.kind == kind


def test_the_built_ins_are_listed_by_module_name():
    assert list(metrics.REGISTRY) == ["otem", "utem", "waft", "neva", "bleu", "chrf", "ter", "length_ratio",
                                      "term_exact", "term_window2", "term_window3", "term_ter", "consensus",
                                      "predicted_mqm", "predicted_esa"]
    assert metrics.REGISTRY.origin("term_window3") == "mtdiag.metrics.terminology"
    assert {metrics.REGISTRY.origin(n).rpartition(".")[2] for n in metrics.REGISTRY} == set(metrics.MODULES)
    assert {checks.REGISTRY.origin(n).rpartition(".")[2] for n in checks.REGISTRY} == set(checks.MODULES)
    assert [views.REGISTRY.origin(n).rpartition(".")[2] for n in views.REGISTRY] == list(views.PAGES)


@pytest.mark.parametrize("kind", list(REGISTRIES))
def test_a_taken_name_is_refused_and_the_built_in_kept(kind):
    found, taken = REGISTRIES[kind]
    before = dict(found)
    with pytest.raises(ValueError, match=f"a {kind} named '{taken}' is already registered"):
        found.register(_named_like(kind, taken))
    with pytest.raises(ValueError, match="already registered"):
        with found.registered(_named_like(kind, taken)):
            pytest.fail("the block must not run")
    assert dict(found) == before


def test_a_duplicate_check_is_refused_by_the_checks_own_functions():
    builtin = checks.REGISTRY["repetition"]
    with pytest.raises(ValueError, match=r"a check named 'repetition' is already registered "
                                         r"\(mtdiag.triage.checks.repetition\)"):
        checks.register(Repetition)
    with pytest.raises(ValueError):
        with checks.registered(Repetition):
            pass
    assert checks.REGISTRY["repetition"] is builtin


@pytest.mark.parametrize("kind", list(REGISTRIES))
def test_registered_with_replace_puts_the_built_in_back_at_its_place(kind):
    found, taken = REGISTRIES[kind]
    before = list(found.items())
    mine = _named_like(kind, taken)
    with pytest.raises(RuntimeError):
        with found.registered(mine, replace=True):
            assert found[taken] is mine and list(found) == [n for n, _ in before]
            raise RuntimeError("the block fails")
    assert list(found.items()) == before


def test_a_temporary_entry_leaves_and_what_was_added_meanwhile_stays():
    names = Registry("thing", lambda entry: entry[0], [("a", 1), ("b", 2)])
    with names.registered(("c", 3)):
        names.register(("d", 4))
    assert dict(names) == {"a": ("a", 1), "b": ("b", 2), "d": ("d", 4)}
    with pytest.raises(ValueError, match="thing name 'no way'"):
        names.register(("no way", 5))


def test_the_registered_set_is_in_the_key_of_all():
    before = registry.fingerprint()
    with metrics.registered(LongWords):
        during = registry.fingerprint()
    assert during != before and registry.fingerprint() == before


def test_a_registered_bucket_dimension_is_offered_and_bucketed():
    evalset = evalset_from_lists({"A": ["a b", "c d e f"]}, {"x": ["a b", "c d"]}, src=["s", "t u"])
    report = evaluate(evalset)
    words = segment_groups.Dimension(
        "hyp_words", "output length (words)", lambda e: ["hyp_words"],
        lambda report, by, word_counts: segment_groups._same_for_all(
            report, [str(len(t.split())) for t in report.evalset.hyps["x"]], ["2"], by))
    with segment_groups.DIMENSIONS.registered(words):
        assert "hyp_words" in segment_groups.dimensions(report)
        assert segment_groups.bucketing(report, "hyp_words").labels.tolist() == [["2", "2"]]
        assert segment_groups.describe("hyp_words") == "output length (words)"
    assert "hyp_words" not in segment_groups.dimensions(report)
    with pytest.raises(ValueError, match="unknown bucket dimension 'hyp_words'; choose src_length, ref_length, "
                                         "ref_freq, human, error_category or label:COLUMN"):
        segment_groups.bucketing(report, "hyp_words")


def _named_like(kind: str, name: str):
    """An entry of ``kind`` named ``name``."""
    if kind == "metric":
        return type("Taken", (LongWords,), {"info": metrics.MetricInfo(
            name=name, label="x", description="x", paper="none", scale=100, higher_is_better=True)})
    if kind == "check":
        return Repetition if name == "repetition" else type("Taken", (Repetition,), {"name": name})
    if kind == "view":
        from dataclasses import replace

        return replace(views.REGISTRY[name], title="another")
    return segment_groups.Dimension(name, "another", lambda e: [], lambda report, by, word_counts: None)

"""Every number a user types is a bound: the options that `benchmarks/fuzz_options.py` found unbounded or failing,
each refused in one line naming the option and its limit (or now working), and a check over every view's options
that an empty choice builds its tables (a multiselect with nothing selected is a value a page sends)."""

from __future__ import annotations

import pytest

from mtdiag import views
from mtdiag.io import load_folder
from mtdiag.scoring.evaluate import evaluate
from tests.conftest import SAMPLE
from tests.test_cli import run_cli

SET = str(SAMPLE / "wmt21.en-de")


@pytest.fixture(scope="module")
def report():
    return evaluate(load_folder(SAMPLE / "wmt21.en-de"))


@pytest.mark.parametrize("name", list(views.REGISTRY))
def test_every_view_builds_with_nothing_chosen_in_each_of_its_lists(report, name):
    """``mtdiag view waft_neva --systems ''`` (and the page with no system selected) raised an IndexError."""
    view = views.REGISTRY[name]
    for option in view.options:
        if not option.many or not option.applies(report):
            continue
        chosen = view.resolve(report, {option.name: []})
        assert chosen[option.name] == []
        try:
            view.frames(report, chosen)
        except ValueError:  # what these choices cannot give, said in one line
            pass


@pytest.mark.parametrize(("argv", "message"), [
    (["score", "--testset", SET, "--paired-bs", "2147483648"], "--paired-bs 2,147,483,648: from 1 to 100,000 resamples"),
    (["score", "--testset", SET, "--paired-ar", "0"], "--paired-ar 0: from 1 to 100,000 trials"),
    (["score", "--testset", SET, "--paired-bs", "--seed", "-1"], "--seed -1: a whole number from 0"),
    (["view", "overview", "--testset", SET, "--samples", "100001"], "--samples 100001: must be in 1..100000"),
    (["view", "slices", "--testset", SET, "--seed", "-1"], "--seed -1: must be in 0.."),
    (["score", "--testset", SET, "--metrics", "x" * 100_000],
     "--metrics: unknown metric 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'; known: otem"),
    (["score", "--testset", SET, "--error-weights", "x" * 100_000],
     "--error-weights 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…': neither a scheme"),
])
def test_extreme_option_values_are_refused_in_one_line_naming_the_option(capsys, argv, message):
    """Before: a MemoryError traceback (2.38 TiB asked for), numpy's "expected non-negative integer", "unknown
    metric 'xxx…'" with the 100,000 characters and no flag, "[Errno 36] File name too long"."""
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == "" and len(err.splitlines()) == 1, err[:300]
    assert err.startswith(f"mtdiag: error: {message}"), err[:300]

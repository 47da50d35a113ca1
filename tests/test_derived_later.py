"""The first page before predicted MQM (issue 46, Build 2): the dashboard scores every metric but those derived from
the others, draws the page, then derives them (:func:`mtdiag.scoring.evaluate.with_derived`) and draws it again. The
report completed so is the report scored at once, number for number."""

from __future__ import annotations

import numpy as np

from mtdiag.io import load_folder
from mtdiag.pipeline.inputs import Options, evaluate, underived, with_derived
from tests.test_app import (  # noqa: F401 - the autouse fixtures of the dashboard tests apply here too
    DE, clear_caches, de_lines, lines_file, no_data_argument, start, table_with, visit)


def test_a_report_completed_after_the_first_page_is_the_report_scored_at_once():
    evalset = load_folder(DE).without_judgements()
    whole = evaluate(evalset, Options())
    first = evaluate(evalset, Options(), derive=False)
    assert "predicted_mqm" in whole.metrics and underived(first) == ("predicted_mqm",) and not underived(whole)
    assert first.metrics == tuple(m for m in whole.metrics if m != "predicted_mqm")
    done = with_derived(first)
    assert done.metrics == whole.metrics and done.context is first.context and not underived(done)
    for (metric, system), result in whole.results.items():
        assert np.array_equal(done.result(metric, system).stats, result.stats), (metric, system)
        assert done.result(metric, system).corpus == result.corpus
    assert with_derived(done) is done  # nothing left to derive
    assert evaluate(evalset, Options(metrics=("chrf",)), derive=False).metrics == ("chrf",)  # none asked for


def test_the_dashboard_draws_the_first_page_then_the_derived_metrics(monkeypatch):
    """An upload is scored without predicted MQM and without the checks; the page runs; then the checks run and
    predicted MQM is derived, once each, and the page is drawn again with it: one run of the script as AppTest sees
    it, two passes of the page. (The checks beside the metrics doubled the first page's wait: 2.2 → 4.5 s of
    scoring on 10 systems of WMT21 en-de.) Once it is drawn complete, ``scipy.stats`` is imported in the background, once."""
    from mtdiag.ui import reports

    scored, derived, pages, checked, warmed = [], [], [], [], []
    real_evaluate, real_derive, real_prepared = reports.evaluate, reports.with_derived, reports.prepared
    monkeypatch.setattr(reports, "evaluate", lambda *a, **k: scored.append((k.get("derive"), k.get("prepare")))
                        or real_evaluate(*a, **k))
    monkeypatch.setattr(reports, "prepared", lambda report: checked.append(len(pages)) or real_prepared(report))
    monkeypatch.setattr(reports, "with_derived", lambda report, *a, **k: (
        reports.underived(report) and derived.append(len(pages))) or real_derive(report, *a, **k))  # that derive
    monkeypatch.setattr(reports, "warm_up_statistics", lambda: warmed.append(len(pages)))
    at = start()
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_refs").set_value(lines_file("ref.A.txt", de_lines("ref.A.txt")))
    from mtdiag.ui import page as page_module

    real_frame = page_module.Page.frame
    monkeypatch.setattr(page_module.Page, "frame",
                        lambda self, name, **k: pages.append("predicted_mqm" in self.report.metrics)
                        or real_frame(self, name, **k))
    scored.clear(), derived.clear(), checked.clear()  # the sample set the dashboard opened on (scored here unless read from disk)
    reports._load_statistics().join(timeout=10)  # once per server: the sample set's completion (if it was scored here)
    reports._load_statistics.clear(), warmed.clear()
    at.file_uploader(key="up_hyps").set_value([lines_file("a.txt", de_lines("newstest2021.en-de.UEdin.txt")),
                                                lines_file("b.txt", de_lines("newstest2021.en-de.Online-W.txt"))])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert scored[-1] == (False, None)  # the upload: every metric but the derived ones, and no check yet
    assert len(checked) == 1 and checked[0] > 0  # the checks ran once, after the first pass drew the page
    assert len(derived) == 1 and derived[0] > 0  # derived once, after the first pass drew the page's tables
    assert pages[0] is False and pages[-1] is True  # the first pass without predicted MQM, the last with it
    assert "predicted_mqm" in table_with(at, "otem", "bleu").columns
    reports._load_statistics().join(timeout=10)  # scipy.stats is imported in the background once it is complete
    assert warmed == [len(pages)], (warmed, pages)  # once, after the last pass drew the page


def test_what_a_page_keeps_on_the_context_is_the_completed_reports_after_completion():
    """The first report and the report completed from it share one scoring context, so what a page keeps there
    names the report's metrics: the Overview's significance and the queue computed on the first report (no
    predicted MQM) are not handed to the completed one (it showed the significance without predicted MQM when the
    first page drew before the derivation: an upload, or a folder not yet on disk)."""
    from mtdiag.views import overview, segments

    first = evaluate(load_folder(DE).without_judgements(), Options(), derive=False)
    chosen = {"baseline": first.evalset.systems[0], "method": "bs", "samples": 200, "seed": 1}
    assert "predicted_mqm" not in overview.baseline_significance(first, chosen).index.get_level_values("metric")
    assert "predicted_mqm" not in segments.queue(first).columns
    done = with_derived(first)
    assert done.context is first.context
    assert "predicted_mqm" in overview.baseline_significance(done, chosen).index.get_level_values("metric")
    assert "predicted_mqm" in segments.queue(done).columns

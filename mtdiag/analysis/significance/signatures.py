"""sacrebleu-style signatures of paired tests: the resampling fields and the mtdiag version."""

from __future__ import annotations

import pandas as pd

from mtdiag import __version__
from mtdiag.metrics import Signature

def resampling_fields(method: str, n: int, seed: int | None, n_confidence: int = 0) -> tuple[tuple[str, str], ...]:
    """sacrebleu's signature fields for a paired test: ``bs:1000|seed:12345`` or ``[bs:1000|]ar:10000|seed:12345``."""
    seed_field = ("seed", "none" if seed is None else str(seed))
    if method == "bs":
        return (("bs", str(n)), seed_field)
    confidence = (("bs", str(n_confidence)),) if n_confidence and n_confidence > 0 else ()
    return (*confidence, ("ar", str(n)), seed_field)


def resampling_signature(signature: Signature, method: str, n: int, seed: int | None,
                         n_confidence: int = 0) -> Signature:
    """A metric signature with the resampling fields added where sacrebleu puts them.

    They go after ``nrefs``; without it, before ``version``, else at the end. The signature names the mtdiag version
    (:func:`with_version`)."""
    return with_version(signature.with_fields(resampling_fields(method, n, seed, n_confidence), after="nrefs"))


def with_version(signature: Signature) -> Signature:
    """``signature`` with an ``mtdiag:VERSION`` field appended unless its ``version`` is this mtdiag's."""
    if signature.get("version") == f"mtdiag-{__version__}" or signature.get("mtdiag") == __version__:
        return signature
    last = signature.fields[-1][0] if signature.fields else None
    return signature.with_fields([("mtdiag", __version__)], after=last)


def report_signatures(report, comparison: pd.DataFrame | None = None) -> dict[str, str]:
    """``{metric: signature}`` of a report's scores, formatted.

    With the resampling fields when ``comparison`` (a frame from :func:`significance`) is given, and always naming the
    mtdiag version."""
    if comparison is not None and comparison.attrs.get("signatures"):
        return dict(comparison.attrs["signatures"])
    return {metric: with_version(sig).format() for metric, sig in report.signatures().items()}

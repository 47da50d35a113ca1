"""The compiled TER kernel: sacrebleu's beam edit distance and greedy shift search (``lib_ter.py``), per pair.

:mod:`mtdiag.metrics.ter_engine` says what is computed and why the results equal sacrebleu's; this module holds
the per-segment algorithm as plain Python that numba compiles on first use (:func:`batch_kernel`). numba is
imported there, lazily, so importing :mod:`mtdiag` stays fast.
"""

from __future__ import annotations

import math
import threading
from functools import cache

import numpy as np

BEAM_WIDTH = 25
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
MAX_SHIFT_CANDIDATES = 1000

# The compiled kernel. Each function below is plain Python that batch_kernel() compiles in place with numba: the
# module-level name is replaced by its dispatcher, so compiled callers resolve compiled callees (numba reads
# globals at compile time) and numba's on-disk cache (cache=True) can be reused by later processes (functions
# defined inside batch_kernel() would capture their callees as closure variables, which defeats that cache).

_INF = 1e16  # sacrebleu's _INT_INFINITY: a cell outside the band; costs are >= 0, so nothing built on it is less
_OP_NOP, _OP_SUB, _OP_INS, _OP_DEL, _OP_UNDEF = 0, 1, 2, 3, 4  # ins: a reference word; del: a hypothesis word
_COMPILED = (
    "_beam_geometry", "_fill_row", "_alignment", "_perform_shift", "_shifted_distance", "_suffix_distances",
    "_best_shift",
    "_pair_edits", "_batch",
)


_KERNEL_LOCK = threading.Lock()


@cache
def batch_kernel():
    """Compile the kernel (or load it from numba's cache) on first use; returns :func:`_batch`.

    Thread-safe (slices are scored on several threads) and compiled ``nogil``, so those threads really run on several
    cores."""
    from numba import njit

    with _KERNEL_LOCK:
        namespace = globals()
        for name in _COMPILED:
            if not hasattr(namespace[name], "py_func"):
                namespace[name] = njit(cache=True, nogil=True)(namespace[name])
        return namespace["_batch"]


def _beam_geometry(n_h, n_r, lo, hi):
    # BeamEditDistance._edit_distance: the band [lo[i], hi[i]) of row i; row 0 and the last row are full.
    ratio = n_r / n_h if n_h > 0 else 1.0
    width = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    lo[0] = 0
    hi[0] = n_r + 1
    for i in range(1, n_h + 1):
        diag = math.floor(i * ratio)
        lo[i] = max(0, diag - width)
        hi[i] = min(n_r + 1, diag + width)
    hi[n_h] = n_r + 1


def _fill_row(prev, plo, phi, cur, lo, hi, ops, word, ref, cost):
    # One row of the beam edit distance: cells of the previous row outside [plo, phi) and of this row left of lo
    # are infinite (written as sentinels into prev, outside its band, so the loop needs no bounds tests). Strict
    # "<" in sacrebleu's order: match/substitution, deletion, insertion. Returns the row's minimum, a lower bound
    # of the final distance (costs are >= 0, and every path crosses every row).
    for j in range(phi, hi):
        prev[j] = _INF
    if 0 < lo == plo:
        prev[lo - 1] = _INF
    row_min = _INF
    left = _INF
    start = lo
    if lo == 0:
        left = prev[0] + 1.0
        cur[0] = left
        ops[0] = _OP_DEL
        row_min = left
        start = 1
    for j in range(start, hi):
        best = _INF
        op = _OP_UNDEF
        value = prev[j - 1]
        if word == ref[j - 1]:
            if best > value:
                best = value
                op = _OP_NOP
        else:
            value += cost[j - 1]
            if best > value:
                best = value
                op = _OP_SUB
        value = prev[j] + 1.0
        if best > value:
            best = value
            op = _OP_DEL
        value = left + cost[j - 1]
        if best > value:
            best = value
            op = _OP_INS
        cur[j] = best
        ops[j] = op
        left = best
        if best < row_min:
            row_min = best
    return row_min


def _alignment(ops, n_h, n_r, trace, align, hyp_err, ref_err):
    # Backtrace, then trace_to_alignment on the flipped trace: align[r] = hypothesis position of reference word r
    # (or of the last hypothesis word before it), and prefix sums of the hypothesis / reference error flags.
    i = n_h
    j = n_r
    t = 0
    while i > 0 or j > 0:
        op = ops[i, j]
        trace[t] = op
        t += 1
        if op == _OP_NOP or op == _OP_SUB:
            i -= 1
            j -= 1
        elif op == _OP_INS:
            j -= 1
        elif op == _OP_DEL:
            i -= 1
        else:
            raise RuntimeError("TER: the beam edit distance trace left the band (sacrebleu fails here too)")
    pos_h = -1
    pos_r = -1
    hyp_err[0] = 0
    ref_err[0] = 0
    for k in range(t - 1, -1, -1):
        op = trace[k]
        if op == _OP_NOP or op == _OP_SUB:
            err = 1 if op == _OP_SUB else 0
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            hyp_err[pos_h + 1] = hyp_err[pos_h] + err
            ref_err[pos_r + 1] = ref_err[pos_r] + err
        elif op == _OP_DEL:
            pos_h += 1
            hyp_err[pos_h + 1] = hyp_err[pos_h] + 1
        else:
            pos_r += 1
            align[pos_r] = pos_h
            ref_err[pos_r + 1] = ref_err[pos_r] + 1


def _perform_shift(words, n, start, length, target, out):
    # sacrebleu's _perform_shift, including its Python slice clipping in the "target within the block" case.
    if target < start:
        bounds = ((0, target), (start, start + length), (target, start), (start + length, n))
    elif target > start + length:
        bounds = ((0, start), (start + length, target), (start, start + length), (target, n))
    else:
        mid = min(n, length + target)
        bounds = ((0, start), (start + length, mid), (start, start + length), (mid, n))
    k = 0
    for a, b in bounds:
        for m in range(a, b):
            out[k] = words[m]
            k += 1


def _shifted_distance(words, out, n_h, first, dist, lo, hi, rows, scratch_ops, ref, n_r, cost, suffix, unit, found,
                      best_gain):
    # Edit distance of `out`, reusing the rows of `words` (in dist) up to the first word that differs. _INF as
    # soon as a row's minimum (a lower bound) shows that the gain pre_score - distance cannot reach best_gain
    # (or, with nothing found yet, cannot be positive): such a shift cannot be chosen, see _best_shift.
    # Float subtraction is monotone, so the bound holds for the rounded gains too.
    # With unit costs, rows stop after the last word that differs (row e): from there on `out` is `words`, and the
    # distance is min_j(row e[j] + suffix[e, j]), suffix being the in-band distances of `words` from (e, j) to the
    # end (_suffix_distances) — the same paths, and integers, so exactly the value the remaining rows would give.
    pre_score = dist[n_h, n_r]
    k = first
    while k < n_h and out[k] == words[k]:
        k += 1
    if k == n_h:
        return dist[n_h, n_r]
    e = n_h
    if unit:
        while out[e - 1] == words[e - 1]:
            e -= 1
    prev = dist[k]
    for i in range(k + 1, e + 1):
        cur = rows[i & 1]
        row_min = _fill_row(prev, lo[i - 1], hi[i - 1], cur, lo[i], hi[i], scratch_ops, out[i - 1], ref, cost)
        gain_bound = pre_score - row_min
        if gain_bound < best_gain or not found and gain_bound <= 0:
            return _INF
        prev = cur
    if e == n_h:
        return prev[n_r]
    best = _INF
    for j in range(lo[e], hi[e]):
        value = prev[j] + suffix[e, j]
        if value < best:
            best = value
    return best


def _suffix_distances(words, n_h, ref, n_r, cost, lo, hi, suffix):
    # suffix[i, j]: the cheapest path from cell (i, j) to (n_h, n_r) through the cells of the beam band, with the
    # moves of _fill_row read backwards (match/substitution to (i+1, j+1), deletion of hypothesis word i to
    # (i+1, j), insertion of reference word j to (i, j+1)). Cells outside the band are never read.
    for i in range(n_h, -1, -1):
        for j in range(hi[i] - 1, lo[i] - 1, -1):
            if i == n_h and j == n_r:
                suffix[i, j] = 0.0
                continue
            best = _INF
            if i < n_h:
                if j < n_r and lo[i + 1] <= j + 1 < hi[i + 1]:
                    value = suffix[i + 1, j + 1] + (0.0 if words[i] == ref[j] else cost[j])
                    if value < best:
                        best = value
                if lo[i + 1] <= j < hi[i + 1]:
                    value = suffix[i + 1, j] + 1.0
                    if value < best:
                        best = value
            if j < n_r and j + 1 < hi[i]:
                value = suffix[i, j + 1] + cost[j]
                if value < best:
                    best = value
            suffix[i, j] = best


def _best_shift(words, n_h, ref, n_r, cost, dist, lo, hi, align, hyp_err, ref_err, out, rows, scratch_ops, suffix,
                unit, checked):
    # sacrebleu's _shift over _find_shifted_pairs; returns (found, gain, length, start, target, checked).
    # Only a shift with a positive gain is ever applied, so only those are kept ("found"): the distances of the
    # others need not be exact, and neither do those of shifts with a smaller gain than the best so far.
    pre_score = dist[n_h, n_r]
    found = False
    best_gain = 0.0
    best_len = 0
    best_start = 0
    best_target = 0
    for start_h in range(n_h):
        for start_r in range(n_r):
            if abs(start_r - start_h) > MAX_SHIFT_DIST:
                continue
            length = 0
            while words[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                if (
                    hyp_err[start_h + length] != hyp_err[start_h]
                    and ref_err[start_r + length] != ref_err[start_r]
                    and not (start_h <= align[start_r] < start_h + length)
                ):
                    prev_idx = -1
                    for offset in range(-1, length):
                        idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                        if idx == prev_idx:
                            continue
                        prev_idx = idx
                        _perform_shift(words, n_h, start_h, length, idx, out)
                        gain = pre_score - _shifted_distance(
                            words, out, n_h, min(start_h, idx), dist, lo, hi, rows, scratch_ops, ref, n_r, cost,
                            suffix, unit, found, best_gain,
                        )
                        checked += 1
                        # sacrebleu ranks the tuple (gain, length, -start_h, -idx); equal tuples are the same shift
                        if gain > 0 and (
                            not found
                            or gain > best_gain
                            or gain == best_gain
                            and (
                                length > best_len
                                or length == best_len
                                and (start_h < best_start or start_h == best_start and idx < best_target)
                            )
                        ):
                            found = True
                            best_gain = gain
                            best_len = length
                            best_start = start_h
                            best_target = idx
                    if checked >= MAX_SHIFT_CANDIDATES:
                        return found, best_gain, best_len, best_start, best_target, checked
                if n_h == start_h + length or n_r == start_r + length:
                    break
    return found, best_gain, best_len, best_start, best_target, checked


def _pair_edits(hyp, ref, cost, dist, ops, lo, hi, words, out, rows, scratch_ops, trace, align, hyp_err, ref_err,
                suffix):
    # sacrebleu's translation_edit_rate for one pair: shift while the best shift lowers the distance.
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    if n_r == 0:
        return float(n_h)
    _beam_geometry(n_h, n_r, lo, hi)
    dist[0, 0] = 0.0
    ops[0, 0] = _OP_INS
    for j in range(1, n_r + 1):
        dist[0, j] = dist[0, j - 1] + cost[j - 1]
        ops[0, j] = _OP_INS
    words[:n_h] = hyp
    unit = True  # every reference word costs 1 (plain TER): the suffix shortcut of _shifted_distance is exact
    for j in range(n_r):
        if cost[j] != 1.0:
            unit = False
    first_row = 1
    shifts = 0
    checked = 0
    while True:
        for i in range(first_row, n_h + 1):
            _fill_row(dist[i - 1], lo[i - 1], hi[i - 1], dist[i], lo[i], hi[i], ops[i], words[i - 1], ref, cost)
        _alignment(ops, n_h, n_r, trace, align, hyp_err, ref_err)
        if unit:
            _suffix_distances(words, n_h, ref, n_r, cost, lo, hi, suffix)
        found, gain, length, start, target, checked = _best_shift(
            words, n_h, ref, n_r, cost, dist, lo, hi, align, hyp_err, ref_err, out, rows, scratch_ops, suffix, unit,
            checked,
        )
        if checked >= MAX_SHIFT_CANDIDATES or not found:
            break
        shifts += 1
        _perform_shift(words, n_h, start, length, target, out)
        k = min(start, target)
        while out[k] == words[k]:
            k += 1
        words[:n_h] = out[:n_h]
        first_row = k + 1
    return shifts + dist[n_h, n_r]


def _batch(hyp_tokens, hyp_offsets, ref_tokens, ref_offsets, ref_costs, pair_hyp, pair_ref):
    # Edits of every (hypothesis, reference) pair; work buffers are allocated once for the largest pair.
    n_pairs = pair_hyp.shape[0]
    max_h = 0
    max_r = 0
    for p in range(n_pairs):
        max_h = max(max_h, hyp_offsets[pair_hyp[p] + 1] - hyp_offsets[pair_hyp[p]])
        max_r = max(max_r, ref_offsets[pair_ref[p] + 1] - ref_offsets[pair_ref[p]])
    dist = np.empty((max_h + 1, max_r + 1), dtype=np.float64)
    suffix = np.empty((max_h + 1, max_r + 1), dtype=np.float64)
    ops = np.empty((max_h + 1, max_r + 1), dtype=np.int8)
    lo = np.empty(max_h + 1, dtype=np.int64)
    hi = np.empty(max_h + 1, dtype=np.int64)
    words = np.empty(max_h, dtype=np.int64)
    out = np.empty(max_h, dtype=np.int64)
    rows = np.empty((2, max_r + 1), dtype=np.float64)
    scratch_ops = np.empty(max_r + 1, dtype=np.int8)
    trace = np.empty(max_h + max_r, dtype=np.int8)
    align = np.empty(max_r, dtype=np.int64)
    hyp_err = np.empty(max_h + 1, dtype=np.int64)
    ref_err = np.empty(max_r + 1, dtype=np.int64)
    result = np.empty(n_pairs, dtype=np.float64)
    for p in range(n_pairs):
        h0, h1 = hyp_offsets[pair_hyp[p]], hyp_offsets[pair_hyp[p] + 1]
        r0, r1 = ref_offsets[pair_ref[p]], ref_offsets[pair_ref[p] + 1]
        result[p] = _pair_edits(
            hyp_tokens[h0:h1], ref_tokens[r0:r1], ref_costs[r0:r1], dist, ops, lo, hi, words, out, rows,
            scratch_ops, trace, align, hyp_err, ref_err, suffix,
        )
    return result

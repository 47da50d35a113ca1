#!/usr/bin/env python3
"""Assemble a development copy of WMT23 in the mt-metrics-eval layout from public pieces (issue 44).

The official release (the mt-metrics-eval GCS tarball) cannot be downloaded here, and the one GitHub repository
that vendors it whole (zhangr2021/mt-metrics-eval, 787 MB) is over the snapshot limit. This script builds the
most complete folder it can from snapshots fetched with the search tool's ``fetch`` (git directories under
``/work/.mirror/OWNER+NAME/repo``) and from small files transcribed by hand (``--transcribed``):

  wmt-conference/wmt23-news-systems    sources, references, system outputs (``txt/``: the general test set,
                                       line for line the release's; the ``xml/`` files are >= 4 MiB, absent)
  google/wmt-mqm-human-evaluation      SxS MQM re-annotation of WMT23 en-de / zh-en (3 raters, error spans)
                                       -> human type ``mqm-sxs`` (not the official WMT23 MQM)
  SapienzaNLP/human-parity-mt-eval     MQM of the triple-rated WMT23 items, one rater "column" each
                                       -> human types ``mqm-col1..3`` (+ ``mqm-colN-more`` for en-de);
                                       MetricX-23-XXL / -QE-XXL seg scores (public checkpoints, not the
                                       WMT23 submission) -> ``MetricX-23-XXL-refA``, ``MetricX-23-QE-XXL-src``
  SapienzaNLP/guardians-mt-eval        sentinel metrics (Perrella et al. 2024) -> ``SENTINEL-*``
  --transcribed DIR                    official release files copied from zhangr2021/mt-metrics-eval
                                       (commit b42f97d7) with read_file, checked against their length:
                                       en-de.docs, LP.mqm.sys.score, en-de metric .sys.score files
  computed here                        BLEU-refX and chrF-refX seg/sys with sacrebleu (as the release does)

Nothing here is fitted or tuned on the data. Every value is copied, converted or recomputed; PROVENANCE.md in
the output says which file came from where and what is missing.

    python scripts/devdata/mt_metrics_eval.py [--out /work/devdata/mt-metrics-eval] [--mirror /work/.mirror]
        [--transcribed /work/devdata/transcribed] [--lps en-de,zh-en,he-en]
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

NEWS = 'wmt-conference+wmt23-news-systems'
MQM_HE = 'google+wmt-mqm-human-evaluation'
PARITY = 'SapienzaNLP+human-parity-mt-eval'
GUARD = 'SapienzaNLP+guardians-mt-eval'

TGT = {'en-de': 'de', 'zh-en': 'en', 'he-en': 'en'}
SRC = {'en-de': 'en', 'zh-en': 'zh', 'he-en': 'he'}
REFS = {'en-de': ['refA'], 'zh-en': ['refA'], 'he-en': ['refA', 'refB']}
SXS = {'en-de': 'ende', 'zh-en': 'zhen'}

# Google MQM weights (mt-metrics-eval converters/score_mqm.py defaults); "Source issue" and the
# hands-on-the-wheel attention checks (severity HOTW-test) do not count.
def mqm_weight(severity: str, category: str) -> float:
    sev, cat = severity.lower(), category.lower()
    if sev in ('no-error', 'neutral', 'hotw-test') or cat.startswith('source'):
        return 0.0
    if sev == 'major':
        return 25.0 if cat.startswith('non-translation') else 5.0
    if sev == 'minor':
        return 0.1 if cat == 'fluency/punctuation' else 1.0
    return 0.0


class _NoGlobals(pickle.Unpickler):
    """The fetched pickles hold only dicts, lists and floats; refuse anything that would run code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f'refused global {module}.{name}')


class Mirror:
    def __init__(self, root: Path, name: str):
        self.git_dir = root / name / 'repo'
        self.name = name
        if not self.git_dir.is_dir():
            raise SystemExit(f'{self.git_dir}: not found; fetch github:{name.replace("+", "/")} first')

    def blob(self, path: str) -> bytes:
        res = subprocess.run(['git', '--git-dir', str(self.git_dir), 'show', f'HEAD:{path}'],
                             capture_output=True)
        if res.returncode:
            raise FileNotFoundError(f'{self.name}:{path}: {res.stderr.decode().strip()}')
        return res.stdout

    def text(self, path: str) -> str:
        return self.blob(path).decode('utf-8')

    def lines(self, path: str) -> list[str]:
        t = self.text(path)
        return t[:-1].split('\n') if t.endswith('\n') else t.split('\n')

    def ls(self, prefix: str) -> list[str]:
        res = subprocess.run(['git', '--git-dir', str(self.git_dir), 'ls-tree', '-r', '--name-only', 'HEAD',
                              prefix], capture_output=True, text=True, check=True)
        return res.stdout.split()

    def pickle(self, path: str):
        return _NoGlobals(io.BytesIO(self.blob(path))).load()


def write_lines(path: Path, lines: list[str]):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(''.join(f'{x}\n' for x in lines), encoding='utf-8')


def fmt(v) -> str:
    return 'None' if v is None else repr(float(v))


def write_seg(path: Path, scores: dict[str, list], order: list[str]):
    write_lines(path, [f'{s}\t{fmt(v)}' for s in order if s in scores for v in scores[s]])


def write_sys(path: Path, scores: dict[str, float]):
    write_lines(path, [f'{s}\t{fmt(v)}' for s, v in scores.items()])


def mean_sys(seg: dict[str, list]) -> dict[str, float]:
    out = {}
    for s, vals in seg.items():
        vals = [v for v in vals if v is not None]
        if vals:
            out[s] = sum(vals) / len(vals)
    return out


class Builder:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out) / 'wmt23'
        self.mirror = Path(args.mirror)
        self.transcribed = Path(args.transcribed) / 'wmt23' if args.transcribed else None
        self.prov = collections.defaultdict(list)  # lp -> lines
        self.missing = collections.defaultdict(list)

    def note(self, lp, what, src):
        self.prov[lp].append(f'| `{what}` | {src} |')

    # ---- texts ---------------------------------------------------------------------------------------------
    def texts(self, lp):
        news = Mirror(self.mirror, NEWS)
        base = 'txt'
        src = news.lines(f'{base}/sources/generaltest2023.{lp}.src.{SRC[lp]}')
        write_lines(self.out / 'sources' / f'{lp}.txt', src)
        self.note(lp, f'sources/{lp}.txt', f'{NEWS} `{base}/sources/` ({len(src)} lines)')
        refs = {}
        for r in REFS[lp]:
            refs[r] = news.lines(f'{base}/references/generaltest2023.{lp}.ref.{r}.{TGT[lp]}')
            assert len(refs[r]) == len(src), (lp, r)
            write_lines(self.out / 'references' / f'{lp}.{r}.txt', refs[r])
            # The release also lists every reference among the system outputs (a "human" output).
            write_lines(self.out / 'system-outputs' / lp / f'{r}.txt', refs[r])
        outs = {}
        for p in news.ls(f'{base}/system-outputs/'):
            m = re.match(rf'.*/generaltest2023\.{lp}\.hyp\.(.+)\.{TGT[lp]}$', p)
            if m:
                outs[m.group(1)] = news.lines(p)
                assert len(outs[m.group(1)]) == len(src), (lp, p)
                write_lines(self.out / 'system-outputs' / lp / f'{m.group(1)}.txt', outs[m.group(1)])
        self.note(lp, f'references/{lp}.ref*.txt, system-outputs/{lp}/*.txt',
                  f'{NEWS} `{base}/` ({len(outs)} systems; references copied in as system outputs too)')
        self.missing[lp].append('`system-outputs/%s/synthetic_ref.txt` (a release-only output; the release '
                                'scores it, WMT23 treats it as an outlier and leaves it out)' % lp)
        self.src, self.refs, self.outs = src, refs, outs
        return src, refs, outs

    # ---- transcribed official files ---------------------------------------------------------------------------
    def transcribed_files(self, lp):
        if not self.transcribed:
            return
        t = self.transcribed
        for sub, pat in [('documents', f'{lp}.docs'), ('human-scores', f'{lp}.*'), (f'metric-scores/{lp}', '*')]:
            d = t / sub
            for f in sorted(d.glob(pat)) if d.is_dir() else []:
                if f.is_file():
                    dest = self.out / sub / f.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(f, dest)
                    self.note(lp, f'{sub}/{f.name}',
                              'official release file, transcribed from zhangr2021/mt-metrics-eval @b42f97d7 '
                              '(length checked)')
        if not (self.out / 'documents' / f'{lp}.docs').exists():
            self.missing[lp].append(f'`documents/{lp}.docs` (only in the 787 MB vendored release and the absent xml/)')

    # ---- human scores --------------------------------------------------------------------------------------------
    def parity_cols(self, lp):
        m = Mirror(self.mirror, PARITY)
        names = [p.rsplit('/', 1)[1] for p in m.ls(f'data/annotations/wmt23/{lp}/') if p.endswith('.pickle')]
        for n in sorted(names):
            col = re.match(r'mqm-col(\d)(_more_data)?\.pickle', n)
            if not col:
                continue
            kind = f'mqm-col{col.group(1)}' + ('-more' if col.group(2) else '')
            seg = m.pickle(f'data/annotations/wmt23/{lp}/{n}')
            order = sorted(seg)
            assert all(len(v) == len(self.src) for v in seg.values())
            write_seg(self.out / 'human-scores' / f'{lp}.{kind}.seg.score', seg, order)
            write_sys(self.out / 'human-scores' / f'{lp}.{kind}.sys.score', mean_sys(seg))
            rated = sum(v is not None for v in seg[order[0]])
            self.note(lp, f'human-scores/{lp}.{kind}.{{seg,sys}}.score',
                      f'{PARITY} `data/annotations/wmt23/{lp}/{n}`: MQM of one rater column on the triple-rated '
                      f'items ({rated} of {len(self.src)} segments rated per system, None elsewhere); sys = mean of '
                      'the rated segments')

    def sxs(self, lp):
        if lp not in SXS:
            return
        m = Mirror(self.mirror, MQM_HE)
        tag = SXS[lp]
        raw = m.blob(f'generalMT2023/{tag}/sxs_mqm_generalMT2023_{tag}.3ratingsPerSegment.tsv.tar.gz')
        with tarfile.open(fileobj=io.BytesIO(raw)) as tf:
            member = next(x for x in tf.getmembers() if x.name.endswith('.tsv'))
            data = tf.extractfile(member).read().decode('utf-8')
        csv.field_size_limit(1 << 30)
        rows = list(csv.reader(io.StringIO(data), delimiter='\t', quoting=csv.QUOTE_NONE))
        head = {k: i for i, k in enumerate(rows[0])}
        clean = lambda s: re.sub(r'</?v>', '', s)
        # (doc, docSegId) -> line: match the source text, in document order, to the source file.
        where = collections.defaultdict(list)
        for i, s in enumerate(self.src):
            where[s.strip()].append(i)
        seg_of = {}
        unmatched = set()
        for r in rows[1:]:
            key = (r[head['doc']], int(r[head['docSegId']]))
            if key in seg_of or key in unmatched:
                continue
            hits = where.get(clean(r[head['source']]).strip(), [])
            if len(hits) >= 1:
                seg_of[key] = hits[0] if len(hits) == 1 else min(hits)
            else:
                unmatched.add(key)
        # (system, line, rater) -> [errors]
        ratings = collections.defaultdict(list)
        seen = set()
        skipped_sys = collections.Counter()
        for r in rows[1:]:
            system = r[head['system']]
            if system not in self.outs and system not in self.refs:
                skipped_sys[system] += 1
                continue
            key = (r[head['doc']], int(r[head['docSegId']]))
            if key not in seg_of:
                continue
            line, rater = seg_of[key], r[head['rater']]
            sev, cat = r[head['severity']], r[head['category']]
            item = (system, line, rater)
            seen.add(item)
            if sev in ('No-error', 'HOTW-test'):
                continue
            target = r[head['target']]
            side_src = cat.lower().startswith('source')
            text = r[head['source']] if side_src else target
            mt = re.search(r'<v>(.*?)</v>', text, flags=re.S)
            start = len(clean(text[:mt.start()])) if mt else 0
            end = start + len(mt.group(1)) if mt else 0
            ratings[item].append({'start': start, 'end': end, 'category': cat, 'severity': sev,
                                  'score': -mqm_weight(sev, cat), 'is_source_error': side_src})
        systems = sorted({s for s, _, _ in seen})
        seg = {s: [None] * len(self.src) for s in systems}
        rat = {s: [None] * len(self.src) for s in systems}
        per_item = collections.defaultdict(list)
        for (s, line, rater) in seen:
            per_item[(s, line)].append(rater)
        for (s, line), raters in per_item.items():
            totals = [sum(e['score'] for e in ratings[(s, line, rt)]) for rt in sorted(raters)]
            seg[s][line] = sum(totals) / len(totals)
            rat[s][line] = ({'errors': [e for rt in sorted(raters) for e in ratings[(s, line, rt)]]},
                            ','.join(sorted(raters)))
        write_seg(self.out / 'human-scores' / f'{lp}.mqm-sxs.seg.score', seg, systems)
        write_sys(self.out / 'human-scores' / f'{lp}.mqm-sxs.sys.score', mean_sys(seg))
        lines = []
        for s in systems:
            for v in rat[s]:
                lines.append(f'{s}\tNone' if v is None else f'{s}\t{json.dumps(v[0], ensure_ascii=False)}\t{v[1]}')
        write_lines(self.out / 'human-scores' / f'{lp}.mqm-sxs.merged.seg.rating', lines)
        n_items = sum(1 for s in systems for v in seg[s] if v is not None)
        self.note(lp, f'human-scores/{lp}.mqm-sxs.{{seg.score,sys.score,merged.seg.rating}}',
                  f'{MQM_HE} `generalMT2023/{tag}/sxs_mqm_...3ratingsPerSegment.tsv.tar.gz` (a 2024 side-by-side '
                  f'MQM re-annotation, 3 raters per item, not the WMT23 MQM): {len(systems)} systems, {n_items} '
                  f'rated items, score = -mean over raters of summed Google weights; pair-context pseudo-systems '
                  f'skipped: {dict(skipped_sys) or "none"}; unmatched segments: {len(unmatched)}; span '
                  'offsets count characters of the SxS target text without its <v> marks, which can differ from '
                  'the system output in whitespace (a few spans end past the line)')

    # ---- metric scores -------------------------------------------------------------------------------------------
    def sacrebleu_metrics(self, lp):
        import sacrebleu
        tok = 'zh' if TGT[lp] == 'zh' else ('ja-mecab' if TGT[lp] == 'ja' else '13a')
        all_outputs = dict(self.outs)
        all_outputs.update(self.refs)
        for r, ref in self.refs.items():
            hyps = {s: o for s, o in all_outputs.items() if s != r}
            for name in ('BLEU', 'chrF'):
                seg, sysd = {}, {}
                for s, hyp in hyps.items():
                    if name == 'BLEU':
                        seg[s] = [sacrebleu.sentence_bleu(h, [x], tokenize=tok).score for h, x in zip(hyp, ref)]
                        sysd[s] = sacrebleu.corpus_bleu(hyp, [ref], tokenize=tok).score
                    else:
                        seg[s] = [sacrebleu.sentence_chrf(h, [x]).score for h, x in zip(hyp, ref)]
                        sysd[s] = sacrebleu.corpus_chrf(hyp, [ref]).score
                d = self.out / 'metric-scores' / lp
                official = d / f'{name}-{r}.sys.score'
                if official.exists():  # transcribed release value: keep it, report the difference
                    got = {l.split('\t')[0]: float(l.split('\t')[1]) for l in official.read_text().split('\n') if l}
                    diffs = [abs(got[s] - sysd[s]) for s in got if s in sysd]
                    self.note(lp, f'metric-scores/{lp}/{name}-{r}.seg.score',
                              f'computed with sacrebleu {sacrebleu.__version__} (sentence_{name.lower()} defaults, '
                              f'tokenize={tok}); its corpus score matches the release .sys.score to '
                              f'max |diff| {max(diffs):.2e} over {len(diffs)} systems')
                else:
                    write_sys(official, sysd)
                    self.note(lp, f'metric-scores/{lp}/{name}-{r}.{{seg,sys}}.score',
                              f'computed with sacrebleu {sacrebleu.__version__} (tokenize={tok})')
                write_seg(d / f'{name}-{r}.seg.score', seg, sorted(seg))

    def pickled_metrics(self, lp):
        m = Mirror(self.mirror, PARITY)
        for folder, name in [('MetricX-23-XXL', 'MetricX-23-XXL-refA'), ('MetricX-23-QE-XXL', 'MetricX-23-QE-XXL-src')]:
            base = f'data/metrics_outputs/wmt23/{lp}/{folder}'
            try:
                seg = m.pickle(f'{base}/seg_scores.pickle')
                sysd = {k: v[0] for k, v in m.pickle(f'{base}/sys_scores.pickle').items()}
            except FileNotFoundError:
                continue
            write_seg(self.out / 'metric-scores' / lp / f'{name}.seg.score', seg, sorted(seg))
            write_sys(self.out / 'metric-scores' / lp / f'{name}.sys.score', sysd)
            self.note(lp, f'metric-scores/{lp}/{name}.{{seg,sys}}.score',
                      f'{PARITY} `{base}/` (public MetricX-23 XXL checkpoints run by Proietti et al. 2025; '
                      'not the WMT23 MetricX-23 submission, whose sys scores differ)')
        g = Mirror(self.mirror, GUARD)
        for kind in ('CAND', 'SRC', 'REF'):
            for gold in ('MQM', 'DA'):
                base = f'data/metrics_results/metrics_outputs/wmt23/{lp}/SENTINEL_{kind}_{gold}'
                name = f'SENTINEL-{kind}-{gold}-' + ('refA' if kind == 'REF' else 'src')
                try:
                    seg = g.pickle(f'{base}/seg_scores.pickle')
                    sysd = {k: v[0] for k, v in g.pickle(f'{base}/sys_scores.pickle').items()}
                except FileNotFoundError:
                    continue
                write_seg(self.out / 'metric-scores' / lp / f'{name}.seg.score', seg, sorted(seg))
                write_sys(self.out / 'metric-scores' / lp / f'{name}.sys.score', sysd)
                self.note(lp, f'metric-scores/{lp}/{name}.{{seg,sys}}.score', f'{GUARD} `{base}/`')

    def run(self):
        if self.out.exists():
            shutil.rmtree(self.out)
        for lp in self.args.lps.split(','):
            self.texts(lp)
            self.transcribed_files(lp)
            self.parity_cols(lp) if lp in ('en-de', 'zh-en') else None
            self.sxs(lp)
            self.sacrebleu_metrics(lp)
            self.pickled_metrics(lp)
            print(f'{lp}: done', file=sys.stderr)
        self.provenance()

    def provenance(self):
        out = ['# Provenance of this development copy of WMT23 (mt-metrics-eval layout)', '',
               'Built by `scripts/devdata/mt_metrics_eval.py` (mtdiag, branch data44). Not the official release: '
               'see what is missing per language pair. Do not commit this folder.', '']
        for lp in self.prov:
            out += [f'## {lp}', '', '| file(s) | from |', '|---|---|'] + self.prov[lp] + ['', 'Missing:', '']
            out += [f'- {x}' for x in self.missing[lp]]
            out += ['- human `mqm.seg.score` / `mqm.*.seg.rating` (official WMT23 MQM per segment, and its error '
                    'spans): only in the vendored release (zhangr2021/mt-metrics-eval, 787 MB > 500 MiB snapshot '
                    'limit); the google/wmt-mqm-human-evaluation `mqm_generalMT2023_*.tsv` are >= 4 MiB, absent',
                    '- human `da-sqm.seg.score` (wmt23-news-systems `humaneval/DA+SQM/WMT23.scores_all.csv` is >= 4 '
                    'MiB, absent)',
                    '- seg-level scores of the ~35 submitted metrics (XCOMET, MetricX-23, CometKiwi, GEMBA-MQM, ...): '
                    'only in the vendored release', '']
        (self.out.parent / 'PROVENANCE.md').write_text('\n'.join(out) + '\n', encoding='utf-8')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', default='/work/devdata/mt-metrics-eval')
    ap.add_argument('--mirror', default='/work/.mirror', help='folder holding OWNER+NAME/repo git directories')
    ap.add_argument('--transcribed', default='/work/devdata/transcribed',
                    help='folder holding wmt23/ files transcribed from the release ("" for none)')
    ap.add_argument('--lps', default='en-de,zh-en,he-en')
    Builder(ap.parse_args()).run()


if __name__ == '__main__':
    main()

"""Measure a judge against the hand-labelled agreement set (pure measurement, no scoring).

The set lives in ``capjudge/agreement/`` as JSONL, each kind split once and for all into a
``tune`` half (for developing a judge) and a held-out ``test`` half (for reporting):

* ``difference_{tune,test}.jsonl`` — one case per line: ``items`` (a DiffCap difference
  list), ``prediction``, the human ``claims`` (expected splitting, label, item) and the
  human ``item_labels`` (forward check: correct / wrong / missed per key item);
* ``equivalence_{tune,test}.jsonl`` — ``predicted``, ``reference``, ``kind``,
  ``equivalent`` (bool).

Three levels are reported, each with accuracy, Cohen's kappa and a confusion matrix:

* **item level** (the headline for DiffCap): per key item, the forward-check label the
  judge's claims give (correct/wrong/missed) against the human one. It needs no claim
  alignment, and it is what recall is computed from.
* **claim level**: judge claims are *aligned* to human claims one-to-one, greedily by
  word overlap (share of the human claim's content words found in the judge claim,
  at least 0.5, best pairs first). An unaligned human claim counts as judge label
  ``(none)`` and an unaligned judge claim as human label ``(none)``; accuracy counts them
  as disagreements, kappa is over aligned pairs only, and the alignment rate is reported.
* **pair level**: does the pair have at least one wrong or hallucinated claim (what
  ``hallucinated_pair_rate`` counts)?

Equivalence is reported as accuracy, kappa and a 2x2 confusion matrix.

>>> cohen_kappa(["a", "a", "b", "b"], ["a", "a", "b", "a"])
0.5
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from benchcore.errors import InputError
from capjudge.protocol import DifferenceCase, EquivalenceCase, Item, Judge

AGREEMENT_DIR = Path(__file__).with_name("agreement")
REPORT_PATH = AGREEMENT_DIR / "REPORT.md"
SPLITS = ("tune", "test")
ITEM_LABELS = ("correct", "wrong", "missed")
CLAIM_LABELS_X = ("correct", "wrong", "ambiguous", "detail", "hallucination", "(none)")
NONE = "(none)"
ALIGN_MIN = 0.5


def split_of(case_id: str) -> str:
    """The half a case belongs to, fixed by its id: ``tune`` when sha256(id) is even.

    >>> split_of("dc001"), split_of("eq001")
    ('tune', 'test')
    """
    return "tune" if int(hashlib.sha256(case_id.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "test"


class AgreementSetError(InputError):
    """A line of the agreement set is malformed (the message names file and line)."""


# -- loading -------------------------------------------------------------------------------
def load_set(kind: str, split: str = "test", root: Path = AGREEMENT_DIR) -> list[dict]:
    """Rows of ``<kind>_<split>.jsonl`` (``split='all'`` reads both halves, tune first)."""
    if kind not in ("difference", "equivalence"):
        raise ValueError(f"kind must be 'difference' or 'equivalence', got {kind!r}")
    splits = SPLITS if split == "all" else (split,)
    if any(s not in SPLITS for s in splits):
        raise ValueError(f"split must be one of tune, test, all; got {split!r}")
    rows = []
    for s in splits:
        path = Path(root) / f"{kind}_{s}.jsonl"
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise AgreementSetError(f"{path}:{n}: not JSON ({e})") from None
                _check_row(kind, row, f"{path}:{n}")
                rows.append(row)
    return rows


def _check_row(kind: str, row: Any, where: str) -> None:
    need = ("id", "items", "prediction", "claims", "item_labels") if kind == "difference" else \
        ("id", "predicted", "reference", "kind", "equivalent")
    if not isinstance(row, dict):
        raise AgreementSetError(f"{where}: a row must be an object")
    missing = [k for k in need if k not in row]
    if missing:
        raise AgreementSetError(f"{where} (id {row.get('id')!r}): missing field(s) {', '.join(missing)}")


# -- statistics ----------------------------------------------------------------------------
def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa of two label sequences (1.0 when both are constant and equal; nan if empty)."""
    if len(a) != len(b):
        raise ValueError("label sequences differ in length")
    n = len(a)
    if n == 0:
        return float("nan")
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    if pe == 1.0:
        return 1.0 if po == 1.0 else 0.0
    return (po - pe) / (1 - pe)


def confusion(human: Sequence[str], judge: Sequence[str], labels: Sequence[str]) -> list[list[int]]:
    """Counts ``m[i][j]`` of human label ``labels[i]`` judged as ``labels[j]``."""
    idx = {l: i for i, l in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for h, j in zip(human, judge):
        m[idx[h]][idx[j]] += 1
    return m


def per_label(human: Sequence[str], judge: Sequence[str], labels: Iterable[str]) -> dict:
    """Precision, recall and support of each label (judge against human)."""
    out = {}
    for l in labels:
        tp = sum(h == l and j == l for h, j in zip(human, judge))
        n_j = sum(j == l for j in judge)
        n_h = sum(h == l for h in human)
        out[l] = {"precision": tp / n_j if n_j else float("nan"), "recall": tp / n_h if n_h else float("nan"), "support": n_h}
    return out


def _summary(human: Sequence[str], judge: Sequence[str], labels: Sequence[str]) -> dict:
    n = len(human)
    return {
        "n": n,
        "accuracy": sum(h == j for h, j in zip(human, judge)) / n if n else float("nan"),
        "kappa": cohen_kappa(human, judge),
        "labels": list(labels),
        "confusion": confusion(human, judge, labels),
        "per_label": per_label(human, judge, labels),
    }


# -- difference agreement ------------------------------------------------------------------
def forward_labels(items: Sequence[Item], claims: Sequence[Any]) -> dict:
    """Forward check of SPEC §1: correct if any claim is correct for a key item, else wrong, else missed."""
    out = {}
    for it in items:
        if it.ambiguous:
            continue
        ls = {_get(c, "label") for c in claims if _get(c, "item") == it.id}
        out[it.id] = "correct" if "correct" in ls else "wrong" if "wrong" in ls else "missed"
    return out


def _get(c: Any, key: str) -> Any:
    return c[key] if isinstance(c, dict) else getattr(c, key)


def _words(text: str) -> set:
    from capjudge.embedded.normalize import lemmas, load_lexicon

    stop = load_lexicon().stopwords
    return {w for w in lemmas(text) if w not in stop} or set(lemmas(text))


def align_claims(human: Sequence[str], judge: Sequence[str]) -> list[tuple[Optional[int], Optional[int]]]:
    """One-to-one alignment of human and judge claim texts (see module docstring).

    >>> align_claims(["A cat", "a dog were added"], ["a dog were added", "A cat were added", "sky is red"])
    [(0, 1), (1, 0), (None, 2)]
    """
    hw, jw = [_words(t) for t in human], [_words(t) for t in judge]
    scored = []
    for i, h in enumerate(hw):
        for j, w in enumerate(jw):
            if h:
                s = len(h & w) / len(h)
                if s >= ALIGN_MIN:
                    scored.append((-s, abs(len(h) - len(w)), i, j))
    scored.sort()
    pairs, used_h, used_j = {}, set(), set()
    for _, _, i, j in scored:
        if i not in used_h and j not in used_j:
            pairs[i] = j
            used_h.add(i)
            used_j.add(j)
    out: list[tuple[Optional[int], Optional[int]]] = [(i, pairs.get(i)) for i in range(len(human))]
    out += [(None, j) for j in range(len(judge)) if j not in used_j]
    return out


def measure_differences(judge: Judge, rows: Sequence[dict]) -> dict:
    """Item-, claim- and pair-level agreement of ``judge`` with the human labels in ``rows``."""
    cases = [DifferenceCase.make(r["items"], r["prediction"], case_id=r["id"]) for r in rows]
    results = judge.judge_differences(cases)
    item_h, item_j, claim_h, claim_j, pair_h, pair_j = [], [], [], [], [], []
    aligned = n_human_claims = errors = 0
    disagreements = []
    for row, case, res in zip(rows, cases, results):
        if not res.ok:
            errors += 1
        jl = forward_labels(case.items, res.claims)
        for iid, hl in row["item_labels"].items():
            item_h.append(hl)
            item_j.append(jl.get(iid, "missed"))
        hc = row["claims"]
        n_human_claims += len(hc)
        case_pairs = []
        for i, j in align_claims([c["text"] for c in hc], [c.text for c in res.claims]):
            h_label = hc[i]["label"] if i is not None else NONE
            j_label = res.claims[j].label if j is not None else NONE
            aligned += i is not None and j is not None
            claim_h.append(h_label)
            claim_j.append(j_label)
            case_pairs.append((hc[i]["text"] if i is not None else None, h_label, res.claims[j].text if j is not None else None, j_label))
        pair_h.append(any(c["label"] in ("wrong", "hallucination") for c in hc))
        pair_j.append(any(c.label in ("wrong", "hallucination") for c in res.claims))
        if [jl.get(k, "missed") for k in row["item_labels"]] != list(row["item_labels"].values()) or \
                any(h != j for _, h, _, j in case_pairs):
            disagreements.append({"id": row["id"], "items": row["item_labels"], "judge_items": jl,
                                  "claims": case_pairs, "error": res.error})
    both = [(h, j) for h, j in zip(claim_h, claim_j) if h != NONE and j != NONE]
    claim = _summary(claim_h, claim_j, CLAIM_LABELS_X)
    claim["kappa"] = cohen_kappa([h for h, _ in both], [j for _, j in both])
    claim["alignment_rate"] = aligned / n_human_claims if n_human_claims else float("nan")
    claim["judge_claims"] = sum(len(r.claims) for r in results)
    claim["human_claims"] = n_human_claims
    pair = _summary(["yes" if x else "no" for x in pair_h], ["yes" if x else "no" for x in pair_j], ("yes", "no"))
    return {"cases": len(rows), "judge_errors": errors, "item": _summary(item_h, item_j, ITEM_LABELS),
            "claim": claim, "hallucinated_pair": pair, "disagreements": disagreements}


def measure_equivalences(judge: Judge, rows: Sequence[dict]) -> dict:
    """Accuracy, kappa and confusion of the judge's equivalence answers (an error counts as wrong)."""
    results = judge.judge_equivalences([EquivalenceCase(r["predicted"], r["reference"], r["kind"]) for r in rows])
    human = ["yes" if r["equivalent"] else "no" for r in rows]
    got = ["error" if not res.ok else ("yes" if res.equivalent else "no") for res in results]
    out = _summary(human, got, ("yes", "no", "error"))
    out["errors"] = got.count("error")
    out["disagreements"] = [{"id": r["id"], "predicted": r["predicted"], "reference": r["reference"], "human": h, "judge": g}
                            for r, h, g in zip(rows, human, got) if h != g]
    return out


def measure(judge: Judge, split: str = "test", root: Path = AGREEMENT_DIR) -> dict:
    """Run ``judge`` over one half (or ``all``) of the agreement set and return every figure."""
    return {
        "judge": judge.signature,
        "split": split,
        "difference": measure_differences(judge, load_set("difference", split, root)),
        "equivalence": measure_equivalences(judge, load_set("equivalence", split, root)),
    }


# -- report --------------------------------------------------------------------------------
def _matrix_md(block: dict) -> str:
    from benchcore.tables import markdown_table

    labels = block["labels"]
    rows = [[f"**{l}**", *row] for l, row in zip(labels, block["confusion"]) if any(row) or l not in (NONE, "error")]
    return markdown_table(["human \\ judge", *labels], rows)


def render_markdown(report: dict) -> str:
    """A markdown report of :func:`measure`'s figures (what ``REPORT.md`` holds)."""
    from benchcore.tables import markdown_table

    d, e = report["difference"], report["equivalence"]
    it, cl, pr = d["item"], d["claim"], d["hallucinated_pair"]
    lines = [
        "# Judge agreement with human labels",
        "",
        f"Judge: `{report['judge']}`  ",
        f"Split: `{report['split']}` ({d['cases']} difference cases, {e['n']} equivalence pairs). "
        "Regenerate with `capjudge agreement --split test --update-report`.",
        "",
        "## Headline",
        "",
        markdown_table(["level", "n", "accuracy", "Cohen's kappa"], [
            ["key items (correct / wrong / missed)", it["n"], it["accuracy"], it["kappa"]],
            ["claims (aligned; unaligned count as disagreement)", cl["n"], cl["accuracy"], cl["kappa"]],
            ["pair has a wrong/hallucinated claim", pr["n"], pr["accuracy"], pr["kappa"]],
            ["name equivalence", e["n"], e["accuracy"], e["kappa"]],
        ]),
        "",
        f"Claim alignment: {cl['alignment_rate']:.3f} of {cl['human_claims']} human claims aligned to one of "
        f"{cl['judge_claims']} judge claims. Judge errors: {d['judge_errors']} difference, {e['errors']} equivalence.",
        "",
        "## Key items (forward check)",
        "",
        _matrix_md(it),
        "",
        "## Claims",
        "",
        _matrix_md(cl),
        "",
        markdown_table(["label", "precision", "recall", "support"],
                       [[l, v["precision"], v["recall"], v["support"]] for l, v in cl["per_label"].items() if l != NONE]),
        "",
        "## Equivalence",
        "",
        _matrix_md(e),
        "",
        "How these are computed: see the docstring of `capjudge/agreement_tool.py`.",
        "",
    ]
    return "\n".join(lines)


def summary_lines(report: dict) -> list[str]:
    """Short lines for a terminal."""
    d, e = report["difference"], report["equivalence"]
    return [
        f"judge: {report['judge']}  split: {report['split']}",
        f"items      n={d['item']['n']:4d}  accuracy={d['item']['accuracy']:.3f}  kappa={d['item']['kappa']:.3f}",
        f"claims     n={d['claim']['n']:4d}  accuracy={d['claim']['accuracy']:.3f}  kappa={d['claim']['kappa']:.3f}  aligned={d['claim']['alignment_rate']:.3f}",
        f"hall.pair  n={d['hallucinated_pair']['n']:4d}  accuracy={d['hallucinated_pair']['accuracy']:.3f}  kappa={d['hallucinated_pair']['kappa']:.3f}",
        f"equivalence n={e['n']:3d}  accuracy={e['accuracy']:.3f}  kappa={e['kappa']:.3f}",
    ]

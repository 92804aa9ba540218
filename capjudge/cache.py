"""A persistent judge cache: a judgement made once is paid once.

:class:`JudgeCache` is one sqlite file (WAL journal, busy timeout), safe with several
processes reading and writing at once. A row is keyed by a hash of

* the judge's *cache identity*: backend, exact model, prompt versions and hashes —
  ``judge.cache_identity`` if the judge has one, else its signature without the
  ``|capjudge:<version>`` part (a package upgrade alone does not void the cache);
* the kind of question (``difference`` / ``equivalence``);
* the normalised inputs (Unicode NFC, whitespace collapsed; difference items sorted by
  id; equivalence names case-folded). A case's ``case_id`` is never part of the key.

Only successful answers are stored; errors (budget, HTTP, invalid output) are asked
again next time. :class:`CachedJudge` wraps any judge; with a judge that reports each
answer as it arrives (``supports_on_result``), every answer is stored at once, so a
run killed halfway and restarted re-asks only what was not answered.

Caches are shared as JSON Lines (:meth:`JudgeCache.export_jsonl` /
:meth:`JudgeCache.import_jsonl`, or ``capjudge cache export|import``).

>>> import tempfile, os
>>> from capjudge.callables import CallableJudge
>>> from capjudge.protocol import EquivalenceCase
>>> judge = CachedJudge(CallableJudge(equivalent=lambda p, r, k: p == r),
...                     os.path.join(tempfile.mkdtemp(), "judge.sqlite"))
>>> cases = [EquivalenceCase("dog", "dog", "visual_feature")]
>>> [r.equivalent for r in judge.judge_equivalences(cases)], [r.equivalent for r in judge.judge_equivalences(cases)]
([True], [True])
>>> judge.stats["hits"], judge.stats["misses"]
(1, 1)
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
import unicodedata
from typing import Any, Callable, Iterable, Optional, Sequence

from benchcore.errors import InputError
from capjudge.protocol import (
    DifferenceCase,
    DifferenceResult,
    EquivalenceCase,
    EquivalenceResult,
    InvalidJudgement,
    Judge,
    validate_judgement,
)

KINDS = ("difference", "equivalence")
CHUNK = 256  # a judge without on_result is asked this many cases at a time, then stored

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key    TEXT PRIMARY KEY,   -- sha256 of [identity, kind, input]
    judge  TEXT NOT NULL,      -- cache identity of the judge
    kind   TEXT NOT NULL,      -- difference | equivalence
    input  TEXT NOT NULL,      -- normalised input, JSON
    answer TEXT NOT NULL       -- judgement JSON ({"claims": ...} or {"equivalent": ...})
)
"""


class CacheFileError(InputError):
    """A cache export file has a bad line (the message names file and line)."""


def default_cache_path() -> str:
    """``$CAPJUDGE_CACHE_DIR/judge.sqlite``, else ``~/.cache/capjudge/judge.sqlite``."""
    root = os.environ.get("CAPJUDGE_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "capjudge")
    return os.path.join(root, "judge.sqlite")


# -- keys -------------------------------------------------------------------------------------
def normalise_text(text: str) -> str:
    """NFC, whitespace runs collapsed to one space, ends stripped.

    >>> normalise_text("  a\\tcat\\n\\nappeared ")
    'a cat appeared'
    """
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def cache_identity(judge: Any) -> str:
    """What cached answers of ``judge`` depend on (its signature minus the package version).

    >>> class J: signature = "judge:x|model:m|capjudge:0.1.0"
    >>> cache_identity(J())
    'judge:x|model:m'
    """
    ident = getattr(judge, "cache_identity", None)
    if isinstance(ident, str) and ident:
        return ident
    return re.sub(r"\|capjudge:[^|]*", "", judge.signature)


def difference_input(case: DifferenceCase) -> dict:
    items = sorted(([it.id, normalise_text(it.text), it.category, bool(it.ambiguous)] for it in case.items),
                   key=lambda row: row[0])
    return {"items": items, "prediction": normalise_text(case.prediction)}


def equivalence_input(case: EquivalenceCase) -> dict:
    return {"kind": case.kind, "predicted": normalise_text(case.predicted).casefold(),
            "reference": normalise_text(case.reference).casefold()}


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def make_key(identity: str, kind: str, inp: dict) -> str:
    return hashlib.sha256(_dumps([identity, kind, inp]).encode("utf-8")).hexdigest()


# -- the store --------------------------------------------------------------------------------
class JudgeCache:
    """One sqlite cache file; one connection per thread; writes in short transactions."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        parent = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(parent, exist_ok=True)
        self._local = threading.local()
        conn = self._conn()
        # WAL lets readers and one writer work at once across processes; the busy
        # timeout makes concurrent writers wait their turn instead of failing.
        conn.execute("PRAGMA journal_mode=WAL")
        with self._write(conn):
            conn.execute(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=60000")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    class _write:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: take the write lock up front (no upgrade deadlock)."""

        def __init__(self, conn: sqlite3.Connection):
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type: Any, *rest: Any) -> None:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """Answers (decoded JSON) for the keys that are stored."""
        out: dict[str, Any] = {}
        conn = self._conn()
        keys = list(dict.fromkeys(keys))
        for start in range(0, len(keys), 500):  # stay under sqlite's variable limit
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for key, answer in conn.execute(f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk):
                out[key] = json.loads(answer)
        return out

    def put_many(self, rows: Iterable[tuple[str, str, str, dict, Any]]) -> int:
        """Store ``(key, identity, kind, input, answer)`` rows; the first answer for a key wins."""
        rows = [(k, ident, kind, _dumps(inp), _dumps(ans)) for k, ident, kind, inp, ans in rows]
        if not rows:
            return 0
        conn = self._conn()
        with self._write(conn):
            before = conn.total_changes
            conn.executemany("INSERT OR IGNORE INTO answers (key, judge, kind, input, answer) VALUES (?,?,?,?,?)", rows)
            return conn.total_changes - before

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def stats(self) -> dict:
        """Rows per (judge identity, kind) and the file size."""
        conn = self._conn()
        groups = [{"judge": j, "kind": k, "answers": n} for j, k, n in conn.execute(
            "SELECT judge, kind, COUNT(*) FROM answers GROUP BY judge, kind ORDER BY judge, kind")]
        size = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))
        return {"path": self.path, "answers": len(self), "bytes": size, "by_judge": groups}

    def export_jsonl(self, out: str | os.PathLike, judge_contains: Optional[str] = None) -> int:
        """Write every row (or those whose identity contains ``judge_contains``), sorted by key."""
        conn = self._conn()
        n = 0
        tmp = os.fspath(out) + ".part"
        with open(tmp, "w", encoding="utf-8") as f:
            for key, judge, kind, inp, answer in conn.execute(
                    "SELECT key, judge, kind, input, answer FROM answers ORDER BY key"):
                if judge_contains and judge_contains not in judge:
                    continue
                row = {"key": key, "judge": judge, "kind": kind, "input": json.loads(inp), "answer": json.loads(answer)}
                f.write(_dumps(row) + "\n")
                n += 1
        os.replace(tmp, out)
        return n

    def import_jsonl(self, src: str | os.PathLike) -> tuple[int, int]:
        """Add the rows of an export file; returns (added, already present).

        Every line is checked first (its key must match its content), so a bad file
        adds nothing and the error names the file and line.
        """
        rows = list(_read_export(os.fspath(src)))
        added = self.put_many(rows)
        return added, len(rows) - added

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _read_export(path: str) -> Iterable[tuple[str, str, str, dict, Any]]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}, line {n}"
            try:
                row = json.loads(line)
                key, ident, kind, inp, answer = (row[k] for k in ("key", "judge", "kind", "input", "answer"))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise CacheFileError(f"{where}: not a cache row ({type(e).__name__}: {e})") from None
            if kind not in KINDS:
                raise CacheFileError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
            if make_key(ident, kind, inp) != key:
                raise CacheFileError(f"{where}: key does not match the row's judge, kind and input")
            if kind == "equivalence" and not (isinstance(answer, dict) and isinstance(answer.get("equivalent"), bool)):
                raise CacheFileError(f"{where}: equivalence answer must be {{\"equivalent\": true|false}}")
            if kind == "difference" and not (isinstance(answer, dict) and isinstance(answer.get("claims"), list)):
                raise CacheFileError(f"{where}: difference answer must be {{\"claims\": [...]}}")
            yield key, ident, kind, inp, answer


# -- the wrapper ------------------------------------------------------------------------------
class CachedJudge:
    """Wrap ``judge`` so answers are looked up in, and stored to, the cache at ``path``.

    The signature is the inner judge's: a cached answer is the same answer.
    ``stats``: ``hits`` (cases answered from the cache), ``misses`` (cases not found),
    ``asked`` (distinct cases sent to the inner judge) and ``stored``.
    """

    def __init__(self, judge: Judge, path: str | os.PathLike | JudgeCache):
        self.inner = judge
        self.cache = path if isinstance(path, JudgeCache) else JudgeCache(path)
        self.identity = cache_identity(judge)
        self.stats = {"hits": 0, "misses": 0, "asked": 0, "stored": 0}
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return self.inner.signature

    @property
    def budget_exhausted(self) -> bool:
        return bool(getattr(self.inner, "budget_exhausted", False))

    def __repr__(self) -> str:
        return f"CachedJudge({self.inner!r}, {self.cache.path!r})"

    def judge_differences(self, cases: Sequence[DifferenceCase]) -> list[DifferenceResult]:
        def decode(case: DifferenceCase, answer: Any) -> Optional[DifferenceResult]:
            try:
                return DifferenceResult(claims=validate_judgement(answer, case.items))
            except InvalidJudgement:
                return None  # e.g. a hand-edited import; ask again

        return self._judge("difference", cases, difference_input, decode,
                           lambda r: {"claims": [c.to_dict() for c in r.claims]}, self.inner.judge_differences)

    def judge_equivalences(self, cases: Sequence[EquivalenceCase]) -> list[EquivalenceResult]:
        def decode(case: EquivalenceCase, answer: Any) -> Optional[EquivalenceResult]:
            value = answer.get("equivalent") if isinstance(answer, dict) else None
            return EquivalenceResult(equivalent=value) if isinstance(value, bool) else None

        return self._judge("equivalence", cases, equivalence_input, decode,
                           lambda r: {"equivalent": r.equivalent}, self.inner.judge_equivalences)

    def _judge(self, kind: str, cases: Sequence[Any], make_input: Callable, decode: Callable,
               encode: Callable, ask: Callable) -> list:
        inputs = [make_input(c) for c in cases]
        keys = [make_key(self.identity, kind, inp) for inp in inputs]
        found = self.cache.get_many(keys)
        results: list = [None] * len(cases)
        todo: dict[str, list[int]] = {}  # key -> indices of cases waiting for it (duplicates asked once)
        for i, (case, key) in enumerate(zip(cases, keys)):
            hit = decode(case, found[key]) if key in found else None
            if hit is not None:
                results[i] = hit
            else:
                todo.setdefault(key, []).append(i)
        waiting = sum(len(v) for v in todo.values())
        with self._lock:
            self.stats["hits"] += len(cases) - waiting
            self.stats["misses"] += waiting
            self.stats["asked"] += len(todo)
        order = list(todo)
        ask_cases = [cases[todo[k][0]] for k in order]

        def store(j: int, result: Any) -> None:
            key = order[j]
            for i in todo[key]:
                results[i] = result
            if result.ok:
                added = self.cache.put_many([(key, self.identity, kind, inputs[todo[key][0]], encode(result))])
                with self._lock:
                    self.stats["stored"] += added

        if getattr(self.inner, "supports_on_result", False):
            ask(ask_cases, on_result=store)
        else:
            for start in range(0, len(ask_cases), CHUNK):
                for j, result in enumerate(ask(ask_cases[start:start + CHUNK]), start):
                    store(j, result)
        return results

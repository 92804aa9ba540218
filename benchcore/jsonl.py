"""Read line-oriented input files without crashing on one bad line.

Both scorers read predictions as JSON Lines written by other people's scripts: a bad
byte or a broken line becomes a problem that names its line, and reading goes on so one
error report lists every problem at once.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator, Optional


def line_label(n: int) -> str:
    return f"line {n}"


def decode_lines(data: bytes, problems: list[str], locate: Callable[[int], str] = line_label) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) of each UTF-8 line; an undecodable line becomes a problem.

    A byte-order mark on the first line (some editors add one) is dropped.

    >>> problems = []
    >>> list(decode_lines(b'\\xef\\xbb\\xbf{"a": 1}\\n\\xff\\n', problems))
    [(1, '{"a": 1}')]
    >>> problems
    ["line 2: invalid UTF-8 at byte 0 of the line (b'\\\\xff'); save the file as UTF-8"]
    """
    for n, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(f"{locate(n)}: invalid UTF-8 at byte {e.start} of the line "
                            f"({raw[e.start:e.start + 4]!r}); save the file as UTF-8")
            continue
        yield n, (text[1:] if n == 1 and text.startswith("\ufeff") else text)


def parse_object(line: str, where: str, problems: list[str], expected: str = "a JSON object") -> Optional[dict]:
    """Parse one JSON line that must hold an object; on failure append a problem and return None.

    >>> problems = []
    >>> parse_object('[1]', "line 3", problems, "an object with pair_id and prediction"), problems
    (None, ['line 3: expected an object with pair_id and prediction, got list'])
    """
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        problems.append(f"{where}: not valid JSON ({e.msg} at column {e.colno})")
        return None
    if not isinstance(obj, dict):
        problems.append(f"{where}: expected {expected}, got {type(obj).__name__}")
        return None
    return obj


def read_objects(path: Path, expected: str = "a JSON object") -> list[tuple[int, dict]]:
    """Every JSON object of a JSON Lines file with its line number (blank lines skipped).

    Raises :class:`~benchcore.errors.InputError` naming the file and every bad line.
    """
    from benchcore.errors import InputError

    problems: list[str] = []
    rows = []
    for n, line in decode_lines(Path(path).read_bytes(), problems):
        if line.strip():
            obj = parse_object(line, f"line {n}", problems, expected)
            if obj is not None:
                rows.append((n, obj))
    if problems:
        raise InputError(f"{path}: " + "; ".join(problems))
    return rows

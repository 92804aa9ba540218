"""Small generated judge cases for tests and benchmarks (no files, same every run)."""
from __future__ import annotations

from typing import Any

from capjudge.protocol import DifferenceCase, EquivalenceCase, Item

OBJECTS = ("cat", "dog", "car", "lamp", "chair", "cup", "bicycle", "clock", "vase", "kite")
COLOURS = ("red", "blue", "green", "yellow", "white")


def difference_cases(n: int, prefix: str = "pair") -> list[DifferenceCase]:
    """``n`` distinct cases: two key items and one ambiguous item each; predictions the
    scripted server's oracle labels as one correct, one wrong and one hallucinated claim."""
    cases = []
    for i in range(n):
        obj, colour = OBJECTS[i % len(OBJECTS)], COLOURS[(i // len(OBJECTS)) % len(COLOURS)]
        items = (
            Item("d1", f"a {colour} {obj} was added {i}", "object"),
            Item("d2", f"the {obj} moved left {i}", "spatial_relation"),
            Item("d3", f"the light is warmer {i}", "image_property", ambiguous=True),
        )
        prediction = f"A {colour} {obj} was added {i}. Not the {obj} moved left {i}. A tree fell {i}."
        cases.append(DifferenceCase(items=items, prediction=prediction, case_id=f"{prefix}-{i}"))
    return cases


def equivalence_cases(n: int) -> list[EquivalenceCase]:
    """``n`` distinct pairs; even ones equivalent for the oracle (plural), odd ones not."""
    out = []
    for i in range(n):
        ref = f"{OBJECTS[i % len(OBJECTS)]} {i}"
        predicted = ref + "s" if i % 2 == 0 else f"{OBJECTS[(i + 1) % len(OBJECTS)]} {i}"
        out.append(EquivalenceCase(predicted=predicted, reference=ref, kind="visual_feature"))
    return out


def fast_options(**overrides: Any) -> dict:
    """OpenAIJudge options that keep retry waits short in tests."""
    opts = {"backoff_base": 0.01, "backoff_max": 0.05, "timeout": 5.0, "progress": False}
    opts.update(overrides)
    return opts

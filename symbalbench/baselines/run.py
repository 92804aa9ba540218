"""Run a detector over every scenario of a built benchmark (or a chosen subset)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from symbalbench.baselines.base import Detector, Guess, detector_input

VARIANTS = ("reference_free", "reference_based")


def run_detector(detector: Detector, bench: Any, scenario_ids: Optional[Sequence[str]] = None,
                 variant: Optional[str] = None, progress: bool = True) -> dict[str, list[Guess]]:
    """Ranked guesses per scenario id, in the benchmark's scenario order.

    ``bench`` is a loaded :func:`symbalbench.load` object (``scenario_ids``,
    ``dataset(id, variant)``, ``image(ref)``). ``variant`` defaults to the detector's own
    (``detector.variant``) or ``reference_free``. Scenarios with no guesses are left
    out (they count as missing, a miss).
    """
    from tqdm.auto import tqdm

    variant = variant or getattr(detector, "variant", "reference_free")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    ids = list(scenario_ids) if scenario_ids is not None else list(bench.scenario_ids)
    out: dict[str, list[Guess]] = {}
    for sid in tqdm(ids, desc=f"{getattr(detector, 'name', 'detector')} ({variant})", unit="scenario",
                    disable=not progress):
        guesses = detector(detector_input(bench.dataset(sid, variant=variant), load_image=bench.image))
        if guesses:
            out[sid] = [{"text_error": g["text_error"], "visual_feature": g["visual_feature"]} for g in guesses]
    return out

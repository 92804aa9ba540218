"""SymbalBench Accuracy@K as an ``evaluate`` module (a thin shell over ``symbalbench.scoring``).

evaluate copies this script into its modules cache, so it imports the installed
packages (``symbalbench``, ``capjudge``), never files next to it.
"""
import datasets
import evaluate

from symbalbench.cli_eval import default_cache_path, make_judge
from symbalbench.judging import evaluate_predictions
from symbalbench.predictions import check_guess
from symbalbench.scoring import BREAKDOWN_FIELDS, Truth, flatten_scores, parse_ks

_CITATION = """\
@misc{symbalbench,
  title  = {SymbalBench: detecting systematic misalignments between images and captions},
  note   = {Accuracy@K over 420 constructed datasets (360 natural, 60 medical)},
  year   = {2026}
}
"""

_DESCRIPTION = """\
Accuracy@K for systematic-misalignment detection (SymbalBench). Each scenario is one
dataset whose captions repeat an error text t whenever a visual feature v is present.
A method returns, per scenario, a ranked list of guesses {text_error, visual_feature}.
A scenario is a hit at K when one of the first K guesses has text_error equivalent to t
AND visual_feature equivalent to v; a judge decides each equivalence (default: the
offline embedded judge). Each distinct (guess, truth, kind) question is judged once.
A scenario with no guesses is a miss and is listed. Breakdowns by domain, strength,
sampling and size; 95% bootstrap intervals over scenarios.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: per scenario, a ranked list of {"text_error": str, "visual_feature": str}
        (best first; an empty list means no prediction: a miss).
    references: per scenario, {"text_error": t, "visual_feature": v} plus optional
        "scenario_id", "domain", "strength", "sampling", "size" (used for breakdowns).
    k: an int or a list of ints (default [1, 5]).
    judge: a judge spec string ("embedded", "openai:MODEL?base_url=..."), a
        capjudge Judge object, or an equivalence callable
        equivalent(predicted, reference, kind) -> bool (default "embedded").
    cache: path to a sqlite judge cache (answers reused across runs and processes); default
        "auto" = $CAPJUDGE_CACHE_DIR/judgements.sqlite for spec-string judges and no cache
        for judge objects and callables (a callable's name does not identify its answers);
        None = no cache.
    n_resamples, seed: bootstrap settings (default 1000, 12345).
Returns:
    a flat dict: "accuracy@K", "accuracy@K_ci_low", "accuracy@K_ci_high" for each K;
    "<field>=<value>/accuracy@K" (+ _ci_low, _ci_high) and "<field>=<value>/n" for the
    breakdowns (and "domain=..,strength=../..."); "n_scenarios", "n_missing",
    "missing_scenarios", "n_judge_errors", "judge_signature".
Examples:
    >>> import evaluate
    >>> symbal_accuracy = evaluate.load("metrics/symbal_accuracy")
    >>> same = lambda predicted, reference, kind: predicted.lower() == reference.lower()
    >>> results = symbal_accuracy.compute(
    ...     predictions=[[{"text_error": "cat", "visual_feature": "car"},
    ...                   {"text_error": "Dog", "visual_feature": "car"}],
    ...                  []],
    ...     references=[{"text_error": "dog", "visual_feature": "car", "strength": "high"},
    ...                 {"text_error": "edema", "visual_feature": "pacemaker", "strength": "low"}],
    ...     k=[1, 5], judge=same)
    >>> results["accuracy@1"], results["accuracy@5"], results["n_missing"]
    (0.0, 0.5, 1)
    >>> results["strength=high/accuracy@5"]
    1.0
"""

_GUESS = {"text_error": datasets.Value("string"), "visual_feature": datasets.Value("string")}
_METADATA = ("scenario_id",) + BREAKDOWN_FIELDS
_FEATURES = datasets.Features({
    "predictions": datasets.List(_GUESS),
    "references": {**_GUESS, **{m: datasets.Value("string") for m in _METADATA}},
})


def _complete_reference(ref):
    """Fill absent metadata with "" (evaluate's schema needs every key; its string check refuses None)."""
    full = {m: "" for m in _METADATA}
    full.update({key: ("" if val is None else val) for key, val in dict(ref).items()})
    return full


def _check_prediction(prediction, row):
    """A ranked guess list whose guesses all have both fields (evaluate would fail obscurely otherwise)."""
    if prediction is None:
        return
    if not isinstance(prediction, (list, tuple)):
        raise ValueError(f"predictions[{row}]: must be a list of guesses, got {type(prediction).__name__}")
    for n, guess in enumerate(prediction, start=1):
        _, problems = check_guess(guess, f"predictions[{row}]", n)
        if problems:
            raise ValueError("; ".join(problems))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SymbalAccuracy(evaluate.Metric):
    """Accuracy@K of ranked (text_error, visual_feature) guesses, judged for equivalence."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            reference_urls=["https://huggingface.co/docs/evaluate"],
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions (ranked guess lists) and references (truth + optional metadata)."""
        if references is not None:
            references = [_complete_reference(r) for r in references]
        for row, prediction in enumerate(predictions or []):
            _check_prediction(prediction, row)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one scenario: its ranked guesses and its truth (+ optional metadata)."""
        if reference is not None:
            reference = _complete_reference(reference)
        _check_prediction(prediction, 0)
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, k=None, judge="embedded", cache="auto", n_resamples=1000,
                 seed=12345, progress=False):
        truths, guesses = [], {}
        for i, (pred, ref) in enumerate(zip(predictions, references)):
            sid = ref.get("scenario_id") or f"scenario-{i}"
            if sid in guesses:
                raise ValueError(f"references: scenario_id {sid!r} appears twice (rows {list(guesses).index(sid)} and {i})")
            truths.append(Truth.from_row({**ref, "scenario_id": sid}))
            guesses[sid] = list(pred or [])
        if cache == "auto":
            cache = default_cache_path() if isinstance(judge, str) else None
        judge_obj = make_judge(judge, cache)
        ev = evaluate_predictions(truths, guesses, judge_obj, ks=parse_ks(k), progress=progress,
                                  n_resamples=n_resamples, seed=seed)
        flat = flatten_scores(ev.scores)
        flat["judge_signature"] = ev.judge_signature
        return flat

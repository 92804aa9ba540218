"""A token budget that stops a judging run cleanly.

A budget is checked before every request and charged with the tokens each answer
used. Once spent, the judge stops sending: the cases not yet asked get a result whose
error starts with ``"budget exceeded:"``; every answer already received is kept (and
cached, when the judge is wrapped in a cache). Requests already in flight when the
budget runs out still finish, so a run may overshoot by at most ``concurrency``
answers. One budget object may be shared by several judges (e.g. an ensemble).

>>> b = TokenBudget(100)
>>> b.charge(60, 30); b.exhausted
False
>>> b.charge(10, 0); b.exhausted, b.message()
(True, 'budget exceeded: 100 of max_tokens_total=100 tokens used')
"""
from __future__ import annotations

import threading
from typing import Optional


class TokenBudget:
    """Counts prompt + completion tokens against an optional maximum (thread-safe)."""

    def __init__(self, max_tokens_total: Optional[int] = None):
        if max_tokens_total is not None and int(max_tokens_total) < 0:
            raise ValueError(f"max_tokens_total must be >= 0, got {max_tokens_total}")
        self.max_tokens_total = None if max_tokens_total is None else int(max_tokens_total)
        self.used = 0
        self._lock = threading.Lock()

    def charge(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Add the tokens one answer used."""
        with self._lock:
            self.used += int(prompt_tokens or 0) + int(completion_tokens or 0)

    @property
    def exhausted(self) -> bool:
        """True once the used tokens reach the maximum (never without a maximum)."""
        return self.max_tokens_total is not None and self.used >= self.max_tokens_total

    @property
    def remaining(self) -> Optional[int]:
        if self.max_tokens_total is None:
            return None
        return max(0, self.max_tokens_total - self.used)

    def message(self) -> str:
        """The error recorded for every case the budget stopped."""
        return f"budget exceeded: {self.used} of max_tokens_total={self.max_tokens_total} tokens used"

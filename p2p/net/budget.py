"""A token bucket: at most ``rate`` events a second on average, ``burst`` at once.

One writing of the rate limits that keep a flood from costing a peer its time (strangers'
handshakes, key-door answers, a lobby member's changes); the caller passes the time, so a
sans-IO core with its own clock uses it as an I/O shell does."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TokenBucket:
    rate: float
    burst: float
    tokens: float = 0.0
    at: float | None = None        # when ``tokens`` was last brought up to date; None: full

    def take(self, now: float) -> bool:
        """Spend one token at ``now`` if there is one (False: over the limit)."""
        self.tokens = self.burst if self.at is None else min(
            self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

"""What every game's ``Rules`` (``games/<game>/config.py``) shares: building it from keyword options."""

from __future__ import annotations

import dataclasses
from typing import Any


class RulesOptions:
    """A base of the games' frozen ``Rules`` dataclasses (each has a ``num_players`` field)."""

    @classmethod
    def make(cls, num_players: int = 4, **options: Any):
        """Builds Rules from keyword options, rejecting unknown option names."""
        allowed = [f.name for f in dataclasses.fields(cls) if f.name != "num_players"]
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(f"unknown rules option(s) {unknown}; allowed: {', '.join(allowed)}")
        return cls(num_players=num_players, **options)

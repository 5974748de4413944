"""Observations made of named sections (the OpenSpiel way): one helper for every game's layout.

A game's ``ObservationLayout`` lists its sections as ``((name, length), ...)`` in order; this mixin
gives the vector's size, each section's slice and offset, and views of the sections of an observation.
"""

from __future__ import annotations

import numpy as np


class NamedSections:
    """A flat observation vector made of the named sections ``self.sections`` (in order)."""

    sections: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        """O, the length of the observation vector."""
        return sum(n for _, n in self.sections)

    def slice(self, name: str) -> slice:
        """The slice of a named section in the observation vector."""
        start = 0
        for section, n in self.sections:
            if section == name:
                return slice(start, start + n)
            start += n
        raise KeyError(f"no observation section {name!r}; sections: {[s for s, _ in self.sections]}")

    def offsets(self) -> dict[str, int]:
        """``{section: index of its first feature}`` (the compiled encoders' constants)."""
        return {name: self.slice(name).start for name, _ in self.sections}

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Views of each section of one observation (or a batch, sections along the last axis)."""
        return {name: obs[..., self.slice(name)] for name, _ in self.sections}

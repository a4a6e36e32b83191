"""Each diagram's render is published once: a task column that repeats it is a reference.

Editing pairs, sketches, degraded scans, variations and translations each keep the render of
the diagram they start from (``source_image``) beside their own picture. Published as it
is, a mxGraph page of ≈ 185 KB went out once in ``generation`` and again in every one of
those rows (four editing pairs, two variations, a sketch, a scan, each twin). The dataset
holds it once: in a config where *every* row's ``source_image`` is byte for byte the render
``generation`` publishes for the row's ``diagram_id``, the column is left out and the card
says where it is — ``generation``, row ``id == diagram_id`` (same split), column ``image``.
Where even one row's source differs (or its diagram is not in ``generation``: a selection
that leaves it out), the config keeps the column whole: nothing a task reads is lost, and a
column is never half there.

The check is on digests: publish keeps a 16-byte BLAKE2b digest per ``generation`` row
while it streams them (16 MB per million diagrams) and compares each task row's source
with it in its first pass over the task tables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

REFERENCED: dict[str, str] = {"source_image": "image"}
"""Task column → the ``generation`` column it repeats (for the row's ``diagram_id``)."""
HOME = "generation"
"""The config that holds every diagram's render."""


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass
class ReferenceCheck:
    """Per config and referenced column: rows seen with a value, and whether every one of
    them equals its diagram's ``generation`` render."""

    digests: Mapping[str, bytes]
    rows: dict[tuple[str, str], int] = field(default_factory=dict)
    equal: dict[tuple[str, str], bool] = field(default_factory=dict)
    first_mismatch: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, config: str, row: Mapping) -> None:
        for col in REFERENCED:
            value = row.get(col)
            if value is None:
                continue
            key = (config, col)
            self.rows[key] = self.rows.get(key, 0) + 1
            if not self.equal.get(key, True):
                continue
            home = self.digests.get(str(row.get("diagram_id")))
            if home is None or home != digest(value):
                self.equal[key] = False
                self.first_mismatch[key] = (
                    f"{row.get('id')}: diagram {row.get('diagram_id')} "
                    + ("is not in generation" if home is None else "has another render"))
            else:
                self.equal.setdefault(key, True)

    def referenced(self, config: str) -> dict[str, str]:
        """The columns ``config`` publishes as references: column → ``generation`` column."""
        return {col: REFERENCED[col] for col in REFERENCED
                if self.rows.get((config, col)) and self.equal.get((config, col), False)}

    def kept(self, config: str) -> dict[str, str]:
        """Referenceable columns ``config`` keeps, with the first row that made it keep
        them (for the card and the stage's metrics)."""
        return {col: self.first_mismatch[(config, col)] for col in REFERENCED
                if (config, col) in self.first_mismatch}

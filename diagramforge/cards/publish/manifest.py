"""The manifest of a published version (config → split → row id → content digest) and the
changelog between two versions computed from two manifests.

A row is *added* or *removed* when its id appears on one side only, and *changed* when the
same id carries different content (a new render, a re-phrased caption).  The digest covers
every published column, images by their bytes, so any change a user could see is counted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class KnownDigest:
    """Bytes known by their SHA-256 only: a task row's ``source_image`` that publish leaves
    out as a reference (``cards/validate/references.py``) is the ``generation`` render of
    its diagram byte for byte, so it is digested as that render was published — without
    holding the render, and without encoding it again (``render.raster.encode_at``).
    ``len()`` is the render's published size: a Parquet writer buffering the row counts it
    as it counted the render's bytes (``parquet_out.SplitWriter``'s row-group estimate sees
    the row whole), so row groups are cut where they were."""

    sha256: bytes
    size: int

    def __len__(self) -> int:
        return self.size


def _value(v: object) -> object:
    if isinstance(v, KnownDigest):
        return "sha256:" + v.sha256.hex()
    if isinstance(v, bytes | bytearray):
        return "sha256:" + hashlib.sha256(v).hexdigest()
    if isinstance(v, float) and v != v:  # NaN
        return None
    if hasattr(v, "tolist"):
        return v.tolist()
    return v


def row_digest(row: dict) -> str:
    canon = json.dumps({k: _value(v) for k, v in sorted(row.items())}, sort_keys=True,
                       default=str)
    return hashlib.sha256(canon.encode()).hexdigest()[:16]


class ManifestBuilder:
    """The manifest as a running aggregate: rows are digested as they stream past, and only
    ``id → 16-hex digest`` is kept (the manifest itself lists every id, so this is its own
    size: ≈ 60 B per row)."""

    def __init__(self) -> None:
        self.configs: dict[str, dict[str, dict[str, str]]] = {}

    def add(self, config: str, rows: list[dict]) -> None:
        per = self.configs.setdefault(config, {})
        for row in rows:
            per.setdefault(row["split"], {})[str(row["id"])] = row_digest(row)

    def build(self, version: str) -> dict:
        configs = {c: {s: dict(sorted(v.items())) for s, v in sorted(per.items())}
                   for c, per in sorted(self.configs.items())}
        return {"version": version, "configs": configs}


def build_manifest(frames: dict[str, pd.DataFrame], version: str) -> dict:
    """``{"version", "configs": {config: {split: {id: digest}}}}`` for every config table."""
    builder = ManifestBuilder()
    for config, df in sorted(frames.items()):
        builder.add(config, df.to_dict("records"))
    return builder.build(version)


def diff(old: dict | None, new: dict) -> dict:
    """Config → split → ``{"added", "removed", "changed", "unchanged"}`` counts."""
    old_cfg = (old or {}).get("configs", {})
    out: dict = {}
    for config in sorted(set(old_cfg) | set(new["configs"])):
        a_c, b_c = old_cfg.get(config, {}), new["configs"].get(config, {})
        for split in sorted(set(a_c) | set(b_c)):
            a, b = a_c.get(split, {}), b_c.get(split, {})
            common = set(a) & set(b)
            out.setdefault(config, {})[split] = {
                "added": len(set(b) - set(a)), "removed": len(set(a) - set(b)),
                "changed": sum(a[i] != b[i] for i in common),
                "unchanged": sum(a[i] == b[i] for i in common)}
    return out


def changelog_entry(old: dict | None, new: dict) -> str:
    """One version's CHANGELOG.md section."""
    prev = f"v{old['version']}" if old else "nothing (first version)"
    lines = [f"## v{new['version']}", "", f"Compared with {prev}.", "",
             "| config | split | added | removed | changed | unchanged |",
             "|---|---|---:|---:|---:|---:|"]
    for config, splits in diff(old, new).items():
        for split, d in splits.items():
            lines.append(f"| {config} | {split} | {d['added']} | {d['removed']} | "
                         f"{d['changed']} | {d['unchanged']} |")
    return "\n".join(lines) + "\n"


def changelog(previous_text: str | None, old: dict | None, new: dict) -> str:
    """The repository's CHANGELOG.md: the new entry on top of the previous file's entries
    (an entry for the same version is replaced, so a retried push does not repeat it)."""
    head = "# Changelog\n\nRows added, removed and changed per config and split (by row `id`).\n"
    entries = []
    if previous_text:
        parts = previous_text.split("\n## ")[1:]
        entries = ["## " + p.rstrip("\n") + "\n" for p in parts
                   if not p.startswith(f"v{new['version']}\n")]
    return head + "\n" + "\n".join([changelog_entry(old, new), *entries])

"""Licence audit of what is published: per licence, rows per config and split, whether it is
non-commercial or share-alike, and whether every row says whom to credit.

It reads the published Parquet files themselves (not the pipeline's intermediate tables),
so it audits exactly what a user downloads.  SPDX expressions are parsed by
``license-expression`` (``diagramforge.licensing.spdx``): ``CC-BY-4.0 AND MIT`` is share-alike or
non-commercial when any part is.
"""

from __future__ import annotations

import glob
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from diagramforge.licensing.spdx import allowed, parse_expression
from diagramforge.store.paths import ProjectSettings, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet

COLUMNS = ("licence", "attribution", "split")


def _keys(expr: str) -> list[str]:
    parsed = parse_expression(expr or "")
    if parsed is None:
        return []
    return [getattr(s, "key", str(s)) for s in parsed.symbols]


def flags(expr: str) -> dict[str, bool]:
    """``nc``: some part forbids commercial use; ``sa``: some part requires derivatives to
    carry the same licence (CC ``-SA``, the GPL family)."""
    keys = [k.upper() for k in _keys(expr)]
    return {"nc": any("-NC" in k for k in keys),
            "sa": any("-SA" in k or "GPL" in k for k in keys)}


@dataclass
class LicenceRow:
    licence: str
    config: str
    split: str
    rows: int
    missing_attribution: int
    allowed: bool
    nc: bool
    sa: bool


@dataclass
class LicenceAudit:
    rows: list[LicenceRow] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        out = []
        for r in self.rows:
            where = f"{r.config}/{r.split}"
            if not r.allowed:
                out.append(f"{where}: {r.rows} row(s) under '{r.licence}', not in the allow list")
            if r.missing_attribution:
                out.append(f"{where}: {r.missing_attribution} row(s) under '{r.licence}' "
                           f"lack attribution")
        return out

    @property
    def ok(self) -> bool:
        return not self.problems

    def per_licence(self) -> dict[str, dict]:
        """Licence → total rows (over the ``generation`` config when present), flags."""
        configs = {r.config for r in self.rows}
        base = "generation" if "generation" in configs else None
        out: dict[str, dict] = {}
        for r in self.rows:
            if base and r.config != base:
                continue
            d = out.setdefault(r.licence, {"rows": 0, "missing_attribution": 0,
                                           "allowed": r.allowed, "nc": r.nc, "sa": r.sa})
            d["rows"] += r.rows
            d["missing_attribution"] += r.missing_attribution
        return out


class AuditCounter:
    """The audit as a running aggregate: per config × licence × split, rows and rows
    without attribution (a few counters however many rows are added)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[tuple[str, str], list[int]]] = {}

    def add(self, config: str, rows: list[dict]) -> None:
        counts = self.counts.setdefault(config, defaultdict(lambda: [0, 0]))
        for r in rows:
            attribution = r.get("attribution")
            c = counts[(r.get("licence") or "", r["split"])]
            c[0] += 1
            c[1] += not (isinstance(attribution, str) and attribution.strip())

    def audit(self, allow: list[str]) -> LicenceAudit:
        audit = LicenceAudit()
        for config, counts in sorted(self.counts.items()):
            for (licence, split), (n, missing) in sorted(counts.items()):
                audit.rows.append(LicenceRow(licence or "(none)", config, split, n, missing,
                                             allowed(licence, allow), **flags(licence)))
        return audit


def audit_frames(frames: dict[str, pd.DataFrame], allow: list[str]) -> LicenceAudit:
    """Audit tables keyed by config (each with ``licence``, ``attribution``, ``split``)."""
    counter = AuditCounter()
    for config, df in sorted(frames.items()):
        cols = [c for c in COLUMNS if c in df]
        counter.add(config, df[cols].to_dict("records"))
    return counter.audit(allow)


def read_published(root: Path) -> dict[str, pd.DataFrame]:
    """Licence columns of every config of a published version, read from its Parquet files
    as listed in the card's ``configs`` (images are not read)."""
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(root / "README.md")
    frames = {}
    for cfg in card.data.to_dict().get("configs", []):
        parts = []
        for df_spec in cfg.get("data_files", []):
            for path in sorted(glob.glob(str(root / df_spec["path"]))):
                names = pq.read_schema(path).names
                t = pq.read_table(path, columns=[c for c in COLUMNS if c in names]).to_pandas()
                t["split"] = df_spec["split"]
                parts.append(t)
        frames[cfg["config_name"]] = pd.concat(parts, ignore_index=True) if parts else \
            pd.DataFrame(columns=list(COLUMNS))
    return frames


def format_audit(audit: LicenceAudit) -> str:
    """Plain-text report: one line per licence × config × split, then any problems."""
    lines = [f"{'licence':<24} {'config':<12} {'split':<10} {'rows':>5} {'no attr':>7}  flags"]
    for r in audit.rows:
        fl = ",".join(n for n, v in (("NC", r.nc), ("SA", r.sa), ("DISALLOWED", not r.allowed))
                      if v) or "-"
        lines.append(f"{r.licence:<24} {r.config:<12} {r.split:<10} {r.rows:>5} "
                     f"{r.missing_attribution:>7}  {fl}")
    lines.append("licences allowed and every row attributed" if audit.ok
                 else "LICENCE PROBLEMS:\n  " + "\n  ".join(audit.problems))
    return "\n".join(lines)


@dataclass
class SourceEvidence:
    """What the crawl read about one source's licence: a repository at a commit (its
    licence files and manifests, each with ScanCode's method and score), or a kind of source
    whose licence comes from metadata (arXiv's licence URL, The Stack's licence column)."""

    source: str
    licence: str
    files: int
    evidence: list[dict] = field(default_factory=list)
    conflict: str = ""


def source_evidence(params: ProjectSettings) -> list[SourceEvidence]:
    """Per source, the evidence its licence was read from (the crawl rows' ``meta``) and
    every conflict the crawl ledgered (``licence_conflict``: files and manifests that name
    different licences; those files were not crawled on)."""
    import json

    paths = stage_paths(params, "crawl")
    repos: dict[str, SourceEvidence] = {}
    metadata: dict[str, Counter] = defaultdict(Counter)
    for _, table in ShardSet(paths.records, SOURCE_SCHEMA).iter_tables(
            ["kind", "licence", "meta"]):
        for r in table.to_pylist():
            meta = json.loads(r["meta"] or "{}")
            if "licence_evidence" not in meta:
                metadata[r["kind"]][r["licence"] or "(none)"] += 1
                continue
            key = f"{meta.get('repo')}@{str(meta.get('commit'))[:12]}"
            ev = repos.setdefault(key, SourceEvidence(key, r["licence"], 0,
                                                      meta["licence_evidence"]))
            ev.files += 1
    for _, table in ShardSet(paths.rejections, REJECTION_SCHEMA).iter_tables(
            ["locator", "reason", "detail"]):
        for r in table.to_pylist():
            if r["reason"] != "licence_conflict":
                continue
            key = r["locator"].split(":", 1)[-1].split(":", 1)[0] \
                if r["locator"].startswith("repo_search:") else r["locator"].split(":", 1)[0]
            ev = repos.setdefault(key, SourceEvidence(key, "", 0, [], r["detail"]))
            ev.conflict = r["detail"]
            ev.files += 1
    out = [repos[k] for k in sorted(repos)]
    for kind, counts in sorted(metadata.items()):
        out.append(SourceEvidence(kind, ", ".join(f"{k} ×{n}" for k, n in sorted(counts.items())),
                                  sum(counts.values()),
                                  [{"file": _METADATA.get(kind, "its metadata"),
                                    "method": "metadata", "spdx": "", "score": 100.0}]))
    return out


_METADATA = {"arxiv": "arXiv's licence URL (OAI-PMH)",
             "pdf": "the paper's arXiv licence, or crawl.pdf.licence",
             "stack": "The Stack's repository licence column"}


def format_evidence(sources: list[SourceEvidence]) -> str:
    """Plain text: per source its licence and evidence (file, method, ScanCode score), then
    the conflicts the crawl ledgered."""
    lines = ["Licence evidence per source (read at crawl):"]
    for s in sources:
        if s.conflict:
            continue
        lines.append(f"  {s.source}  {s.licence}  ({s.files} crawled row(s))")
        for e in s.evidence:
            said = f"  {e['spdx']}" if e.get("spdx") else ""
            why = f" — {e['detail']}" if e.get("detail") else ""
            lines.append(f"      {e['file']:<28} {e['method']:<11} score {e['score']:>6.2f}"
                         f"{said}{why}")
    conflicts = [s for s in sources if s.conflict]
    lines.append("Licence conflicts (ledgered at crawl as licence_conflict):" if conflicts
                 else "Licence conflicts: none")
    lines += [f"  {s.source}: {s.conflict} ({s.files} file(s) ledgered)"
              for s in conflicts]
    return "\n".join(lines)


def card_licence(licences: list[str], hub_ids: dict[str, str]) -> tuple[str, dict]:
    """The card's ``license``: the Hub id of the one licence every row carries, else
    ``other`` with a name and a link to the attribution file (rows carry ``licence``)."""
    uniq = sorted(set(licences))
    if len(uniq) == 1 and uniq[0] in hub_ids:
        return hub_ids[uniq[0]], {}
    name = uniq[0] if len(uniq) == 1 else "mixed"
    return "other", {"license_name": name, "license_link": "LICENSES.md"}

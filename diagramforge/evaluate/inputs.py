"""Read what is evaluated: a predictions file and the published rows of one config/split.

References are read the way a user of the dataset reads them: from the published
directory's card (``README.md`` front matter lists each config's ``data_files`` per split),
so a view config (``tikz`` = the TikZ files of ``generation``) resolves like on the Hub.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from diagramforge.cards.nested import stored
from diagramforge.cards.references import HOME, REFERENCED

ID_COLUMN = "id"
OUTPUT_COLUMNS = ("prediction", "output")
"""Where a predictions row holds the model's output (the first present wins)."""


class InputError(ValueError):
    """The predictions file or the published config cannot be read as asked."""


@dataclass
class Predictions:
    outputs: dict[str, str | None] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    """Ids given more than once: the first output is scored, the rest listed."""


def read_predictions(path: str | Path) -> Predictions:
    """JSON lines (``.jsonl``/``.json``) or Parquet with ``id`` and ``prediction`` (or
    ``output``); a non-string output (a null, a number) is kept as given and scored as
    what it is — a missing or wrong answer, never a crash."""
    path = Path(path)
    if path.suffix == ".parquet":
        rows = pq.read_table(path).to_pylist()
    else:
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: not JSON ({exc.msg})") from exc
    out = Predictions()
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or ID_COLUMN not in row:
            raise InputError(f"{path}: row {n} has no {ID_COLUMN!r}")
        key = next((c for c in OUTPUT_COLUMNS if c in row), None)
        if key is None:
            raise InputError(f"{path}: row {n} has none of {list(OUTPUT_COLUMNS)}")
        rid = str(row[ID_COLUMN])
        if rid in out.outputs:
            out.duplicates.append(rid)
            continue
        value = row[key]
        out.outputs[rid] = value if value is None or isinstance(value, str) else json.dumps(value)
    return out


def card_configs(root: Path) -> dict[str, dict]:
    """Config name → its card entry (``data_files``…), from ``README.md``'s front matter."""
    card = root / "README.md"
    if not card.exists():
        raise InputError(f"{root} is not a published dataset (no README.md)")
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---"):
        raise InputError(f"{card} has no YAML front matter")
    meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    return {c["config_name"]: c for c in meta.get("configs", [])}


def reference_rows(root: Path, config: str, split: str, resolve: tuple[str, ...] = ()
                   ) -> list[dict]:
    """The published rows of ``config``/``split``; ``Image`` columns as their bytes. Each
    column of ``resolve`` the config does not publish — left out as a reference to the
    diagram's render (``cards/references.py``) — is filled from ``generation``."""
    configs = card_configs(root)
    if config not in configs:
        raise InputError(f"no config {config!r} in {root}; known: {sorted(configs)}")
    files = [d["path"] for d in configs[config].get("data_files", []) if d["split"] == split]
    if not files:
        have = sorted(d["split"] for d in configs[config].get("data_files", []))
        raise InputError(f"config {config!r} has no split {split!r}; it has {have}")
    rows: list[dict] = []
    columns: set[str] = set()
    for pattern in files:
        for p in sorted(root.glob(pattern)):
            table = pq.read_table(p)
            columns |= set(table.column_names)
            rows += table.to_pylist()
    for r in rows:
        for k, v in r.items():
            if isinstance(v, dict) and set(v) == {"bytes", "path"}:
                r[k] = v["bytes"]
            else:  # nested published columns back to the stages' JSON text
                r[k] = stored(k, v)
    if config != HOME and "diagram_id" in columns:
        _resolve(root, configs, split, rows,
                 [c for c in resolve if c in REFERENCED and c not in columns])
    return rows


def _resolve(root: Path, configs: dict[str, dict], split: str, rows: list[dict],
             missing: list[str]) -> None:
    """Fill each column publish left out as a reference (``cards/references.py``: every
    row's value was its diagram's ``generation`` render) from ``generation``'s row
    ``id == diagram_id`` of the same split — what a user of the dataset does — reading only
    the renders these rows point at."""
    import pyarrow.compute as pc

    if not missing or not rows or HOME not in configs:
        return
    wanted = pa.array(sorted({str(r["diagram_id"]) for r in rows}))
    found: dict[str, dict] = {}
    for d in configs[HOME].get("data_files", []):
        if d["split"] != split:
            continue
        for p in sorted(root.glob(d["path"])):
            table = pq.read_table(p, columns=["id", *{REFERENCED[c] for c in missing}])
            table = table.filter(pc.is_in(table.column("id"), value_set=wanted))
            found |= {str(r["id"]): r for r in table.to_pylist()}
    for r in rows:
        home = found.get(str(r["diagram_id"]), {})
        for col in missing:
            value = home.get(REFERENCED[col])
            r[col] = value["bytes"] if isinstance(value, dict) else value

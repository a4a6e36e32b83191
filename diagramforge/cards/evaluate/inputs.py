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

from diagramforge.cards.validate.nested import stored
from diagramforge.cards.validate.references import HOME, REFERENCED

ID_COLUMN = "id"
OUTPUT_COLUMNS = ("prediction", "output")
"""Where a predictions row holds the model's output (the first present wins)."""


class InputError(ValueError):
    """The predictions file or the published config cannot be read as asked."""


class InputReason:
    """Why a predictions row is no usable output.  The first five name an item (the row
    has its id): that item scores 0 with the reason.  The others name a row only."""

    NO_PREDICTION = "no_prediction"
    """No row for the item, or its output is null."""
    FIELD_MISSING = "prediction_field_missing"
    """A row with the item's id but none of :data:`OUTPUT_COLUMNS`."""
    NOT_UTF8 = "prediction_not_utf8"
    """The output is not valid UTF-8 (raw bytes in the file, a lone surrogate escape)."""
    TOO_LARGE = "prediction_too_large"
    """Over ``evaluate.max_prediction_bytes``: never compiled nor counted in tokens."""
    DUPLICATE = "duplicate_id"
    """Several rows for one item: which one is the model's answer is unknown."""
    MALFORMED_ROW = "row_malformed"
    """A line that is not a JSON object."""
    NO_ID = "row_without_id"
    UNKNOWN_ID = "unknown_id"
    """A row for an id the config and split do not hold."""


ITEM_REASONS = (InputReason.NO_PREDICTION, InputReason.FIELD_MISSING, InputReason.NOT_UTF8,
                InputReason.TOO_LARGE, InputReason.DUPLICATE)


@dataclass
class Predictions:
    outputs: dict[str, str | None] = field(default_factory=dict)
    """Id → the output to score (null: nothing predicted)."""
    problems: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Id → (reason, detail) for an item whose row(s) give no usable output; such an item
    scores 0 whatever :attr:`outputs` holds."""
    rows: list[dict] = field(default_factory=list)
    """Rows that are no item's (``row`` number, ``reason``, ``detail``): malformed lines,
    rows without an id; unknown ids are added once the references are known."""
    duplicates: list[str] = field(default_factory=list)
    """Ids given more than once (each extra row once)."""
    row_of: dict[str, int] = field(default_factory=dict)
    """Id → the row (line) that first gave it."""

    def row_problem(self, n: int, reason: str, detail: str = "") -> None:
        self.rows.append({"row": n, "reason": reason, "detail": detail[:200]})


def _lines(path: Path) -> list[tuple[int, object, bool]]:
    """(line number, parsed row or the parse error, valid UTF-8) per non-blank line.  A
    line that is not UTF-8 is parsed with the bad bytes replaced, so its id is known."""
    raw = path.read_bytes()
    head = raw.lstrip()[:1]
    if head == b"[":  # one JSON array of rows
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            pass
        else:
            if isinstance(data, list):
                return [(n, row, True) for n, row in enumerate(data, 1)]
    out: list[tuple[int, object, bool]] = []
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            text, ok = line.decode("utf-8"), True
        except UnicodeDecodeError:
            text, ok = line.decode("utf-8", "replace"), False
        try:
            out.append((n, json.loads(text), ok))
        except json.JSONDecodeError as exc:
            out.append((n, exc, ok))
    return out


def _utf8(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON "\\udcff")
        return False
    return True


def read_predictions(path: str | Path, max_bytes: int | None = None) -> Predictions:
    """JSON lines (``.jsonl``/``.json``; a ``.json`` file may also be one array of rows) or
    Parquet, with ``id`` and ``prediction`` (or ``output``) per row.

    Nothing in a row stops the run: a row that names its item but gives no usable output
    (no output field, not UTF-8, over ``max_bytes``, the id given twice) marks that item
    (:attr:`Predictions.problems`, it scores 0); a row that names no item (not JSON, no id)
    is listed in :attr:`Predictions.rows`.  A non-string output (a number, a list) is kept
    as its JSON text and scored as what it is — a wrong answer.  Only a file that cannot
    be read at all is an :class:`InputError`."""
    path = Path(path)
    out = Predictions()
    if path.suffix == ".parquet":
        try:
            rows = [(n, r, True) for n, r in enumerate(pq.read_table(path).to_pylist(), 1)]
        except (OSError, ValueError) as exc:  # pyarrow's errors subclass both
            raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    else:
        try:
            rows = _lines(path)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None
    seen: set[str] = set()
    for n, row, utf8 in rows:
        if isinstance(row, Exception) or not isinstance(row, dict):
            why = f"not JSON ({row.msg})" if isinstance(row, json.JSONDecodeError) \
                else f"not a JSON object ({type(row).__name__})"
            out.row_problem(n, InputReason.MALFORMED_ROW, why)
            continue
        rid = row.get(ID_COLUMN)
        if rid is None or isinstance(rid, dict | list) or str(rid) == "":
            out.row_problem(n, InputReason.NO_ID, f"keys: {sorted(map(str, row))[:8]}")
            continue
        rid = str(rid)
        if rid in seen:
            out.duplicates.append(rid)
            out.problems[rid] = (InputReason.DUPLICATE, f"rows for this id: "
                                 f"{out.duplicates.count(rid) + 1}")
            out.outputs.pop(rid, None)
            continue
        seen.add(rid)
        out.row_of[rid] = n
        key = next((c for c in OUTPUT_COLUMNS if c in row), None)
        if key is None:
            out.problems[rid] = (InputReason.FIELD_MISSING,
                                 f"row {n} has none of {list(OUTPUT_COLUMNS)}")
            continue
        value = row[key]
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                out.problems[rid] = (InputReason.NOT_UTF8, f"row {n}: {exc}")
                continue
        elif value is not None and not isinstance(value, str):
            value = json.dumps(value)
        if value is not None and (not utf8 or not _utf8(value)):
            out.problems[rid] = (InputReason.NOT_UTF8, f"row {n}: invalid UTF-8")
            continue
        if value is not None and max_bytes is not None:
            size = len(value.encode("utf-8"))
            if size > max_bytes:
                out.problems[rid] = (InputReason.TOO_LARGE, f"{size:,} bytes > {max_bytes:,}")
                continue
        out.outputs[rid] = value
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
    diagram's render (``cards/validate/references.py``) — is filled from ``generation``."""
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
    """Fill each column publish left out as a reference (``cards/validate/references.py``: every
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

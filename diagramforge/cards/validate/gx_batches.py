"""One Great Expectations suite run over a table's batches, merged into one whole-table result.

Why: the validate stage must never hold more than one shard of images, but its report is
the GX result of one suite on the whole table. GX's SUMMARY results are sums (element,
missing and unexpected counts) and the first ``partial_unexpected_count`` unexpected values
and row indices, so per-batch results fold exactly into the whole table's: counts add up,
partial lists concatenate (each batch's frame is indexed by its global row offset) and are
cut at the same limit, the percentages and ``success`` are recomputed with GX's formulas.
The one cross-row column expectation (unique values) is answered by the caller's
table-wide set of duplicated values. A single batch's result is GX's own, unchanged.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Mapping

import pandas as pd

PARTIAL = 20
"""GX's default ``partial_unexpected_count`` (SUMMARY result format)."""

ROW_COUNT = "expect_table_row_count_to_be_between"
UNIQUE = "expect_column_values_to_be_unique"


class BatchedValidation:
    """Validate consecutive batches of one table with one suite; :meth:`result` is the
    whole table's result."""

    def __init__(self, source, name: str, suite,  # noqa: ANN001 - GX datasource, suite
                 duplicates: Mapping[str, set] | None = None, batch_rows: int = 1):
        self.batches = source.add_dataframe_asset(name) \
            .add_batch_definition_whole_dataframe("all")
        self.suite = suite
        self.duplicates = duplicates or {}
        self.rows = 0
        self.count = 0
        self.first: dict | None = None
        self.acc: dict | None = None
        self.fingerprints: list[str] = []
        self.batch_rows = batch_rows
        self.pending: list[pd.DataFrame] = []
        self.seen = 0

    def add(self, df: pd.DataFrame) -> None:
        """Queue the table's next rows; validated once ``batch_rows`` are queued (GX has a
        fixed cost per batch, so a batch is several shards' frames, images measured)."""
        self.pending.append(df)
        self.seen += len(df)
        if sum(len(d) for d in self.pending) >= self.batch_rows:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        df = pd.concat(self.pending, ignore_index=True) if len(self.pending) > 1 \
            else self.pending[0]
        self.pending = []
        self._validate(df)

    def _validate(self, df: pd.DataFrame) -> None:
        """Validate one batch (its index becomes its rows' place in the whole table)."""
        df.index = pd.RangeIndex(self.rows, self.rows + len(df))
        res = self.batches.get_batch(batch_parameters={"dataframe": df}) \
            .validate(self.suite).to_json_dict()
        self.fingerprints.append(
            res["meta"].get("batch_markers", {}).get("pandas_data_fingerprint", ""))
        for r in res["results"]:
            cfg = r["expectation_config"]
            dups = self.duplicates.get(cfg["kwargs"].get("column", ""))
            if cfg["type"] == UNIQUE and dups is not None and "unexpected_count" in r["result"]:
                col = df[cfg["kwargs"]["column"]]
                bad = col[col.notna() & col.isin(dups)]
                r["result"]["unexpected_count"] = len(bad)
                r["result"]["partial_unexpected_list"] = bad.tolist()[:PARTIAL]
                r["result"]["partial_unexpected_index_list"] = bad.index.tolist()[:PARTIAL]
        self.rows += len(df)
        self.count += 1
        if self.first is None:
            self.first = copy.deepcopy(res)
            self.acc = res
        else:
            _fold(self.acc, res)

    def result(self) -> dict:
        self._flush()
        if self.first is None:
            raise ValueError("no batch was validated")
        if self.count == 1:
            return self.first
        out = self.acc
        for r in out["results"]:
            _finish(r)
        ok = sum(r["success"] for r in out["results"])
        n = len(out["results"])
        out["success"] = ok == n
        out["statistics"] = {"evaluated_expectations": n,
                             "success_percent": ok / n * 100 if n else None,
                             "successful_expectations": ok, "unsuccessful_expectations": n - ok}
        # the whole table's fingerprint: of its batches' fingerprints, in order
        markers = out["meta"].get("batch_markers", {})
        if "pandas_data_fingerprint" in markers:
            markers["pandas_data_fingerprint"] = hashlib.md5(
                "".join(self.fingerprints).encode(), usedforsecurity=False).hexdigest()
        return out


def _fold(acc: dict, res: dict) -> None:
    for a, r in zip(acc["results"], res["results"], strict=True):
        if a["expectation_config"]["type"] != r["expectation_config"]["type"]:
            raise ValueError("batches were validated with different suites")
        if r["exception_info"].get("raised_exception") and \
                not a["exception_info"].get("raised_exception"):
            a["exception_info"] = r["exception_info"]
        ra, rr = a["result"], r["result"]
        if "observed_value" in rr and a["expectation_config"]["type"] == ROW_COUNT:
            ra["observed_value"] = (ra.get("observed_value") or 0) + rr["observed_value"]
            continue
        for key in ("element_count", "missing_count", "unexpected_count"):
            if key in rr:
                ra[key] = (ra.get(key) or 0) + (rr[key] or 0)
        for key in ("partial_unexpected_list", "partial_unexpected_index_list"):
            if key in rr:
                ra[key] = (ra.get(key) or []) + rr[key][:PARTIAL - len(ra.get(key) or [])]


def _finish(r: dict) -> None:
    """Recompute what GX derives from the counts (``_format_map_output``) and success."""
    res, cfg = r["result"], r["expectation_config"]
    if r["exception_info"].get("raised_exception"):
        r["success"] = False
        return
    if cfg["type"] == ROW_COUNT:
        lo, hi, n = cfg["kwargs"].get("min_value"), cfg["kwargs"].get("max_value"), \
            res["observed_value"]
        r["success"] = (lo is None or n >= lo) and (hi is None or n <= hi)
        return
    if "unexpected_count" not in res:
        return
    n, bad = res["element_count"], res["unexpected_count"]
    if "missing_count" in res:
        nonnull = n - res["missing_count"]
        total = bad / n * 100 if n > 0 else None
        nonmissing = (bad / nonnull * 100 if nonnull > 0 else None) if n > 0 else None
        res["missing_percent"] = res["missing_count"] / n * 100 if n > 0 else None
        res["unexpected_percent_total"] = total
        res["unexpected_percent_nonmissing"] = nonmissing
        res["unexpected_percent"] = nonmissing
    else:  # an expectation that skips nothing (not-null): percent of every row
        res["unexpected_percent"] = bad / n * 100 if n > 0 else None
    if "partial_unexpected_list" in res:
        try:
            res["partial_unexpected_counts"] = [
                {"value": k, "count": c} for k, c in sorted(
                    Counter(res["partial_unexpected_list"]).most_common(PARTIAL),
                    key=lambda x: (-x[1], x[0]))]
        except TypeError:
            res["partial_unexpected_counts"] = [
                {"error": "partial_exception_counts requires a hashable type"}]
    r["success"] = bad == 0

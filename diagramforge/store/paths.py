"""Where a stage's outputs live — the one module reporting code needs to find them.

Kept apart from the runner so that the audit, the card and the CLI read stage outputs without
importing a process pool or an executor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from diagramforge.params import ProjectParams


class ProjectSettings(Protocol):
    """What finding a stage's outputs reads of the params: ``project`` (where data and
    metrics live). The loaded ``Params`` is one; so is anything holding a ``project``."""

    @property
    def project(self) -> ProjectParams: ...


@dataclass(frozen=True)
class StagePaths:
    root: Path

    @property
    def records(self) -> Path:
        return self.root / "records"

    @property
    def rejections(self) -> Path:
        return self.root / "rejections"

    @property
    def shard_stats(self) -> Path:
        return self.root / "_shard_stats"

    @property
    def state(self) -> Path:
        return self.root / "_state.json"


def stage_paths(params: ProjectSettings, name: str) -> StagePaths:
    return StagePaths(Path(params.project.data_dir) / name)


def environment_path(params: ProjectSettings, name: str) -> Path:
    """Digest of the outside tools a stage's committed shards were made with (TeX Live,
    Chromium…): beside the stage outputs, not inside them, so that the same records made
    with another Chromium point release hash the same in ``dvc.lock``."""
    return Path(params.project.data_dir) / ".runner" / f"{name}.environment.json"


def done_path(params: ProjectSettings, name: str) -> Path:
    """The fingerprint (code, params, inputs) of a stage's finished output, and the files
    it made: beside the output, not in it, so that moving code without changing a byte of
    the data leaves the output's hash in ``dvc.lock`` alone (``runner._finish``)."""
    return Path(params.project.data_dir) / ".runner" / f"{name}.done.json"


def metrics_path(params: ProjectSettings, name: str) -> Path:
    return Path(params.project.metrics_dir) / f"{name}.json"


def read_state(params: ProjectSettings, name: str) -> dict:
    p = stage_paths(params, name).state
    return json.loads(p.read_text()) if p.exists() else {}

"""The ``hub-push`` DVC stage: uploads the published version when ``publish.push`` is true
(``diagramforge push`` is the same upload by hand, with ``--dry-run``).

Off by default, so ``dvc repro`` never reaches the network unless asked; when on, it does
what ``diagramforge push`` does (one commit, tag ``v<version>``, changelog) and fails the
pipeline if the tag already exists rather than moving it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from diagramforge.stage import StageLog, StageSettings, TableStage

if TYPE_CHECKING:
    from diagramforge.cards.publish.settings import PublishParams


class PushCounter:
    PUSHED = "pushed"
    OPERATIONS = "operations"
    BYTES = "bytes"


class PushStageSettings(StageSettings, Protocol):
    """What the hub-push stage reads: the ``publish`` section and the stage base's part."""

    @property
    def publish(self) -> PublishParams: ...


class PushStage(TableStage):
    """The pipeline's upload, run by `dvc repro` after publish: the same upload as
    `diagramforge push` (one commit tagged v<version> with CHANGELOG.md, to
    publish.repo_id), done only when publish.push is true and a no-op otherwise, so a
    repro stays offline unless asked. To preview or upload by hand, use `diagramforge
    push`."""

    name = "hub-push"
    params: PushStageSettings
    upstream = "publish"
    output_schema = None
    funnel = False
    param_sections = ("publish",)
    code = ("cards/hub", "cards/publish/manifest.py")
    inputs = ("data/published",)

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        if not self.params.publish.push:
            log.stats.extra[PushCounter.PUSHED] = 0
            return []
        # lazy: loads huggingface_hub, pandas
        from diagramforge.cards.hub.push import push_version

        plan = push_version(self.params.publish)
        log.stats.extra.update({PushCounter.PUSHED: 1,
                                PushCounter.OPERATIONS: len(plan.operations),
                                PushCounter.BYTES: sum(s for _, _, s in plan.operations)})
        return []

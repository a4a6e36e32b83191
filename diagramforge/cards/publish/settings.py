"""The ``publish`` section of ``params.yaml``: the dataset's name and version, where it is
written, how its Parquet files are cut, the gallery, and the Hub repository the ``hub-push``
stage (which sits above publish and reads this section) uploads to.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.params import Section


class PublishParams(Section):
    name: str = "diagramforge-samples"
    version: str = Field("0.1.0", pattern=r"^\d+\.\d+\.\d+$")
    out_dir: str = "data/published"
    repo_id: str | None = None
    pretty_name: str = "diagramforge sample diagrams"
    history_dir: str = "data/releases"
    """Each version's stats and manifest, kept for ``stats --compare`` and changelogs."""
    push: bool = False
    """The ``push`` stage uploads the version to ``repo_id`` only when true."""
    endpoint: str | None = None
    """Hub URL (``None``: huggingface.co, or ``HF_ENDPOINT``)."""
    private: bool = False
    token_env: str = "HF_TOKEN"
    """Name of the environment variable holding the Hub token (never the token itself)."""
    max_file_bytes: Annotated[int, Field(ge=1)] = 500_000_000
    """A published Parquet file is closed and the next one (``…-0000k-of-0000n``) begun
    once it holds this many bytes: the Hub caps files at 50 GB and its viewer and
    ``datasets`` streaming work best near 500 MB (docs/SCALE.md §7)."""
    max_file_rows: Annotated[int, Field(ge=1)] = 1_000_000
    """…or this many rows, whichever comes first."""
    row_group_bytes: Annotated[int, Field(ge=1)] = 32 * 1024 * 1024
    """A Parquet row group is written once this many (uncompressed) bytes are buffered:
    publish holds at most one such buffer per open config × split (≈ 15 for generation),
    so this bounds its memory; a split smaller than it is one row group, as
    ``Dataset.to_parquet`` writes it."""
    gallery_max_diagrams: Annotated[int, Field(ge=0)] = 2000
    """Diagrams (the first by id) the gallery shows with images: two files each in
    ``gallery/img`` and ``gallery/thumb`` and at most four twins' renders in
    ``gallery/twin`` (one per other language), kept under the Hub's 10k entries per
    folder."""
    image_cache_dir: str | None = "data/cache/images"
    """Where each published image's encoding is kept (``render.raster.encode_at: publish``),
    keyed by the stored bytes, the codec's settings and the encoder's versions: a rerun of
    publish (a new card text, a new version number, a new selection) reads what an earlier
    run encoded instead of encoding every image again. ``null``: not kept."""
    push_max_files: Annotated[int, Field(ge=1)] = 100
    """Files per Hub commit: a push of more is split into several commits (the Hub
    rejects very large commits); the version tag goes on the last."""

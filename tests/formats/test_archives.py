import gzip
import io
import tarfile
import zipfile

import pytest

from diagramforge.formats.archives import ArchiveError, ArchiveReason, Limits, read_archive


def tar_gz(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(buf.getvalue(), mtime=0)


def reg(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, None


def test_reads_tarball_members():
    files = read_archive(tar_gz([reg("main.tex", b"\\documentclass{article}"),
                                 reg("fig/a.tex", b"%")]))
    assert files == {"main.tex": b"\\documentclass{article}", "fig/a.tex": b"%"}


@pytest.mark.parametrize("member, fragment", [
    (reg("../../etc/evil.tex"), "path traversal"),
    (reg("a/../../b.tex"), "path traversal"),
    (reg("/etc/passwd"), "absolute path"),
    (special("link.tex", tarfile.SYMTYPE, "/etc/passwd"), "link"),
    (special("hard.tex", tarfile.LNKTYPE, "main.tex"), "link"),
    (special("dev", tarfile.CHRTYPE), "device"),
    (special("fifo", tarfile.FIFOTYPE), "fifo"),
])
def test_hostile_members_refuse_the_archive(member, fragment):
    with pytest.raises(ArchiveError) as e:
        read_archive(tar_gz([reg("main.tex"), member]))
    assert e.value.reason == ArchiveReason.UNSAFE
    assert fragment in e.value.detail


def test_size_caps():
    with pytest.raises(ArchiveError) as e:
        read_archive(tar_gz([reg("big.tex", b"a" * 5000)]),
                     Limits(max_member_bytes=1000, max_ratio=10_000))
    assert e.value.reason == ArchiveReason.TOO_LARGE
    with pytest.raises(ArchiveError) as e:
        read_archive(tar_gz([reg(f"f{i}.tex") for i in range(20)]), Limits(max_members=5))
    assert e.value.reason == ArchiveReason.TOO_LARGE


def test_decompression_bomb_is_stopped_while_inflating():
    bomb = gzip.compress(b"\0" * 20_000_000, mtime=0)
    with pytest.raises(ArchiveError) as e:
        read_archive(bomb, Limits(max_ratio=100))
    assert e.value.reason == ArchiveReason.BOMB


def test_single_file_gzip_eprint():
    files = read_archive(gzip.compress(b"\\documentclass{article}\\begin{document}x", mtime=0))
    assert list(files) == ["main.tex"]


def test_zip_traversal_and_ok():
    def z(name):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr(name, "hello")
        return buf.getvalue()

    assert read_archive(z("main.tex")) == {"main.tex": b"hello"}
    with pytest.raises(ArchiveError, match="traversal"):
        read_archive(z("../x.tex"))


def test_pdf_and_garbage_are_not_source():
    with pytest.raises(ArchiveError) as e:
        read_archive(b"%PDF-1.5 ...")
    assert e.value.reason == ArchiveReason.NOT_SOURCE
    with pytest.raises(ArchiveError) as e:
        read_archive(b"\x1f\x8bnot really gzip")
    assert e.value.reason == ArchiveReason.CORRUPT

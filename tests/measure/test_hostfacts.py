"""No fact of the machine in what a stage writes: the ledger's details are scrubbed."""

from __future__ import annotations

import os
import socket
import tempfile

import pytest

from diagramforge.measure.hostfacts import scrub
from diagramforge.store.records import Rejection


@pytest.mark.parametrize("text, want", [
    # kpathsea's temp dir names the process
    ("mkdir: cannot create directory ‘/tmp/mt12121.tmp’: Permission denied",
     "mkdir: cannot create directory ‘<tmp>’: Permission denied"),
    # a job directory: the random part goes, the file below it stays
    ("! I can't find file `/tmp/dftex-k3j9x/job/data.csv'.",
     "! I can't find file `<tmp>/job/data.csv'."),
    ("/var/tmp/tmpab12cd", "<tmp>"),
    ("worker pid 4242 died", "worker pid <pid> died"),
    ("bare mt6982.tmp left behind", "bare <tmp> left behind"),
    # the input's own text is not a host fact
    ("path traversal '../../../../tmp/diagramforge-traversal.tex'",
     "path traversal '../../../../tmp/diagramforge-traversal.tex'"),
    ("</root></mxGraphModel>", "</root></mxGraphModel>"),
    ("\\input{/etc/passwd} refused", "\\input{/etc/passwd} refused"),
    ("", ""),
])
def test_scrub_replaces_the_facts_of_this_machine(text, want):
    assert scrub(text) == want


def test_home_checkout_and_host_become_placeholders(tmp_path, monkeypatch):
    home = tmp_path / "someone"
    checkout = tmp_path / "work" / "clone"
    checkout.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(checkout)
    assert scrub(f"read {home}/.texlive2022/texmf-var/x.pk") == "read ~/.texlive2022/texmf-var/x.pk"
    # the checkout wins over the temp root it may sit under
    assert scrub(f"wrote {checkout}/data/cache/tex/a.pdf") == "wrote data/cache/tex/a.pdf"
    host = socket.gethostname()
    if len(host) >= 4:
        assert host not in scrub(f"connect to {host}:8786 refused")


def test_a_rejection_row_carries_no_temp_path():
    tmp = tempfile.gettempdir()
    rej = Rejection(locator=f"{tmp}/x/a.tex", reason="compile_forbidden_io",
                    detail=f"mkdir: cannot create directory '{tmp}/mt{os.getpid()}.tmp'")
    row = rej.to_row("twin")
    assert tmp not in row["detail"] and str(os.getpid()) not in row["detail"]
    assert row["locator"] == "<tmp>/a.tex"

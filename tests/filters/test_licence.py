from diagramforge.filters.licence import make_licence_filter
from diagramforge.licences import allowed, spdx_from_url
from tests.conftest import make_params


def test_arxiv_urls_map_to_spdx():
    assert spdx_from_url("http://creativecommons.org/licenses/by/4.0/") == "CC-BY-4.0"
    assert spdx_from_url("https://creativecommons.org/publicdomain/zero/1.0") == "CC0-1.0"
    assert spdx_from_url(None) == "LicenseRef-none"
    assert spdx_from_url("http://example.org/x").startswith("LicenseRef-unknown")


def test_allow_list_and_or_expressions():
    assert allowed("MIT OR GPL-3.0-only", ["MIT"])
    assert not allowed("GPL-3.0-only", ["MIT"])
    assert not allowed(None, ["MIT"])


def test_licence_filter(tmp_path):
    check = make_licence_filter(make_params(tmp_path, licences={"allow": ["CC-BY-4.0"]}))
    assert check({"licence": "CC-BY-4.0"}).keep
    v = check({"licence": "CC-BY-NC-SA-4.0"})
    assert not v.keep and v.reason == "licence_not_allowed"

"""The polite GitHub client against the loopback API: rate limits waited out on a fake
clock (no test sleeps), conditional requests, Link pagination, the token kept to its
header."""

from __future__ import annotations

import pytest

from diagramforge.builders.crawl.github_api import GitHubClient, GitHubError, RateLimited
from tests.builders.crawl.github_server import Faults, GitHubLoopback, Repo

TOKEN = "ghp_loopback_token"


class FakeClock:
    def __init__(self, start: float = 1_700_000_000.0):
        self.now = start
        self.slept: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


REPOS = [Repo("a/one", "1" * 40, [f"d{i}.drawio" for i in range(5)])]


def client(srv: GitHubLoopback, clock: FakeClock, tmp_path, **kw) -> GitHubClient:
    return GitHubClient(srv.url, TOKEN, "df-test/1", tmp_path / "http", clock=clock.time,
                        sleep=clock.sleep, **{"min_interval_s": 0.0, **kw})


def test_pages_by_link_header_and_304_from_the_etag_cache(tmp_path):
    clock = FakeClock()
    with GitHubLoopback(REPOS, TOKEN, clock.time) as srv:
        gh = client(srv, clock, tmp_path, min_interval_s=6.0)
        url, items = gh.url("/search/code", {"q": "extension:drawio", "per_page": 2}), []
        while url:
            page = gh.get(url)
            assert page.status == 200
            items += page.data["items"]
            url = page.next_url
        assert [i["path"] for i in items] == [f"d{i}.drawio" for i in range(5)]
        assert [e.get("page") for e in srv.log] == [1, 2, 3]
        assert {e["auth"] for e in srv.log} == {f"Bearer {TOKEN}"}
        assert sum(clock.slept) == pytest.approx(12.0)  # paced: 6 s apart, on the fake clock
        again = gh.get(gh.url("/search/code", {"q": "extension:drawio", "per_page": 2}))
        assert again.status == 304 and again.data["items"] == items[:2]
        assert again.next_url and srv.log[-1]["conditional"]
    cached = b"".join(p.read_bytes() for p in (tmp_path / "http").iterdir())
    assert TOKEN.encode() not in cached


def test_primary_and_secondary_rate_limits_are_waited_out_on_the_clock(tmp_path):
    clock = FakeClock()
    faults = Faults(primary={("drawio", 1)}, secondary={("drawio", 2)}, reset_in=30,
                    retry_after=7)
    with GitHubLoopback(REPOS, TOKEN, clock.time, faults) as srv:
        gh = client(srv, clock, tmp_path)
        first = gh.get("/search/code", {"q": "extension:drawio", "per_page": 2})
        second = gh.get(first.next_url)
    assert first.status == second.status == 200
    assert [e["status"] for e in srv.log] == [403, 200, 429, 200]
    assert clock.slept == [pytest.approx(31.0), 7.0]  # until reset (+1 s), then Retry-After
    assert gh.counters["rate_limited"] == 2


def test_a_wait_past_max_wait_raises_so_the_caller_can_resume_later(tmp_path):
    clock = FakeClock()
    faults = Faults(primary={("drawio", 1)}, reset_in=3600)
    with GitHubLoopback(REPOS, TOKEN, clock.time, faults) as srv:
        gh = client(srv, clock, tmp_path, max_wait_s=600)
        with pytest.raises(RateLimited) as exc:
            gh.get("/search/code", {"q": "extension:drawio"})
        assert exc.value.wait_s > 600 and clock.slept == []
        # the remaining=0 answer is remembered: the next call does not hit the server
        with pytest.raises(RateLimited):
            gh.get("/search/code", {"q": "extension:dio"})
        assert len(srv.log) == 1


def test_refusals_are_errors_not_waits(tmp_path):
    clock = FakeClock()
    with GitHubLoopback(REPOS, "another-token", clock.time) as srv:
        gh = client(srv, clock, tmp_path)
        with pytest.raises(GitHubError, match="401"):
            gh.get("/search/code", {"q": "extension:drawio"})
        with pytest.raises(GitHubError, match="404"):
            gh.get("/repos/no/such")
    assert clock.slept == []

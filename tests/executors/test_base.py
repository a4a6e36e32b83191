"""What every executor shares: how many units are in flight at once."""

from __future__ import annotations

from diagramforge.executors.base import AHEAD_PER_WORKER, in_flight


def test_units_are_submitted_a_bounded_window_ahead_in_order():
    submitted: list[int] = []
    units = list(range(50))
    futures = in_flight(units, [1.0] * 50, workers=2,
                        submit=lambda u, t: submitted.append(u) or u)
    seen = []
    for fut in futures:
        # never more than the window is submitted beyond what the caller has taken
        assert len(submitted) - len(seen) <= AHEAD_PER_WORKER * 2
        seen.append(fut)
    assert seen == units == submitted


def test_an_empty_stage_submits_nothing():
    assert list(in_flight([], [], workers=3, submit=lambda u, t: 1 / 0)) == []

"""The order xdist hands test files out in (issue 41: the suite's wall time)."""

from __future__ import annotations

import pytest

from tests.conftest import HEAVY_FIRST, file_order

LIGHT = ["a/test_one.py", "b/test_two.py", "test_three.py"]


@pytest.mark.parametrize("workers", [1, 2, 3, 4])
def test_the_clones_go_first_with_a_light_file_queued_behind_them(workers):
    """xdist (``--dist loadfile --no-loadscope-reorder``) gives each of ``workers`` workers
    the next file in turn, twice: file ``workers`` waits behind the clones on their worker,
    so it must be light; every other heavy file is out by the second round."""
    files = LIGHT[:1] + list(reversed(HEAVY_FIRST)) + LIGHT[1:]
    order = file_order(files, workers)
    assert sorted(order) == sorted(files)
    assert order[0] == HEAVY_FIRST[0] and order[workers] in LIGHT
    assert set(HEAVY_FIRST) <= set(order[:len(HEAVY_FIRST) + 1])
    assert [f for f in order if f in LIGHT] == LIGHT  # the rest keep their order

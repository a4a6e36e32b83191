"""The sandbox's deadlines: a whole budget, and a step budget for runs that report progress."""

from __future__ import annotations

import os
import sys

from diagramforge.sandbox import run_sandboxed


def test_a_run_that_stops_making_progress_is_killed_at_its_step_budget(tmp_path):
    """``step``: killed when no new marker arrives in time, long before the whole budget."""
    script = ("import sys, threading\n"
              "for k in range(3):\n    print(f'mark {k}', flush=True)\n"
              "threading.Event().wait()\n")
    res = run_sandboxed([sys.executable, "-c", script], tmp_path, dict(os.environ),
                        timeout_s=600, step=(b"mark ", 0.5))
    assert res.timed_out and res.seconds < 60
    assert res.stdout.count("mark ") == 3

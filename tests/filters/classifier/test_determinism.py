"""Rounded probabilities and float-noise-proof ties."""

from __future__ import annotations

import os
import subprocess
import sys

from diagramforge.filters.classifier.determinism import ENVIRONMENT, rounded, top


def test_rounding_removes_last_digit_noise() -> None:
    a = rounded([0.4000001, 0.5999999], 3)
    b = rounded([0.3999998, 0.6000002], 3)
    assert a == b == [0.4, 0.6]


def test_ties_go_to_label_order_not_float_noise() -> None:
    assert top({"tree": 0.5, "graph": 0.5}, ["graph", "tree"]) == ("graph", 0.5)
    assert top({"tree": 0.5, "graph": 0.5}, ["tree", "graph"]) == ("tree", 0.5)
    assert top({"tree": 0.51, "graph": 0.49}, ["graph", "tree"]) == ("tree", 0.51)


def test_pinned_kernels_in_a_fresh_process() -> None:
    """Loading the model in a process without torch pins ATen's portable kernels."""
    code = ("from diagramforge.filters.classifier.determinism import pin_environment, pin_torch\n"
            "assert pin_environment()\npin_torch(1)\nimport torch\n"
            "print(torch.backends.cpu.get_cpu_capability(), torch.get_num_threads(),"
            " torch.backends.mkldnn.enabled)")
    env = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["DEFAULT", "1", "False"]

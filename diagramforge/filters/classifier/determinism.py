"""The same probabilities on every CPU, as far as a CPU can be told to.

Float results of a network differ between machines because the kernels differ: oneDNN
(mkldnn) JIT-compiles convolutions for the CPU's instruction set, MKL's GEMM dispatches on
it too, ATen's own vectorised kernels pick AVX2 or AVX-512, and threads change the order of
reductions.  So inference runs with:

* ``ATEN_CPU_CAPABILITY=default`` — ATen's portable kernels, no AVX2/AVX-512 variants;
* ``MKL_CBWR=COMPATIBLE`` — MKL's conditional numerical reproducibility, one code path on
  every x86-64 CPU;
* oneDNN and NNPACK off (convolutions through ATen's own im2col + GEMM), one thread.

The first two must be in the environment before torch loads, which :func:`pin_environment`
does when called first (the filter's workers load torch only when they load the model).
What is left — the last bits of a float — is removed by rounding every probability to
``decimals`` places before it is compared or written (:func:`rounded`), and ties are broken
by label order, not by float noise (:func:`top`).  A record whose probabilities sit exactly on
a rounding boundary could still differ; at 3 decimals and float32 errors of ~1e-6 that is
about one render in a thousand near a threshold, and a threshold only decides for figures
without code.
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger(__name__)

ENVIRONMENT = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}


def pin_environment() -> bool:
    """Set the variables above unless the user set them; ``False`` when torch is already
    loaded in this process (they then come too late, and a warning says so)."""
    for key, value in ENVIRONMENT.items():
        os.environ.setdefault(key, value)
    if "torch" in sys.modules:
        import torch

        if torch.backends.cpu.get_cpu_capability() != "DEFAULT":
            log.warning("torch was loaded before the classifier pinned its CPU kernels "
                        "(capability %s): probabilities may differ in their last digits "
                        "from another machine's", torch.backends.cpu.get_cpu_capability())
            return False
    return True


def pin_torch(threads: int = 1) -> None:
    """One thread, no oneDNN, no NNPACK (call after :func:`pin_environment`)."""
    import torch

    torch.set_num_threads(threads)
    torch.backends.mkldnn.enabled = False
    torch.backends.nnpack.set_flags(False)


def rounded(probs: list[float], decimals: int) -> list[float]:
    return [round(float(p), decimals) for p in probs]


def top(probs: dict[str, float], order: list[str] | None = None) -> tuple[str, float]:
    """The most probable label; equal probabilities go to the label first in ``order``
    (default: alphabetical), so a tie never depends on float noise."""
    rank = {lab: i for i, lab in enumerate(order or sorted(probs))}
    label = min(probs, key=lambda lab: (-probs[lab], rank.get(lab, len(rank)), lab))
    return label, probs[label]

"""Mermaid's sequence diagrams for sequence QA (the ``sequence`` capability, asked by
:mod:`diagramforge.synth.synth.grounds`): Mermaid's own parse (``sequenceDiagram``, read in
:mod:`.engine`) lists the participants (``getActors``) and the messages in the order the
diagram sends them (``getMessages``), so a graph's edges are the messages in time — what
questions about the k-th message and a message's sender are answered from."""

PARTICIPANTS = frozenset({"actor"})
"""The node shape :mod:`.engine`'s sequence reading gives every participant."""

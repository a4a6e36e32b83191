"""PlantUML's sequence diagrams for sequence QA (the ``sequence`` capability, asked by
:mod:`diagramforge.synth.synth.grounds`): PlantUML's own model (``SequenceDiagram``, written
by :mod:`.driver`, read by :func:`.graph.sequence_graph`) lists the participants and the
diagram's events in the order they happen down the lifelines, the messages among them, so a
graph's edges are the messages in time — as Mermaid's parse gives them.  The title,
caption and legend are ``text`` nodes beside the participants, no participants."""

PARTICIPANTS = frozenset({"actor"})
"""The node shape :func:`.graph.sequence_graph` gives every participant (a use-case
diagram's actor is ``umlActor``, no lifeline)."""

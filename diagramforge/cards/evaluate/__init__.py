"""``diagramforge evaluate``: score a model's outputs on a published config and split.

The seeds' metrics over a whole split, computed by code: generation (Execution Success with
the rendering handlers and sandbox, structure-graph F1 and path alignment through
``graphs.score``, render similarity, token count), editing (Execution Success and the edit
verified as a graph diff through ``edit.base``), translation (execution in the target
language, graph equality with the source, render similarity), QA (exact, inclusion and
option accuracy per question type) and captioning (sentence BLEU/chrF via sacrebleu,
quoted-label grounding).  Optional: model-judged metrics (:mod:`.judge`, through the synth
LLM layer, reported apart), embedding similarity of renders and caption–image similarity
through a CLIP/SigLIP checkpoint (:mod:`.embed`).

Modules: :mod:`.registry` (which evaluator scores which config, with which metrics),
:mod:`.inputs` (predictions — every bad row an item's reason — and the published
references), :mod:`.compile` (a prediction through the format handlers, contained),
:mod:`.images` (render similarity), one module per task, :mod:`.report` (means over all and
over executed items, JSON and Markdown) and :mod:`.run`.
"""

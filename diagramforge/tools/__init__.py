"""Commands beside the pipeline: graph files scored, lock diffs, real corpora for benchmarks."""

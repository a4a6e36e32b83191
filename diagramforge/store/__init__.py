"""Storage: records and their schema, shards, atomic writes, the cache and the data paths."""

"""The sandbox every outside tool runs in (Landlock, limits, no network)."""

"""Cards: validate the dataset, write its card and audit, publish and push it."""

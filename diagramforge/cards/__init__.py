"""Cards: validate, statistics, licence audit, dataset card, publish."""

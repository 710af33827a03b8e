"""Adapters that record what another framework's evaluation really ranked, so that its
sampled metrics can be corrected here (:mod:`sampled_metrics.integrations.recbole`)."""

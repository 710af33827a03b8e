"""``python -m sampled_metrics.cli``: the ``sampled-metrics`` command."""
import sys

from .main import main

sys.exit(main())

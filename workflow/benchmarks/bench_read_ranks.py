"""Peak memory of reading a text rank file (target: <= 24 bytes per rank).

    python workflow/benchmarks/bench_read_ranks.py [--ranks 20000000]

Writes a file of N sampled ranks (one per line) to a temporary folder, then, in a fresh
process, reads it with the command line's reader and reports the peak resident memory above
the process's own baseline (numpy, pandas and the package imported), per rank.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CHILD = """
import resource, sys
import numpy as np
from sampled_metrics.textfile import read_integers
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ranks = read_integers(sys.argv[1], 1, 101, "sampled rank")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(ranks.size, base * 1024, peak * 1024, int(ranks.sum()))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=20_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ranks.txt"
        ranks = np.random.default_rng(0).integers(1, 102, args.ranks)
        np.savetxt(path, ranks, fmt="%d")
        out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                             text=True, check=True).stdout.split()
        n, base, peak, total = map(int, out)
        assert n == args.ranks and total == int(ranks.sum())
        size = path.stat().st_size
    print(f"{n:,} ranks ({size / 1e6:.0f} MB of text): peak RSS {peak / 1e6:.0f} MB, "
          f"{(peak - base) / 1e6:.0f} MB above the baseline = {(peak - base) / n:.1f} bytes per "
          f"rank (target <= 24)")


if __name__ == "__main__":
    main()

"""Compares the peak memory two runs printed (--report-memory's
"peak memory: host X MiB"): exits non-zero unless the second's is at most
RATIO times the first's. Usage: compare_peaks.py BEFORE AFTER RATIO."""
import re
import sys

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def peak(path):
    with open(path) as f:
        m = re.search(r"peak memory: host ([0-9.]+) (B|KiB|MiB|GiB)", f.read())
    if not m:
        sys.exit(f"{path}: no peak memory line")
    return float(m.group(1)) * UNITS[m.group(2)]


before, after = peak(sys.argv[1]), peak(sys.argv[2])
ratio = after / before
bound = float(sys.argv[3])
print(f"peak {after / 2**20:.1f} MiB of {before / 2**20:.1f} MiB: "
      f"{'within' if ratio <= bound else 'over'} {bound}")
sys.exit(0 if ratio <= bound else 1)

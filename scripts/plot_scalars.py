#!/usr/bin/python3
"""Plots the scalars a TFL program logged with log_scalar as a PNG.

Usage: plot_scalars.py SCALARS.jsonl -o OUT.png [--name NAME ...]

Each line of the log is {"name", "step", "value", "time"}; one curve is
drawn per name (all of them unless --name picks some), value against step.
Needs Debian's python3-matplotlib.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--name", action="append")
    args = ap.parse_args()
    curves = {}
    with open(args.log) as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                curves.setdefault(r["name"], []).append((r["step"], r["value"]))
            except (ValueError, KeyError) as e:
                sys.exit(f"{args.log}:{n}: not a log_scalar line ({e})")
    names = args.name or sorted(curves)
    missing = [n for n in names if n not in curves]
    if missing or not names:
        sys.exit(f"{args.log}: no scalars named {', '.join(missing) or 'anything'}")
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for name in names:
        steps, values = zip(*sorted(curves[name]))
        ax.plot(steps, values, label=name)
    ax.set_xlabel("step")
    ax.set_yscale("log" if all(v > 0 for n in names for _, v in curves[n]) else "linear")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}: {', '.join(f'{n} ({len(curves[n])} points)' for n in names)}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The ring all-reduce model of docs/scaling.md, fitted to a measurement.

Usage: scaling_model.py ALLREDUCE_TABLE [LINK_GBPS ...]

ALLREDUCE_TABLE holds lines "bytes seconds" (bench/allreduce.tfl's output
on 2 processes). A ring all-reduce of S bytes over N ranks takes

    T(S, N) = 2 (N - 1) alpha + 2 (N - 1) / N * S / beta

(reduce-scatter then all-gather, each N - 1 steps of S / N bytes; NCCL's
"bus bandwidth" is beta). On 2 ranks T = 2 alpha + S / beta: the smallest
size of the table gives alpha (its time is latency), the largest beta. Prints them, then
the all-reduce time of the seed CNN's and of a 100M-parameter MLP's f32
gradients for N = 2 ... 64 ranks, on the fitted link and on the other links
given (in GB/s, with the fitted alpha), as a table.
"""
import sys

CNN_BYTES = 4 * (3 * 3 * 1 * 16 + 16 + 3 * 3 * 16 * 16 + 16 + 16 * 10 + 10)
# The "100M" MLP of docs/scaling.md: 6 layers 4096 wide.
MLP_BYTES = 4 * (6 * 4096 * 4096 + 6 * 4096)


def fit(points):
    """alpha and beta of T = 2 alpha + S / beta on 2 ranks: alpha from the
    smallest message, beta from the largest."""
    points = sorted(points)
    alpha = points[0][1] / 2
    size, seconds = points[-1]
    return alpha, size / (seconds - 2 * alpha)


def ring(size, ranks, alpha, beta):
    return 2 * (ranks - 1) * alpha + 2 * (ranks - 1) / ranks * size / beta


def main():
    points = []
    for line in open(sys.argv[1]):
        size, seconds = line.split()[:2]
        points.append((float(size), float(seconds)))
    alpha, beta = fit(points)
    print(f"fitted on 2 ranks: alpha {alpha * 1e6:.2f} us, "
          f"beta {beta / 1e9:.2f} GB/s")
    links = [("fitted", beta)] + [(f"{g} GB/s", float(g) * 1e9)
                                  for g in sys.argv[2:]]
    ranks = [2, 4, 8, 16, 64]
    print(f"{'gradients':24} {'link':>12} " +
          " ".join(f"{'N=' + str(n):>10}" for n in ranks))
    for name, size in [(f"seed CNN ({CNN_BYTES / 1024:.1f} KiB)", CNN_BYTES),
                       (f"100M MLP ({MLP_BYTES / 1e6:.0f} MB)", MLP_BYTES)]:
        for label, b in links:
            cells = " ".join(f"{ring(size, n, alpha, b) * 1e3:8.3f}ms"
                             for n in ranks)
            print(f"{name:24} {label:>12} {cells}")


if __name__ == "__main__":
    main()

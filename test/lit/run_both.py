#!/usr/bin/env python3
"""Runs a TFL program eagerly and natively and checks the two agree.

Usage: run_both.py TFLC [--mask=REGEX ...] PROGRAM.tfl TMP_PREFIX
                   [program flags...]

--mask=REGEX leaves what REGEX matches out of the comparison (a rate in
images/s, which is the one number the two modes need not agree on).

Prints the eager run's output (for FileCheck) when both runs exit 0 and
their outputs match up to float rounding (compare_outputs.py); otherwise
reports the difference on stderr and exits 1.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, what):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        sys.stderr.write(f"{what} failed with exit code {r.returncode}:\n"
                         f"{r.stderr}{r.stdout}")
        sys.exit(1)
    return r.stdout


def main():
    tflc, *args = sys.argv[1:]
    masks = []
    while args and args[0].startswith("--mask="):
        masks.append(re.compile(args.pop(0)[len("--mask="):]))
    program, prefix, *flags = args
    eager = run([tflc, "run", "--eager", program] + flags, "eager run")
    exe = prefix + ".exe"
    run([tflc, "build", program, "-o", exe], "build")
    native = run([exe] + flags, "native run")
    def masked(text):
        for m in masks:
            text = m.sub("<masked>", text)
        return text
    with open(prefix + ".eager", "w") as f:
        f.write(masked(eager))
    with open(prefix + ".native", "w") as f:
        f.write(masked(native))
    cmp = subprocess.run([sys.executable, os.path.join(HERE,
                                                       "compare_outputs.py"),
                          prefix + ".eager", prefix + ".native"],
                         stdout=subprocess.PIPE, text=True)
    if cmp.returncode != 0:
        sys.stderr.write("eager and native outputs differ: " + cmp.stdout)
        sys.stderr.write(f"--- eager\n{eager}--- native\n{native}")
        sys.exit(1)
    sys.stdout.write(eager)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks that two runs of one TFL program (eager and native) agree.

Usage: compare_outputs.py EAGER_OUTPUT NATIVE_OUTPUT [--rtol R] [--atol A]

Text must match token for token; numbers may differ by float reassociation
(relative tolerance rtol, absolute atol). Exits 1 with the first difference.
"""
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|nan|inf)",
                    re.IGNORECASE)


def tokens(text):
    out = []
    pos = 0
    for m in NUMBER.finditer(text):
        if m.start() > pos:
            out.extend(("text", t) for t in text[pos:m.start()].split())
        out.append(("num", m.group()))
        pos = m.end()
    out.extend(("text", t) for t in text[pos:].split())
    return out


def main():
    args = sys.argv[1:]
    rtol, atol = 1e-5, 1e-6
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    if "--atol" in args:
        i = args.index("--atol")
        atol = float(args[i + 1])
        del args[i:i + 2]
    a_path, b_path = args
    a = tokens(open(a_path, errors="surrogateescape").read())
    b = tokens(open(b_path, errors="surrogateescape").read())
    if len(a) != len(b):
        print(f"outputs differ in length: {len(a)} vs {len(b)} tokens")
        return 1
    for i, ((ka, va), (kb, vb)) in enumerate(zip(a, b)):
        if ka != kb or (ka == "text" and va != vb):
            print(f"token {i} differs: {va!r} vs {vb!r}")
            return 1
        if ka == "num" and va != vb:
            x, y = float(va), float(vb)
            if math.isnan(x) and math.isnan(y):
                continue
            if not math.isclose(x, y, rel_tol=rtol, abs_tol=atol):
                print(f"number {i} differs: {va} vs {vb}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

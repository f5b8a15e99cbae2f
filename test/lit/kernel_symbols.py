#!/usr/bin/env python3
"""Lists what each compiled op kernel in a kernel cache directory calls.

Usage: kernel_symbols.py CACHE_DIR

The cache's files (tools/tflc/CompiledOps.cpp: "TFLKERNEL2", the number
of objects, then each object's size and bytes, as little-endian 64-bit
numbers) are unpacked, and each kernel prints one line: the symbols its
objects leave undefined (what it calls in tflc), sorted, the lines
sorted too.
"""
import os
import struct
import subprocess
import sys
import tempfile

MAGIC = b"TFLKERNEL2"


def objects(data):
    assert data.startswith(MAGIC), "not a kernel cache file"
    at = len(MAGIC)
    (count,) = struct.unpack_from("<Q", data, at)
    at += 8
    for _ in range(count):
        (size,) = struct.unpack_from("<Q", data, at)
        at += 8
        yield data[at:at + size]
        at += size


def main():
    cache = sys.argv[1]
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(cache)):
            if not name.endswith(".o"):
                continue
            with open(os.path.join(cache, name), "rb") as f:
                data = f.read()
            symbols = set()
            for k, obj in enumerate(objects(data)):
                path = os.path.join(tmp, f"{k}.o")
                with open(path, "wb") as f:
                    f.write(obj)
                out = subprocess.run(["nm", "--undefined-only", path],
                                     capture_output=True, text=True,
                                     check=True).stdout
                symbols |= {line.split()[-1] for line in out.splitlines()}
            lines.append(" ".join(sorted(symbols)))
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()

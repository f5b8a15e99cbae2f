#!/usr/bin/env python3
"""Puts back a GPU bundle's datasets (test/gpu/bundle.sh --data) after its
inputs.tar is unpacked at the paths the programs read.

Usage: unpack_inputs.py BUNDLE_DIR [--root DIR]

The datasets' gzip files travel as their raw bytes, in
BUNDLE_DIR/files/gunzipped/ (xz packs them tighter than gzip did: the 26.4
MB of Fashion-MNIST's training images take 22.6 in the archive), each
named by a line of BUNDLE_DIR/files/gunzipped.txt, its gzip path; they are
gzipped again at that path (not the original file's bytes: a program reads
what they decompress to, which is). --root DIR writes under DIR instead of
/ (a test on a machine that has the files).
"""
import gzip
import os
import shutil
import sys


def main():
    files = os.path.join(sys.argv[1], "files")
    root = sys.argv[3] if sys.argv[2:3] == ["--root"] else "/"
    listing = os.path.join(files, "gunzipped.txt")
    if not os.path.exists(listing):
        return
    with open(listing) as f:
        for path in f.read().split():
            target = os.path.join(root, path.lstrip("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            raw = os.path.join(files, "gunzipped", os.path.basename(path)[:-3])
            with open(raw, "rb") as src, \
                    gzip.open(target, "wb", compresslevel=1) as dst:
                shutil.copyfileobj(src, dst)


if __name__ == "__main__":
    main()

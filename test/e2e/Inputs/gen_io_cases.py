#!/usr/bin/python3
"""Writes data files with NumPy (IDX plain and gzipped, .npy of every
dtype), a TFL program that loads them, saves .npy files and a checkpoint
and logs scalars, and what the program must print.

Usage: gen_io_cases.py DIR   (writes DIR/prog.tfl, DIR/expected, data)
"""
import gzip
import os
import sys

import numpy as np

rng = np.random.default_rng(5)

IDX_CODES = {np.uint8: 0x08, np.int32: 0x0C, np.float32: 0x0D,
             np.float64: 0x0E}


def write_idx(path, a, compress):
    head = bytes([0, 0, IDX_CODES[a.dtype.type], a.ndim])
    head += b"".join(int(d).to_bytes(4, "big") for d in a.shape)
    data = head + a.astype(a.dtype.newbyteorder(">")).tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines, expected = [], []

    def case(code, value):
        lines.append(f"print({code})")
        expected.append(str(value))

    images = rng.integers(0, 256, (3, 4, 5), dtype=np.uint8)
    write_idx(os.path.join(out, "images.idx.gz"), images, True)
    write_idx(os.path.join(out, "images.idx"), images, False)
    case('load_idx("images.idx.gz")', images)
    case('load_idx("images.idx", shape=(-1, 20))', images.reshape(3, 20))
    case('load_idx("images.idx.gz", shape=[3, 4, 5], dtype=u8)', images)
    for dtype in (np.int32, np.float32, np.float64):
        a = (rng.standard_normal((2, 3)) * 100).astype(dtype)
        name = f"{np.dtype(dtype).name}.idx"
        write_idx(os.path.join(out, name), a, False)
        case(f'load_idx("{name}")', a)
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8,
                  np.bool_):
        shape = (2, 3) if dtype != np.int64 else (4,)
        a = (rng.standard_normal(shape) * 50).astype(dtype)
        name = f"{np.dtype(dtype).name}.npy"
        np.save(os.path.join(out, name), a)
        case(f'load_npy("{name}")', a)
    np.save(os.path.join(out, "scalar.npy"), np.float32(2.5))
    case('load_npy("scalar.npy")', np.float32(2.5))

    # Writes, read back by check_io_outputs.py.
    w = rng.standard_normal((3, 2)).astype(np.float32)
    np.save(os.path.join(out, "w_in.npy"), w)
    lines += [
        'w = load_npy("w_in.npy")',
        'save_npy("w_out.npy", w * 2.0)',
        'save_npy("i_out.npy", arange(5))',
        'save("ckpt.safetensors", (w, Pair(a=ones((2,), dtype=i32), '
        'b=True)))',
        'c = load("ckpt.safetensors", like=(w, Pair(a=zeros((2,), '
        'dtype=i32), b=False)))',
        'log_scalar("loss", 0.25, 1)',
        'log_scalar("loss", sum(w), 2)',
    ]
    case("c[0] - w", np.zeros((3, 2), np.float32))
    case("c[1].a", np.ones(2, np.int32))
    case("c[1].b", True)
    case('load_npy("w_out.npy", shape=(3, 2), dtype=f32)', w * 2)
    head = ["class Pair:", "    a: i32[2]", "    b: bool", ""]
    with open(os.path.join(out, "prog.tfl"), "w") as f:
        f.write("\n".join(head + lines) + "\n")
    with open(os.path.join(out, "expected"), "w") as f:
        f.write("\n".join(expected) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Checks with NumPy (and json) the files gen_io_cases.py's program wrote:
.npy files NumPy reads, a safetensors checkpoint any safetensors reader
reads (its layout checked by hand here), and JSON-lines scalars (the
program ran twice: eagerly and natively).

Usage: check_io_outputs.py DIR
"""
import json
import os
import struct
import sys

import numpy as np


def main():
    d = sys.argv[1]
    w = np.load(os.path.join(d, "w_in.npy"))
    np.testing.assert_array_equal(np.load(os.path.join(d, "w_out.npy")), w * 2)
    i = np.load(os.path.join(d, "i_out.npy"))
    assert i.dtype == np.int64 and list(i) == [0, 1, 2, 3, 4], i

    with open(os.path.join(d, "ckpt.safetensors"), "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    dtypes = {"F32": "<f4", "I32": "<i4", "BOOL": "|b1"}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = np.frombuffer(body[begin:end],
                                      dtypes[info["dtype"]]).reshape(
                                          info["shape"])
    assert sorted(tensors) == ["0", "1.a", "1.b"], sorted(tensors)
    np.testing.assert_array_equal(tensors["0"], w)
    np.testing.assert_array_equal(tensors["1.a"], np.ones(2, np.int32))
    assert tensors["1.b"].shape == () and bool(tensors["1.b"])
    assert not [f for f in os.listdir(d) if ".tmp-" in f], "temporary files"

    with open(os.path.join(d, "scalars.jsonl")) as f:
        points = [json.loads(line) for line in f]
    assert [(p["name"], p["step"]) for p in points] == [("loss", 1),
                                                        ("loss", 2)] * 2
    assert points[0]["value"] == 0.25
    assert abs(points[1]["value"] - float(w.sum())) < 1e-5
    print("files ok")


if __name__ == "__main__":
    main()

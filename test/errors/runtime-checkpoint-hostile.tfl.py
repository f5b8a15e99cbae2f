# Writes the hostile checkpoints runtime-checkpoint-hostile.tfl reads.
import json
import struct


def write(name, header, data, size=None):
    text = json.dumps(header).encode()
    with open(name, "wb") as f:
        f.write(struct.pack("<Q", len(text) if size is None else size))
        f.write(text)
        f.write(data)


good = {"value": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}
write("huge.safetensors", good, b"\0" * 24, size=2**64 - 1)
write("claims.safetensors", {"value": {}}, b"\0" * 49, size=90_000_000)
write("malformed.safetensors",
      {"value": {"dtype": "F32", "shape": [2, "three"], "data_offsets": [0, 24]}},
      b"\0" * 24)
write("past-end.safetensors", good, b"\0" * 8)
write("reversed.safetensors",
      {"value": {"dtype": "F32", "shape": [2, 3], "data_offsets": [24, 0]}},
      b"\0" * 24)
# Numbers that no 64-bit integer holds (JSON reads them as floats), a
# fraction, a negative offset: converting them was undefined behaviour
# (found by tfl-fuzz-readers).
write("big-size.safetensors",
      {"value": {"dtype": "F32", "shape": [2, 8888888888888888888880],
                 "data_offsets": [0, 24]}}, b"\0" * 24)
write("fraction.safetensors",
      {"value": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24.5]}},
      b"\0" * 24)
write("negative-offset.safetensors",
      {"value": {"dtype": "F32", "shape": [2, 3], "data_offsets": [-8, 24]}},
      b"\0" * 24)
write("not-an-entry.safetensors", {"value": [1, 2]}, b"\0" * 24)

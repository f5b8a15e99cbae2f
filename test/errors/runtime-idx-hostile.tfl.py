# Writes the hostile IDX files runtime-idx-hostile.tfl reads.
import gzip
import struct


def idx(name, dims, data=b"", code=0x08, compress=False):
    head = bytes([0, 0, code, len(dims)])
    body = head + b"".join(struct.pack(">I", d) for d in dims) + data
    with open(name, "wb") as f:
        f.write(gzip.compress(body) if compress else body)


idx("overflow.idx", [0xFFFFFFFF] * 4)
idx("bomb.idx", [100000, 100000, 100], compress=True)
idx("plain-short.idx", [1000, 1000], b"\1\2\3")
good = gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 10]) + bytes(range(10)))
with open("corrupt.idx", "wb") as f:  # a gzip header, then scrambled deflate
    f.write(good[:12] + bytes(b ^ 0x5A for b in good[12:]))
with open("cut.idx", "wb") as f:  # a gzip stream that stops early
    f.write(good[:len(good) - 12])
with open("empty.idx", "wb") as f:
    pass
idx("dtype.idx", [2], b"\0\0", code=0x0B)
idx("good.idx", [3], b"\1\2\3")

# Writes the hostile .npy files runtime-npy-hostile.tfl reads.
import struct


def npy(name, header, data=b"", version=1, length=None):
    text = header.encode()
    size = len(text) if length is None else length
    if version == 1:
        prefix = b"\x93NUMPY\x01\x00" + struct.pack("<H", size)
    else:
        prefix = b"\x93NUMPY\x02\x00" + struct.pack("<I", size)
    with open(name, "wb") as f:
        f.write(prefix + text + data)


def dict_text(shape, descr="<f4"):
    return "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)


npy("biglen.npy", dict_text("(2,)"), version=2, length=0xFFFFFFF0)
npy("badshape.npy", dict_text("(2, x)"))
npy("overflow.npy", dict_text("(4294967296, 4294967296, 4294967296)"))
npy("hugedim.npy", dict_text("(99999999999999999999999,)"))
npy("short.npy", dict_text("(1000, 1000)"), b"\0" * 64)
npy("unterminated.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3")
npy("novalue.npy", "{'descr'")
npy("dtype.npy", dict_text("(2,)", descr="<c8"), b"\0" * 16)
with open("magic.npy", "wb") as f:
    f.write(b"PK\x03\x04 a zip archive, not an array")
npy("good.npy", dict_text("(3,)"), struct.pack("<3f", 1, 2, 3))
npy("given-short.npy", dict_text("(1000,)"), b"\0" * 64)

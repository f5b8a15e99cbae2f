#!/usr/bin/python3
"""Python's output for test/e2e/str-of-values-vs-numpy.tfl, line for line:
the same statements with NumPy's f32 values (str of an np.float32 is the
shortest text that reads back as it, as TFL's print)."""
import numpy as np

x = np.arange(1.0, 4.0, dtype=np.float32)
loss = np.float32((x * x).mean())
msg = "loss " + str(loss) + " over " + str(x.shape[0])
print(msg)
print("x: " + str(x), "i: " + str(np.arange(0, 3)), "b: " + str(loss > 1.0))
for e in range(3):
    line = "epoch " + str(e) + ": " + str(np.float32(loss * np.float32(e)))
    print(line)
print(f"loss={loss:.3f} mean={x.mean():8.4f}|" + str(x[0]) * 2)


def label(name, v):
    return name + "=" + str(np.float32(v.sum()))


print(label("x", x), label("ones", np.ones([2, 2], np.float32)))
pair = (str(loss), 3)
print(pair)
note = f"[{msg}] ({x.max():.1f})"
print(note)

#!/usr/bin/python3
"""Python's output for test/e2e/strings-tuples-vs-python.tfl, line for
line: the same statements (tensor results written as NumPy prints them)."""
import numpy as np

DATA = "data/"
name = "train-images" + "-idx3-ubyte"
path = DATA + name + ".gz"
print(path, len(path), path[-3:], path[0], path[5:11], path[::-1][:3])
print(path[1:-1:3], path[100:], path[-100:2], path[::-4])
print("ab" * 3, 2 * "xy", "z" * 0, "a" * -2 == "", len("") == 0)
print("a" == "a", "a" != "a", "abc" < "abd", "b" >= "abc", "a" < "b" < "c")
n = 4
print(f"ckpt-{n:03d}.npy", f"{n * 2 + 1:>5}|{n:x}|{name[:5]}", str(n), str(2.5))
print(str(True), str("q"), str(-7), str(1e-7), str(n * 3), str(1 / 4), f"{2.0 * 3}")
s = "a"
s += "b"
s += str(len(s))
print(s)
if DATA + name == "data/train-images-idx3-ubyte":
    print("equal")
t = (1, 2, 3, 4, 5)
print(len(t), t[1:], t[::-1], t + (6,), (1, 2) * 3, t[-1], t[1:4:2], t[:0])
u = t[2:]
u += (7,)
print(u, len(u + u), (0,) * 0)
x = np.ones([2, 3, 4])
print(len(x), x.shape[1:], x.shape[::-1], x.shape + (1,), x.shape[-2])
print(np.reshape(x, x.shape[::-1]).shape, np.zeros(x.shape[1:] * 2).shape)
print(np.float32(np.sum(np.zeros((len(x),) + x.shape))))
print(np.arange(3))

# The numbers test/repl/script-then-prompt.tfl expects, with NumPy (f32).
import numpy as np

x = np.arange(1.0, 4.0, dtype=np.float32)
y = 2 * x
w = np.zeros(1, np.float32)


def loss(w):
    return np.mean((x * w - y) ** 2)


def dloss(w):
    return np.mean(2 * (x * w - y) * x, dtype=np.float32)


w = w - np.float32(0.25) * dloss(w)
print("trained", np.array2string(w, precision=6))
print(np.array2string(w, precision=6))
print(np.float32(loss(w)))
w = w - np.float32(0.25) * dloss(w)
print(np.array2string(w, precision=4))

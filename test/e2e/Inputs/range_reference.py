#!/usr/bin/python3
"""NumPy's output for test/e2e/range-vs-numpy.tfl, line for line: float
arange and linspace as float32 (TFL's float literals are f32), integer
arange as int64."""
import numpy as np

f = np.float32
print(np.arange(0.0, 1.0, 0.1).astype(f))
print(np.arange(5.0).astype(f), np.arange(1, 2.5, 0.5).astype(f),
      np.arange(3, -1.0, -1).astype(f))
print(np.arange(-0.5, 0.51, 0.25).astype(f), np.arange(1.0, 0.0).astype(f))
print(np.linspace(0, 1, 5).astype(f),
      np.linspace(2.0, 3.0, num=4, endpoint=False).astype(f))
print(np.linspace(-1, 1, 1).astype(f), np.linspace(0, 1, 0).shape,
      np.linspace(0, 10, 7).astype(f))
print(np.arange(0.0, 1.0, 0.25).astype(f),
      np.arange(0, 2 * 0.25 + 0.1, 0.25).astype(f))
print(np.arange(1, 5), np.arange(0, 6, 2), np.arange(10, 0, -3))
print(np.float32(np.sum(np.linspace(0, 1, 101).astype(f))))

#!/usr/bin/python3
"""NumPy's output for test/e2e/tensor-methods.tfl, line for line (TFL's
float literals are f32 and its integer literals i64), and PyTorch's
gradient for its last line."""
import numpy as np
import torch

x = np.array([[1.0, -2.0, 3.0], [4.0, 5.75, -6.0]], dtype=np.float32)
print(x.sum(), x.sum(axis=1), x.sum(0, keepdims=True))
print(x.mean(), x.mean(axis=0), x.max(), x.max(axis=1), x.min(axis=0))
print(x.prod(axis=1), x.argmax(axis=1), x.argmin())
print(x.reshape(3, 2), x.reshape((6,)), x.reshape(-1, 2).shape, x.reshape(6))
print(x.transpose(), x.transpose(1, 0).shape)
print(np.ones([2, 3, 4]).transpose((1, 2, 0)).shape, x.flatten())
print(x.astype(np.int32), np.ones([1]) / 3, x.astype(np.float64) / 3)
print(x.clip(-1.0, 2.0), x.round(), x.dot(x.T))
print(np.ones([1, 3, 1]).squeeze().shape, np.ones([1, 3, 1]).squeeze(axis=0).shape)
print((x * 2).sum(axis=1).max(), (x @ x.T).flatten().argmax())
n = np.array([[1, 2], [3, 4]])
print(n.sum(axis=0), np.float32(n.mean()), n.prod(), np.ones([1], dtype=np.float32) / 3)

w = torch.tensor(x, dtype=torch.float64, requires_grad=True)
m = w.reshape(3, 2)
loss = (m.T @ m).sum() + w.max(dim=1).values.sum() + w.mean() + w.clip(-1.0, 2.0).sum()
loss.backward()
print(w.grad.numpy().astype(np.float32))

#!/usr/bin/python3
"""PyTorch's output for test/e2e/float-special-vs-torch.tfl, line for line,
in NumPy's print format."""
import numpy as np
import torch

att = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [3.0, -2.0, 1.0]])
mask = torch.tril(torch.ones(3, 3))
print(torch.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1).numpy())
a = att.double().requires_grad_(True)
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                 dtype=torch.float64)
(torch.softmax(a.masked_fill(mask == 0, float("-inf")), dim=-1) * w).sum() \
    .backward()
print(a.grad.float().numpy())
x64 = np.array([1.0, -2.0])
print(x64 + float("inf"), np.maximum(x64, float("-inf")), np.float32("inf"))
print(np.float32("nan"), np.float32(2.0) < np.inf, np.float32(-np.inf))

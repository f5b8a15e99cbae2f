# The gradient test/debugger/breakpoint-grad.tfl prints, with PyTorch.
import torch

w = torch.full([3], 0.5, requires_grad=True)
h = torch.ones(3)
for k in range(2):
    h = torch.tanh(h * w)
h.sum().backward()
print(w.grad.numpy())

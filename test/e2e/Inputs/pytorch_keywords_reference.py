#!/usr/bin/python3
"""PyTorch's output for test/e2e/pytorch-keywords.tfl, line for line, in
NumPy's print format (TFL's float literals are f32)."""
import numpy as np
import torch


def show(*values):
    print(*[v.detach().numpy() if isinstance(v, torch.Tensor) else v
            for v in values])


x = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.75, -6.0]], dtype=torch.float32)
show(x.sum(dim=1), torch.sum(x, dim=0, keepdim=True))
show(torch.mean(x, -1, keepdim=True), x.max(dim=1).values, x.argmax(dim=0))
show(torch.softmax(x, dim=-1), torch.log_softmax(x, dim=0))
show(torch.var(x, dim=1, correction=1),
     x.std(dim=0, keepdim=True, correction=0))
show(tuple(torch.cat((x, x), dim=0).shape),
     tuple(torch.stack((x, x), dim=1).shape))
show(tuple(torch.unsqueeze(x, dim=0).shape),
     tuple(torch.squeeze(torch.ones((1, 3)), dim=0).shape))
show(torch.logsumexp(x, dim=1), torch.split(x, 1, dim=0)[1],
     torch.chunk(x, 3, dim=1)[2])
w = x.clone().double().requires_grad_(True)
(torch.softmax(w, dim=1)[:, 0] * w.mean(dim=1)).sum().backward()
show(w.grad.float())

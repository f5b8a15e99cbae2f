#!/usr/bin/python3
"""W8 in PyTorch: one training step of the byte-level GPT of w8_gpt.tfl
(vocabulary 256, d_model 128, 4 layers of 4 heads, MLP 512, context 64,
batch 16, Adam at lr 3e-3, no dropout; nanoGPT's model, its attention
PyTorch 2's fused scaled_dot_product_attention where there is one). Prints
"milliseconds per step"."""
import torch
from torch_training import compiled, ms_per_call, parse_args

torch.set_num_threads(2)
steps, compile = parse_args(20)
V, D, H, F, T, B = 256, 128, 4, 512, 64, 16


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.qkv, self.out = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.fc, self.proj = torch.nn.Linear(D, F), torch.nn.Linear(F, D)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
            # nanoGPT's path on PyTorch 2: the fused attention (eagerly
            # 48-49 against 55-65 ms a step written out; the same under
            # torch.compile).
            y = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) / (D // H) ** 0.5
            att = att.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(),
                                  float("-inf"))
            y = att.softmax(-1) @ v
        y = y.transpose(1, 2).reshape(B, T, D)
        x = x + self.out(y)
        return x + self.proj(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(V, D)
        self.pos = torch.nn.Parameter(torch.randn(T, D) * 0.02)
        self.blocks = torch.nn.Sequential(*[Block() for _ in range(4)])
        self.ln, self.head = torch.nn.LayerNorm(D), torch.nn.Linear(D, V)

    def forward(self, idx):
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos)))


torch.manual_seed(0)
model = GPT()
x = torch.randint(0, V, (B, T))
y = torch.randint(0, V, (B, T))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)


def loss():
    return torch.nn.functional.cross_entropy(model(x).view(-1, V), y.view(-1))


loss = compiled(loss, compile)


def step():
    opt.zero_grad(set_to_none=True)
    loss().backward()
    opt.step()


print(f"{ms_per_call(step, steps):.4f}")

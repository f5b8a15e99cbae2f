#!/usr/bin/python3
"""bench/gpt_gpu.tfl in PyTorch: nanoGPT's model (its model.py: flash
attention through scaled_dot_product_attention, dropout 0.2) in its
shakespeare_char configuration (6 layers of 6 heads, width 384, context
256, vocabulary 65, batch 64), a training step under bf16 autocast with
AdamW (lr 1e-3, betas 0.9 and 0.99, weight decay 0.1 on matrices; fused,
as nanoGPT on a GPU). --graph captures the whole step as one CUDA graph,
--compile=MODE compiles the model and the optimizer's step. Prints
"milliseconds per step"."""
import torch
from torch_training import device, flag, ms_per_update, parse_args

steps, compile = parse_args(20)
L, H, D, T, V, B, DROP = 6, 6, 384, 256, 65, 64, 0.2
F = torch.nn.functional


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.qkv, self.out = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.fc, self.proj = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)
        self.drop = torch.nn.Dropout(DROP)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (z.view(b, t, H, D // H).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(
            q, k, v, dropout_p=DROP if self.training else 0.0, is_causal=True)
        x = x + self.drop(self.out(y.transpose(1, 2).reshape(b, t, D)))
        return x + self.drop(self.proj(F.gelu(self.fc(self.ln2(x)))))


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(V, D)
        self.pos = torch.nn.Parameter(torch.randn(T, D) * 0.02)
        self.drop = torch.nn.Dropout(DROP)
        self.blocks = torch.nn.Sequential(*[Block() for _ in range(L)])
        self.ln, self.head = torch.nn.LayerNorm(D), torch.nn.Linear(D, V)

    def forward(self, idx):
        x = self.drop(self.tok(idx) + self.pos)
        return self.head(self.ln(self.blocks(x)))


torch.manual_seed(0)
dev = device()
model = GPT().to(dev)
x = torch.randint(0, V, (B, T), device=dev)
y = torch.randint(0, V, (B, T), device=dev)
graph = flag("graph")
params = list(model.parameters())
groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
          {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
fused = {"fused": True} if dev.type == "cuda" else {}
opt = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.99),
                        capturable=graph, **fused)


def loss():
    # Autocast's cast cache is off under graph capture (PyTorch's advice).
    with torch.autocast(dev.type, dtype=torch.bfloat16,
                        cache_enabled=not graph):
        return F.cross_entropy(model(x).view(-1, V), y.view(-1))


print(f"{ms_per_update(opt, loss, steps, compile):.4f}")

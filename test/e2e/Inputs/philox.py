"""An independent Python Philox-4x32-10 generator (Salmon et al., SC'11;
checked against Random123's known answers) with the mapping from draws to
numbers documented in runtime/lib/Random.cpp: the reference the tests hold
TFL's random numbers to."""

import numpy as np

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(key, ctr):
    """Philox-4x32-10 of a 4-word counter under a 2-word key."""
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK,
                          (p0 >> 32) ^ c3 ^ k1, p0 & MASK)
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return c0, c1, c2, c3


# Random123's known-answer tests for philox4x32_10.
assert philox((0, 0), (0, 0, 0, 0)) == (
    0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
assert philox((MASK, MASK), (MASK,) * 4) == (
    0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)
assert philox((0xa4093822, 0x299f31d0),
              (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)) == (
    0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)


class Generator:
    def __init__(self):
        self.seed(0)

    def seed(self, n):
        n &= (1 << 64) - 1
        self.key, self.draws = (n & MASK, n >> 32), 0

    def block(self, draw, b):
        return philox(self.key, (b & MASK, b >> 32, draw & MASK, draw >> 32))

    def next(self):
        self.draws += 1
        return self.draws - 1

    def uniform(self, n, dtype):
        d, out = self.next(), []
        if dtype == np.float32:
            for i in range(n):
                w = self.block(d, i // 4)[i % 4]
                out.append((w >> 8) * 2.0**-24)
        else:
            for i in range(n):
                w = self.block(d, i // 2)
                bits = ((w[2 * (i % 2)] << 32) | w[2 * (i % 2) + 1]) >> 11
                out.append(bits * 2.0**-53)
        return np.array(out, dtype=dtype)

    def normal(self, n, dtype):
        d, out = self.next(), []
        for i in range(n):
            w = self.block(d, i // 2)
            u1 = ((((w[0] << 32) | w[1]) >> 11) + 1) * 2.0**-53
            u2 = (((w[2] << 32) | w[3]) >> 11) * 2.0**-53
            r = np.sqrt(-2.0 * np.log(u1))
            t = 2 * np.pi * u2
            out.append(r * (np.cos(t) if i % 2 == 0 else np.sin(t)))
        return np.array(out, dtype=np.float64).astype(dtype)

    def shuffle(self, n):
        d, out = self.next(), list(range(n))
        for k in range(n - 1):
            i = n - 1 - k
            w = self.block(d, k)
            j = (((w[0] << 32) | w[1]) * (i + 1)) >> 64
            out[i], out[j] = out[j], out[i]
        return np.array(out, dtype=np.int64)

# Kills save-killed.tfl's program with SIGKILL at random points while it
# writes checkpoints, and checks after each kill that ckpt.safetensors is a
# whole checkpoint: a valid header, tensor 1 twice tensor 0, and every
# element of tensor 0 one value (the step that wrote it).
import json
import random
import shlex
import signal
import struct
import subprocess
import sys
import time

import numpy as np


def read_checkpoint(path):
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    tensors = []
    for name in ("0", "1"):
        entry = header[name]
        assert entry["dtype"] == "F32" and entry["shape"] == [512, 1024], entry
        begin, end = entry["data_offsets"]
        tensors.append(np.frombuffer(body[begin:end], dtype="<f4"))
    return tensors


def check():
    w, twice = read_checkpoint("ckpt.safetensors")
    assert w[0] >= 1 and np.all(w == w[0]), "tensor 0 is torn"
    assert np.all(twice == 2 * w[0]), "tensor 1 does not match tensor 0"


command = shlex.split(sys.argv[1])
rounds = int(sys.argv[2])
random.seed(15)
subprocess.run(command + ["--steps=1"], check=True)
check()
for _ in range(rounds):
    proc = subprocess.Popen(command + ["--steps=1000000"])
    time.sleep(random.uniform(0.05, 1.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check()
print(f"killed {rounds} times; every checkpoint whole")

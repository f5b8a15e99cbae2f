#!/usr/bin/python3
"""Classifies Fashion-MNIST test images with the seed CNN, from Python: the
module and library mnist_cnn_export.tfl makes, with the parameters
mnist_cnn.tfl trained and saved (docs/deploy.md).

    python3 classify.py mnist_cnn.safetensors
"""
import gzip
import sys

import numpy as np

import mnist_cnn

BATCH = 256
DATA = "/usr/share/datasets/fashion-mnist/"


def idx(name, header):
    with gzip.open(DATA + name) as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)


images = idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)[:BATCH]
labels = idx("t10k-labels-idx1-ubyte.gz", 8)[:BATCH]
model = mnist_cnn.load_Model(sys.argv[1])  # a dict of dicts of arrays
classes = mnist_cnn.classify(model, images)
print(f"{(classes == labels).sum()} of {BATCH} test images classified right")

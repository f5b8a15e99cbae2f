#!/usr/bin/python3
"""Classifies Fashion-MNIST test images with the seed CNN, from Python: the
module and library mnist_cnn_export.tfl makes, with the parameters
mnist_cnn.tfl trained and saved (docs/deploy.md): the first COUNT test
images, in batches of at most BATCH (the export takes a batch of any size).

    python3 classify.py mnist_cnn.safetensors
"""
import gzip
import sys

import numpy as np

import mnist_cnn

COUNT = 1000
BATCH = 256
DATA = "/usr/share/datasets/fashion-mnist/"


def idx(name, header):
    with gzip.open(DATA + name) as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)


images = idx("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)[:COUNT]
labels = idx("t10k-labels-idx1-ubyte.gz", 8)[:COUNT]
model = mnist_cnn.load_Model(sys.argv[1])  # a dict of dicts of arrays
correct = 0
for start in range(0, COUNT, BATCH):  # the last batch is smaller
    classes = mnist_cnn.classify(model, images[start:start + BATCH])
    correct += (classes == labels[start:start + BATCH]).sum()
print(f"{correct} of {COUNT} test images classified right")

"""Data shipped with ndgrad (see README.md here): the 8x8 handwritten digits the demo and the
examples train on."""
import os

import numpy as np

from ..ops.creation import from_numpy

DIGITS = os.path.join(os.path.dirname(__file__), "digits.npz")


def load_digits(seed=0, test_fraction=0.2):
    """(x_train, y_train, x_test, y_test): images (N, 1, 8, 8) float32, standardised with the
    training set's mean and std; labels int64. The split is a seeded random permutation."""
    with np.load(DIGITS, allow_pickle=False) as data:
        images, labels = data["images"].astype(np.float32) / 16.0, data["labels"].astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean, std = images[train].mean(), images[train].std()
    images = ((images - mean) / std)[:, None]
    return from_numpy(images[train]), from_numpy(labels[train]), from_numpy(images[test]), from_numpy(labels[test])

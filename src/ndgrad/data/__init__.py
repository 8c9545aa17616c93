"""Data shipped with ndgrad (see README.md here): the 8x8 handwritten digits the demo and the
examples train on."""
import os

import numpy as np

from ..ops.creation import from_numpy

DIGITS = os.path.join(os.path.dirname(__file__), "digits.npz")


def digits_arrays(seed=0, test_fraction=0.2):
    """(x_train, y_train, x_test, y_test) as NumPy arrays: images (N, 1, 8, 8) float32,
    standardised with the training set's mean and std; labels int64. The split is a seeded random
    permutation. NumPy, so that a script gives them to `torch.from_numpy` of either library."""
    with np.load(DIGITS, allow_pickle=False) as data:
        images, labels = data["images"].astype(np.float32) / 16.0, data["labels"].astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean, std = images[train].mean(), images[train].std()
    images = ((images - mean) / std)[:, None]
    return images[train], labels[train], images[test], labels[test]


def load_digits(seed=0, test_fraction=0.2):
    """`digits_arrays` as ndgrad tensors."""
    return tuple(from_numpy(a) for a in digits_arrays(seed, test_fraction))

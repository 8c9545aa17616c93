"""A convolutional network (conv, batch norm, max pooling, dropout) on the 8x8 handwritten digits
that ship with ndgrad, trained with AdamW and cosine annealing; the trained model is saved with
ndgrad.save, loaded into a fresh model and checked to give the same predictions.

    python examples/cnn.py            # ~98% test accuracy
    python examples/cnn.py --small    # a quick smoke run
"""
import argparse
import os
import tempfile

import ndgrad as torch
import ndgrad.nn as nn
from ndgrad.data import digits_arrays   # NumPy arrays: the data ships with ndgrad


class DigitNet(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.BatchNorm2d(2 * channels), nn.ReLU(),
            nn.AdaptiveAvgPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * channels, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def predict(model, x):
    model.eval()
    with torch.no_grad():
        return model(x).argmax(dim=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="2 epochs on part of the data (a smoke test)")
    args = parser.parse_args(argv)
    epochs = 2 if args.small else args.epochs

    torch.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = map(torch.from_numpy, digits_arrays(args.seed))
    if args.small:
        x_train, y_train = x_train[:512], y_train[:512]
    model = DigitNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
    steps_per_epoch = -(-len(y_train) // args.batch_size)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(y_train))
        for i in range(0, len(perm), args.batch_size):
            idx = perm[i:i + args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            scheduler.step()
        accuracy = (predict(model, x_test) == y_test).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, test accuracy {accuracy:.1%}")

    with tempfile.TemporaryDirectory() as folder:   # a checkpoint round trip
        path = os.path.join(folder, "digitnet.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epochs}, path)
        checkpoint = torch.load(path)
    restored = DigitNet()
    restored.load_state_dict(checkpoint["model"])
    assert torch.equal(predict(restored, x_test), predict(model, x_test))
    print(f"final test accuracy: {accuracy:.1%} (checkpoint of epoch {checkpoint['epoch']} reloaded: same predictions)")
    return accuracy


if __name__ == "__main__":
    main()

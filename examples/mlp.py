"""A multilayer perceptron on the 8x8 handwritten digits that ship with ndgrad, written exactly
as the PyTorch script would be: swap the import for `import torch` and it runs on torch.

    python examples/mlp.py            # ~97% test accuracy in a few seconds
    python examples/mlp.py --small    # a quick smoke run
"""
import argparse

import ndgrad as torch
import ndgrad.nn as nn
import ndgrad.nn.functional as F
from ndgrad.data import digits_arrays   # NumPy arrays: the data ships with ndgrad


class MLP(nn.Module):
    def __init__(self, hidden=128, dropout=0.1):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 10)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x.flatten(1)
        x = self.dropout(F.relu(self.fc1(x)))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.out(x)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return accuracy


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="3 epochs (a smoke test)")
    args = parser.parse_args(argv)
    epochs = 3 if args.small else args.epochs

    torch.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = map(torch.from_numpy, digits_arrays(args.seed))
    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=max(1, epochs // 3), gamma=0.3)
    for epoch in range(epochs):
        perm = torch.randperm(len(y_train))
        for i in range(0, len(perm), args.batch_size):
            idx = perm[i:i + args.batch_size]
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, lr {scheduler.get_last_lr()[0]:.4f}, "
              f"test accuracy {evaluate(model, x_test, y_test):.1%}")
    accuracy = evaluate(model, x_test, y_test)
    print(f"final test accuracy: {accuracy:.1%}")
    return accuracy


if __name__ == "__main__":
    main()

"""A small training script as a user writes it, type-checked with `mypy --strict` by
tests/test_typing.py: ndgrad's annotations must leave nothing to report in user code."""
import ndgrad as torch
from ndgrad import nn
from ndgrad.nn import functional as F


class Net(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(features, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h: torch.Tensor = F.relu(self.hidden(x))
        y: torch.Tensor = self.out(h)
        return y


def train(steps: int) -> float:
    torch.manual_seed(0)
    inputs = torch.randn(32, 4)
    targets = inputs.sum(dim=1, keepdim=True)
    model = Net(4)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss = torch.zeros(())
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        opt.step()
    with torch.no_grad():
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        total = (w * w).sum() + torch.ones(2).mean()
    (g,) = torch.autograd.grad((w ** 2).sum(), w)
    state = model.state_dict()
    model.load_state_dict(state)
    model.eval()
    return float(loss.item()) + float(total.item()) + float(g.sum().item())


if __name__ == "__main__":
    print(f"{train(20):.3f}")

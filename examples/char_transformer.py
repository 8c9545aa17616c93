"""A tiny character-level transformer language model trained on four Shakespeare sonnets
(examples/data/sonnets.txt): token and position embeddings, a causal TransformerEncoder, a
linear head; AdamW with warm-up and cosine decay; then it writes a few lines of its own.

    python examples/char_transformer.py            # 400 steps: loss falls from 3.9 to ~1.9 nats/char
    python examples/char_transformer.py --small    # a quick smoke run
"""
import argparse
import math
import os

import ndgrad as torch
import ndgrad.nn as nn
import ndgrad.nn.functional as F

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sonnets.txt")


class CharTransformer(nn.Module):
    def __init__(self, vocab, context, width=48, heads=4, layers=2):
        super().__init__()
        self.token = nn.Embedding(vocab, width)
        self.position = nn.Embedding(context, width)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=0.0,
                                           batch_first=True, norm_first=True, activation="gelu")
        self.blocks = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(width), enable_nested_tensor=False)
        self.head = nn.Linear(width, vocab)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(context))

    def forward(self, idx):                       # idx: (batch, time) character ids
        t = idx.shape[1]
        x = self.token(idx) + self.position(torch.arange(t))
        x = self.blocks(x, mask=self.causal[:t, :t], is_causal=True)
        return self.head(x)                       # (batch, time, vocab) next-character logits


def batches(data, context, batch_size):
    """Random windows of the text: inputs and the same windows shifted by one character."""
    while True:
        starts = torch.randint(0, len(data) - context - 1, (batch_size,))
        offsets = starts.unsqueeze(1) + torch.arange(context + 1)
        windows = data[offsets]
        yield windows[:, :-1], windows[:, 1:]


def sample(model, prompt_ids, length, context, temperature=0.8):
    """Continue prompt_ids one character at a time, drawing from the softened next-char distribution."""
    ids = list(prompt_ids)
    model.eval()
    with torch.no_grad():
        for _ in range(length):
            logits = model(torch.tensor([ids[-context:]]))[0, -1]
            probs = F.softmax(logits / temperature, dim=0)
            ids.append(int((probs.cumsum(0) < torch.rand(1)).sum().clamp(max=len(probs) - 1).item()))
    model.train()
    return ids


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--context", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="25 steps of a smaller model (a smoke test)")
    args = parser.parse_args(argv)
    steps = 25 if args.small else args.steps

    torch.manual_seed(args.seed)
    text = open(TEXT, encoding="utf-8").read()
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text])
    model = CharTransformer(len(chars), args.context, **({"width": 32, "layers": 1} if args.small else {}))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    warmup = max(1, steps // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * s / steps)))
    print(f"{len(text)} characters, vocabulary of {len(chars)}; {sum(p.numel() for p in model.parameters())} "
          f"weights; uniform guessing costs {math.log(len(chars)):.2f} nats/char")
    losses = []
    for step, (x, y) in zip(range(steps), batches(data, args.context, args.batch_size)):
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        if step % max(1, steps // 8) == 0 or step == steps - 1:
            print(f"step {step:4d}: loss {loss.item():.3f} nats/char")
    prompt = "Shall I "
    ids = sample(model, [chars.index(c) for c in prompt], 40 if args.small else 160, args.context)
    print("sample:\n" + "".join(chars[i] for i in ids))
    return losses


if __name__ == "__main__":
    main()

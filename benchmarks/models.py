"""The real-model workloads' networks, written once against a torch-like module ``torch``
(``import ember as torch`` or ``import torch``): the same code builds either framework's model."""
import math


def mlp(torch):
    """MLP 784-512-256-10 with ReLU."""
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def lenet(torch):
    """LeNet-like CNN for 1x28x28: 2x (conv 5x5, ReLU, max-pool 2), 3 linear layers."""
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


def cifar_net(torch):
    """CIFAR-sized CNN for 3x32x32: 3x (conv 3x3 pad 1, BatchNorm, ReLU, max-pool 2), 32-64-64
    channels, then a linear classifier."""
    nn = torch.nn
    layers, channels = [], 3
    for out in (32, 64, 64):
        layers += [nn.Conv2d(channels, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU(),
                   nn.MaxPool2d(2)]
        channels = out
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(64 * 4 * 4, 10))


def gpt(torch, vocab=65, block=64, n_embd=128, n_head=4, n_layer=2):
    """A 2-layer GPT-style character decoder written as nanoGPT writes it: hand-written causal
    attention (a tril buffer, masked_fill, softmax, dropout), GELU MLP, pre-LayerNorm."""
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout = nn.Dropout(0.0)
            self.register_buffer("bias", _tril_ones(torch, block).view(1, 1, block, block))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(0.0))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx, targets=None):
            pos = torch.arange(0, idx.size(1), dtype=torch.long)
            x = self.wte(idx) + self.wpe(pos)
            for blk in self.h:
                x = blk(x)
            logits = self.lm_head(self.ln_f(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPT()


def _tril_ones(torch, n):
    """torch.tril(torch.ones(n, n)); built from arange where a framework has no tril yet."""
    if hasattr(torch, "tril"):
        return torch.tril(torch.ones(n, n))
    rows = torch.arange(n).view(n, 1)
    return (rows >= rows.view(1, n)).float()


def lstm_lm(torch, vocab=1000, emb=64, hidden=128, layers=2):
    """A word-level LSTM language model (as PyTorch's word_language_model example): embedding,
    2-layer LSTM over (seq, batch), linear decoder."""
    nn = torch.nn

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, emb)
            self.rnn = nn.LSTM(emb, hidden, layers)
            self.decoder = nn.Linear(hidden, vocab)

        def forward(self, tokens):
            output, _ = self.rnn(self.encoder(tokens))
            return self.decoder(output).view(-1, vocab)

    return RNNModel()


def encoder(torch, d_model=128, nhead=4, ff=512):
    """One TransformerEncoderLayer (batch first, dropout 0) and a linear head on the mean."""
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0,
                                                  batch_first=True)
            self.head = nn.Linear(d_model, 10)

        def forward(self, x):
            return self.head(self.enc(x).mean(1))

    return Net()

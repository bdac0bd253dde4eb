"""The exported PyTorch code of every added scheme carries the layer a model puts after its token embedding: x + PE over
a batch (B, T, D), then dropout (Vaswani et al. 2017, §5.4). Checked by running the generated source."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.files import codegen
from core.schemes.registry import ADDED, NOTHING, SCHEMES, Setting

ADDED_SCHEMES = [name for name, s in SCHEMES.items() if s.applied in (ADDED, NOTHING)]


def load(name: str, d: int = 6) -> dict:
    code = codegen.generate(name, Setting(width=d, base=100.0, train_len=12))
    namespace: dict = {}
    exec(compile(code.torch_source, "<generated>", "exec"), namespace)  # noqa: S102 - what a user does with the copied code
    namespace["entry"] = namespace[code.torch_entry]
    return namespace


@pytest.mark.parametrize("name", ADDED_SCHEMES)
def test_add_positions_broadcasts_one_code_over_the_batch(name):
    ns = load(name)
    torch.manual_seed(0)
    layer = ns["AddPositions"](dropout=0.0)
    x = torch.randn(4, 5, 6, dtype=torch.float32)  # (B, T, D), T within every table (one-hot has D rows)
    y = layer(x)
    assert y.shape == x.shape and y.dtype == x.dtype
    code = ns["entry"]()(torch.arange(5)).detach().to(torch.float32)  # (T, D)
    np.testing.assert_allclose((y - x).detach().numpy(), np.broadcast_to(code.numpy(), (4, 5, 6)), atol=1e-6)


def test_dropout_acts_in_training_only():
    ns = load("sinusoidal", d=64)
    layer = ns["AddPositions"](dropout=0.5)
    x = torch.ones(2, 32, 64)
    torch.manual_seed(1)
    train = layer.train()(x)
    kept = train != 0
    assert 0.3 < kept.float().mean().item() < 0.7  # about half the entries dropped
    expected = 2 * (x + ns["entry"]()(torch.arange(32)).to(torch.float32))  # survivors scaled by 1 / (1 - p)
    torch.testing.assert_close(train[kept], expected.expand_as(train)[kept])
    torch.testing.assert_close(layer.eval()(x), x + ns["entry"]()(torch.arange(32)).to(torch.float32))

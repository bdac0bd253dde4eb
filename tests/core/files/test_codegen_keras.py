"""core.files.codegen's Keras 3 layers, executed as a user's module would run them on Keras's torch backend, in
float64: AddPositions adds core's code of positions 0 .. T-1 (a weight trainable only for a table a model learns)
and refuses a sequence past the positions it holds; RotaryEmbedding turns queries and keys as core's RoPE does, in
both pair layouts and every scaling rule. Bias schemes and a partial rotary factor have none."""

from __future__ import annotations

import os

import numpy as np
import pytest

from core.files.codegen import generate
from core.files.codegen import rope_code
from core.schemes import rope
from core.schemes.registry import BIAS, SCHEMES, Setting
from tests.core.files.test_codegen import ADDED_SCHEMES, ROPE_SCALINGS, SETTINGS, rope_reference, run
from tests.helpers import assert_close


@pytest.fixture(scope="module")
def keras():
    """Keras 3 on the torch backend (requirements-dev.txt pins it), imported only where these tests run."""
    os.environ["KERAS_BACKEND"] = "torch"
    import keras

    assert keras.__version__.startswith("3.") and keras.backend.backend() == "torch"
    return keras


def values(tensor) -> np.ndarray:
    """A layer's output as numbers, checked to be float64 (the layers compute in the dtype they are given)."""
    import torch

    assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.float64
    return tensor.detach().numpy()


def layer_of(code, **kwargs):
    assert code.keras_source is not None and "import torch" not in code.keras_source  # the layer itself asks for no backend
    return run(code.keras_source)[code.keras_entry](dtype="float64", **kwargs)


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", ADDED_SCHEMES)
def test_keras_add_positions_adds_cores_code(keras, name, setting):
    s = SETTINGS[setting]
    code = generate(name, s)
    layer = layer_of(code, dropout=0.1)
    rows = SCHEMES[name].max_position(s)
    held = min(s.train_len, rows) if rows is not None else s.train_len
    x = np.random.default_rng(3).standard_normal((2, held, s.width))
    got = values(layer(x))  # outside training: no dropout
    assert_close(got, x + SCHEMES[name].input_code(np.arange(held), s)[None], atol=0, rtol=0)
    shorter = values(layer(x[:, : max(held - 1, 1)]))
    assert_close(shorter, got[:, : max(held - 1, 1)], atol=0, rtol=0)  # positions 0 .. T-1 whatever T
    assert [w.path.rsplit("/", 1)[-1] for w in layer.trainable_weights] == (["position_code"] if SCHEMES[name].parameters(s) > 0 else [])
    with pytest.raises(ValueError, match=f"positions 0 to {held - 1}; a sequence of {held + 1} is longer"):
        layer(np.zeros((1, held + 1, s.width)))


@pytest.mark.parametrize("kind", list(ROPE_SCALINGS))
@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_keras_rotary_embedding_turns_as_core_does(keras, layout, kind):
    head_dim, base, length = 16, 10_000.0, 300
    scaling = ROPE_SCALINGS[kind]
    layer = layer_of(generate("rope", Setting(width=head_dim, base=base, train_len=length, layout=layout, scaling=scaling)))
    x = np.random.default_rng(5).standard_normal((2, 3, length, head_dim))
    pos = np.arange(length, dtype=np.float64)
    expected = rope_reference(x, pos, head_dim, base, layout, scaling)
    assert_close(values(layer(x)), expected)
    assert_close(values(layer(x, pos)), expected)
    later = pos + 37  # other positions: a dynamic rule's frequencies follow the largest
    assert_close(values(layer(x, later)), rope_reference(x, later, head_dim, base, layout, scaling))


def test_no_keras_layer_where_none_is_written():
    s = SETTINGS["small"]
    assert all(generate(name, s).keras_source is None for name, scheme in SCHEMES.items() if scheme.applied == BIAS)
    assert rope_code(16, 10_000.0, partial_rotary_factor=0.5).keras_source is None

"""core.files.codegen: the generated NumPy and PyTorch code, executed in fresh namespaces, gives core's
numbers (float64, to 1e-12) for every scheme, every RoPE layout and scaling rule, and refuses
what core refuses; the sources are self-contained and carry the settings as literals."""

from __future__ import annotations

import ast
import io
import math

import numpy as np
import pytest
import torch

from core.files.codegen import GeneratedCode, generate, literal
from core.files.downloads import MAX_CSV_VALUES, MAX_NPY_VALUES, current_matrix, extent, to_csv, to_npy
from core.files.codegen import rope_code  # the template around rope.source with a partial rotary factor (/context)
from core.schemes import relative, rope
from core.schemes.registry import ADDED, BIAS, NOTHING, ROTARY, SCHEMES, T5_BUCKETS, T5_MAX_DISTANCE, Setting
from tests.core.schemes.test_rope import SAMPLE_ORIGINAL, sample_scaling
from tests.helpers import assert_close
from tests.references import ntk_aware_base

SETTINGS = {
    "small": Setting(width=16, base=10_000.0, train_len=64, n_heads=4),
    "odd": Setting(width=7, base=500.0, train_len=20, n_heads=3, seed=2),
    "tiny": Setting(width=2, base=2.0, train_len=1, n_heads=1),
    "wide": Setting(width=64, base=1e8, train_len=300, n_heads=8, seed=5),
    "onehot-short": Setting(width=32, base=12.5, train_len=10, n_heads=16),
}
ROPE_SCALINGS = {
    "none": None,
    "ntk": rope.RopeScaling("ntk", 4.0, 64),
    "linear": rope.RopeScaling("linear", 4.0, 64),
    "dynamic": rope.RopeScaling("dynamic", 4.0, 64),
    "yarn": rope.RopeScaling("yarn", 8.0, 128),
    "yarn-untruncated": rope.RopeScaling("yarn", 3.0, 100, beta_fast=16.0, beta_slow=2.0, attention_factor=1.3, truncate=False),
    "llama3": rope.RopeScaling("llama3", 8.0, 256),
}


def run(source: str) -> dict:
    """Execute a generated source in a fresh namespace (as a user's own module would run it)."""
    namespace: dict = {"__name__": "generated_by_the_explorer"}
    exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 - the point of the test
    return namespace


def numpy_entry(code: GeneratedCode):
    return run(code.numpy_source)[code.numpy_entry]


def torch_entry(code: GeneratedCode):
    return run(code.torch_source)[code.torch_entry]()


def as_numpy(tensor: torch.Tensor) -> np.ndarray:
    assert tensor.dtype == torch.float64
    return tensor.detach().numpy()


# --- added schemes (and none) ------------------------------------------------------------------

ADDED_SCHEMES = [name for name, scheme in SCHEMES.items() if scheme.applied in (ADDED, NOTHING)]


def added_positions(name: str, setting: Setting) -> np.ndarray:
    """Every position the table has, and for closed forms some beyond max_len and a fraction."""
    rows = SCHEMES[name].max_position(setting)
    if rows is not None:
        return np.arange(min(rows, setting.train_len), dtype=np.float64)
    return np.concatenate([np.arange(setting.train_len), [setting.train_len, 3 * setting.train_len + 7, 2.5, 1000.0]])


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", ADDED_SCHEMES)
def test_added_code_equals_the_registry(name, setting):
    s = SETTINGS[setting]
    code = generate(name, s)
    assert (code.numpy_entry, code.applied) == ("positional_encoding", SCHEMES[name].applied)
    pos = added_positions(name, s)
    expected = SCHEMES[name].input_code(pos, s)  # (L, d)
    got = numpy_entry(code)(pos)
    assert got.shape == expected.shape == (pos.size, s.width)
    assert_close(got, expected, atol=0, rtol=0)  # the same float operations as core: bit for bit
    module = torch_entry(code)
    assert isinstance(module, torch.nn.Module)
    assert_close(as_numpy(module(torch.from_numpy(pos))), expected)
    assert_close(as_numpy(module(pos.tolist())), expected)  # plain lists work too


@pytest.mark.parametrize("name", [n for n in ADDED_SCHEMES if SCHEMES[n].max_position(SETTINGS["small"]) is not None])
@pytest.mark.parametrize("bad", ["past the table", "negative", "fraction"])
def test_tables_refuse_like_core(name, bad):
    s = SETTINGS["small"]
    rows = SCHEMES[name].max_position(s)
    pos = {"past the table": [0.0, float(rows)], "negative": [-1.0], "fraction": [0.5]}[bad]
    with pytest.raises(ValueError) as core_error:
        SCHEMES[name].input_code(np.asarray(pos), s)
    code = generate(name, s)
    with pytest.raises(ValueError) as numpy_error:
        numpy_entry(code)(np.asarray(pos))
    with pytest.raises(ValueError) as torch_error:
        torch_entry(code)(torch.tensor(pos))
    if bad == "past the table":  # the same sentence as core
        assert str(numpy_error.value) == str(torch_error.value) == str(core_error.value)


def test_learned_torch_table_is_the_numpy_draw():
    s = Setting(width=5, train_len=12, seed=9)
    module = torch_entry(generate("learned", s))
    assert isinstance(module.embedding, torch.nn.Embedding) and module.embedding.weight.requires_grad
    assert_close(as_numpy(module.embedding.weight), SCHEMES["learned"].input_code(np.arange(12), s), atol=0, rtol=0)


def test_onehot_rows_stop_at_the_width():
    s = Setting(width=4, train_len=100)
    fn = numpy_entry(generate("onehot", s))
    assert_close(fn(np.arange(4)), np.eye(4), atol=0, rtol=0)
    with pytest.raises(ValueError, match="positions 0 to 3 only; position 4 has none"):
        fn([4])


# --- RoPE -------------------------------------------------------------------------------------


def rope_reference(x, pos, head_dim, base, layout, scaling):
    """core.schemes.rope's rotation for the same settings (dynamic at seq_len = max position + 1;
    "ntk" from the base change itself, not through the scaling kind)."""
    if scaling is not None and scaling.kind == "ntk":
        inv_freq, factor = rope.default_frequencies(head_dim, ntk_aware_base(base, scaling.factor, head_dim)), 1.0
    else:
        inv_freq, factor = rope.rope_frequencies(head_dim, base, scaling, seq_len=int(pos.max()) + 1)
    return rope.apply_rope(x, pos, inv_freq, layout=layout, attention_factor=factor)


@pytest.mark.parametrize("head_dim, base, length", [(16, 10_000.0, 300), (64, 500_000.0, 1000), (6, 2.0, 40)])
@pytest.mark.parametrize("kind", list(ROPE_SCALINGS))
@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_rope_code_equals_core_rope(layout, kind, head_dim, base, length):
    scaling = ROPE_SCALINGS[kind]
    code = generate("rope", Setting(width=head_dim, base=base, layout=layout, scaling=scaling))
    assert (code.numpy_entry, code.torch_entry, code.applied) == ("rotate", "RotaryEmbedding", ROTARY)
    x = np.random.default_rng(head_dim).standard_normal((2, 3, length, head_dim))  # (B, H, L, hd)
    pos = np.arange(length, dtype=np.float64) + 5  # a start past 0; dynamic sees length + 5 positions
    expected = rope_reference(x, pos, head_dim, base, layout, scaling)
    assert_close(numpy_entry(code)(x, pos), expected, atol=0, rtol=0)
    assert_close(as_numpy(torch_entry(code)(torch.from_numpy(x), torch.from_numpy(pos))), expected)


def test_rope_default_is_the_registry_hook_and_positions_default_to_0_onwards():
    s = Setting(width=32, base=10_000.0)
    code = generate("rope", s)
    x = np.random.default_rng(0).standard_normal((50, 32))
    expected = SCHEMES["rope"].rotate(x, np.arange(50), s)
    assert_close(numpy_entry(code)(x, np.arange(50)), expected, atol=0, rtol=0)
    assert_close(as_numpy(torch_entry(code)(torch.from_numpy(x))), expected)


def test_rope_dynamic_frequencies_follow_the_sequence_length():
    scaling = rope.RopeScaling("dynamic", 4.0, 64)
    code = generate("rope", Setting(width=16, base=10_000.0, scaling=scaling))
    frequencies = run(code.numpy_source)["frequencies"]
    for seq_len in (None, 10, 64, 65, 1000):
        expected = rope.rope_frequencies(16, 10_000.0, scaling, seq_len=seq_len)
        got = frequencies(seq_len=seq_len)
        assert_close(got[0], expected[0], atol=0, rtol=0)
        assert got[1] == expected[1]


@pytest.mark.parametrize("kind", ["dynamic", "yarn", "llama3", "linear"])
def test_rope_at_head_dim_2(kind):
    scaling = rope.RopeScaling(kind, 4.0, 16)
    code = generate("rope", Setting(width=2, base=10_000.0, scaling=scaling))
    x = np.random.default_rng(1).standard_normal((30, 2))
    pos = np.arange(30.0)
    assert_close(numpy_entry(code)(x, pos), rope_reference(x, pos, 2, 10_000.0, "half", scaling), atol=0, rtol=0)


def test_rope_refusals_are_cores():
    with pytest.raises(ValueError) as ours:
        generate("rope", Setting(width=7))
    with pytest.raises(ValueError) as theirs:
        rope.rope_frequencies(7)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="at least 4 for an NTK-aware base"):
        generate("rope", Setting(width=2, scaling=rope.RopeScaling("ntk", 2.0, 8)))
    with pytest.raises(ValueError, match="layout must be one of"):
        generate("rope", Setting(width=8, layout="diagonal"))
    with pytest.raises(ValueError, match="RoPE only"):
        generate("sinusoidal", Setting(width=8, scaling=rope.RopeScaling("linear", 2.0, 8)))
    with pytest.raises(ValueError, match="Unknown scheme"):
        generate("xpos", Setting(width=8))
    numpy_rotate = numpy_entry(generate("rope", Setting(width=8)))
    with pytest.raises(ValueError, match="must be"):
        numpy_rotate(np.zeros((3, 6)), np.arange(3))


# --- RoPE: the kinds transformers added (longrope, proportional, YaRN's mscale) and partial rotary ----------


def ramp(n: int, start: float, step: float) -> list[float]:
    return [start + step * i for i in range(n)]


LONGROPE_GIVEN = rope.RopeScaling("longrope", 4.0, 64, short_factor=ramp(8, 1, 0.1), long_factor=ramp(8, 2, 1), attention_factor=1.3)
NEW_ROPE = {  # name: (head_dim, base, scaling, partial_rotary_factor)
    "longrope": (16, 10_000.0, rope.RopeScaling("longrope", 32.0, 64, short_factor=ramp(8, 1.0, 0.05), long_factor=ramp(8, 1.0, 1.5)), 1.0),
    "longrope-given-attention": (16, 10_000.0, LONGROPE_GIVEN, 1.0),
    "longrope-partial": (64, 10_000.0, rope.RopeScaling("longrope", 32.0, 64, short_factor=ramp(16, 1.0, 0.05), long_factor=ramp(16, 1.0, 1.5)), 0.5),
    "proportional": (32, 1e6, rope.RopeScaling("proportional", 2.0, 64), 0.25),
    "proportional-full": (16, 1e6, rope.RopeScaling("proportional", 1.0, 64), 1.0),
    "yarn-mscale": (64, 10_000.0, rope.RopeScaling("yarn", 40.0, 64, mscale=1.0, mscale_all_dim=0.5), 1.0),
    "yarn-deepseek": (64, 10_000.0, rope.RopeScaling("yarn", 40.0, 64, mscale=1.0, mscale_all_dim=1.0), 1.0),
    "yarn-partial": (128, 10_000.0, rope.RopeScaling("yarn", 4.0, 64), 0.25),
    "partial-neox": (96, 10_000.0, None, 0.25),
    "partial-phi2": (80, 10_000.0, None, 0.4),
    "partial-odd-width": (64, 10_000.0, None, 0.4),  # int(64 * 0.4) = 25: 13 pairs, 26 dimensions turn
    "partial-linear": (64, 10_000.0, rope.RopeScaling("linear", 4.0, 64), 0.4),
    "partial-ntk": (48, 10_000.0, rope.RopeScaling("ntk", 4.0, 64), 0.5),
    "partial-dynamic": (64, 10_000.0, rope.RopeScaling("dynamic", 4.0, 64), 0.25),
    "partial-llama3": (64, 500_000.0, rope.RopeScaling("llama3", 8.0, 64), 0.5),
}


@pytest.mark.parametrize("length", [40, 300])  # within L = 64 and past it: longrope's two lists, dynamic's growing base
@pytest.mark.parametrize("name", list(NEW_ROPE))
@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_new_rope_kinds_and_partial_rotary_code_equals_core(layout, name, length):
    head_dim, base, scaling, p = NEW_ROPE[name]
    code = rope_code(head_dim, base, layout, scaling, p)
    x = np.random.default_rng(head_dim).standard_normal((2, length, head_dim))
    pos = np.arange(length, dtype=np.float64) + 5
    inv_freq, factor = rope.rope_frequencies(head_dim, base, scaling, seq_len=length + 5, partial_rotary_factor=p)
    expected = rope.apply_rope(x, pos, inv_freq, layout=layout, attention_factor=factor)
    assert_close(numpy_entry(code)(x, pos), expected, atol=0, rtol=0)  # the same float operations: bit for bit
    assert_close(as_numpy(torch_entry(code)(torch.from_numpy(x), torch.from_numpy(pos))), expected)
    still = np.arange(2 * inv_freq.size, head_dim)  # partial rotary: the rest is passed through untouched
    assert_close(numpy_entry(code)(x, pos)[..., still], x[..., still], atol=0, rtol=0)
    for source in (code.numpy_source, code.torch_source):
        assert "core." not in source and ast.get_docstring(ast.parse(source))
        assert ("ROTARY_DIM = int(HEAD_DIM * PARTIAL_ROTARY_FACTOR)" in source) == (p < 1 and (scaling is None or scaling.kind != "proportional"))


@pytest.mark.parametrize("p", [1.0, 0.5])
@pytest.mark.parametrize("length", [SAMPLE_ORIGINAL - 8, 3 * SAMPLE_ORIGINAL], ids=["inside", "beyond"])
@pytest.mark.parametrize("kind", list(rope.SCALING_KINDS))
def test_every_registered_kind_code_equals_core(kind, length, p):
    # every kind of the registry through its record's code, inside and beyond its original context, at full and partial rotary
    head_dim = 16
    scaling = sample_scaling(kind, rope.rotary_dim(head_dim, p) // 2)
    code = rope_code(head_dim, 500.0, "interleaved", scaling, p)
    x = np.random.default_rng(7).standard_normal((length, head_dim))
    pos = np.arange(length, dtype=np.float64)
    inv_freq, factor = rope.rope_frequencies(head_dim, 500.0, scaling, seq_len=length, partial_rotary_factor=p)
    expected = rope.apply_rope(x, pos, inv_freq, layout="interleaved", attention_factor=factor)
    assert_close(numpy_entry(code)(x, pos), expected, atol=0, rtol=0)
    assert_close(as_numpy(torch_entry(code)(torch.from_numpy(x))), expected)


def test_new_kinds_flow_through_generate_at_full_rotary():
    # the registry's path (the /code page): p = 1, the scaling in the Setting
    for name in ("longrope", "longrope-given-attention", "proportional-full", "yarn-mscale", "yarn-deepseek"):
        head_dim, base, scaling, p = NEW_ROPE[name]
        assert p == 1.0
        code = generate("rope", Setting(width=head_dim, base=base, scaling=scaling))
        assert code.numpy_source == rope_code(head_dim, base, "half", scaling).numpy_source
        x = np.random.default_rng(3).standard_normal((70, head_dim))
        pos = np.arange(70.0)
        assert_close(numpy_entry(code)(x, pos), rope_reference(x, pos, head_dim, base, "half", scaling), atol=0, rtol=0)


def test_longrope_code_switches_lists_at_original_plus_one_and_writes_them_exactly():
    head_dim, base, scaling, _ = NEW_ROPE["longrope"]
    code = rope_code(head_dim, base, "half", scaling)
    namespace = run(code.numpy_source)
    assert namespace["SHORT_FACTOR"] == list(scaling.short_factor) and namespace["LONG_FACTOR"] == list(scaling.long_factor)
    for seq_len in (None, 1, 64, 65, 4096):
        got, factor = namespace["frequencies"](seq_len=seq_len)
        expected, core_factor = rope.rope_frequencies(head_dim, base, scaling, seq_len=seq_len)
        assert_close(got, expected, atol=0, rtol=0) and factor == core_factor
    assert namespace["ATTENTION_FACTOR"] == math.sqrt(1 + math.log(32) / math.log(64))
    deepseek = run(rope_code(64, 1e4, "interleaved", NEW_ROPE["yarn-deepseek"][2]).numpy_source)
    assert deepseek["ATTENTION_FACTOR"] == 1.0 and deepseek["MSCALE"] == deepseek["MSCALE_ALL_DIM"] == 1.0


def test_new_kinds_refusals_are_cores():
    with pytest.raises(ValueError, match="rotating dimensions, but int\\(64 × 0.4\\) = 25 is odd"):
        rope_code(64, 1e4, "half", rope.RopeScaling("yarn", 4.0, 64), 0.4)
    with pytest.raises(ValueError, match="one factor per rotating pair"):
        generate("rope", Setting(width=32, scaling=NEW_ROPE["longrope"][2]))
    with pytest.raises(ValueError, match="partial_rotary_factor must be"):
        rope_code(64, 1e4, "half", None, 1.5)


# --- bias schemes -----------------------------------------------------------------------------

BIAS_SCHEMES = [name for name, scheme in SCHEMES.items() if scheme.applied == BIAS]


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("name", BIAS_SCHEMES)
def test_bias_code_equals_the_registry(name, setting):
    s = SETTINGS[setting]
    code = generate(name, s)
    assert (code.numpy_entry, code.applied) == ("attention_bias", BIAS)
    qp = np.array([0, 1, 2, 5, 40, 200, 300], dtype=np.float64)  # distances past T5's 128 and Shaw's clip
    kp = np.arange(0, 320, 3, dtype=np.float64)
    expected = SCHEMES[name].score_bias(qp, kp, s)  # (H, Lq, Lk)
    got = numpy_entry(code)(qp, kp)
    assert got.shape == expected.shape == (s.n_heads, qp.size, kp.size)
    assert_close(got, expected, atol=0, rtol=0) if name != "shaw" else assert_close(got, expected)
    assert_close(as_numpy(torch_entry(code)(torch.from_numpy(qp), torch.from_numpy(kp))), expected)


@pytest.mark.parametrize("setting", ["small", "wide", "odd"])
def test_shaw_code_scores_given_queries_like_the_registry(setting):
    s = SETTINGS[setting]
    qp, kp = np.arange(30.0), np.arange(45.0)
    q = np.random.default_rng(4).standard_normal((s.n_heads, qp.size, s.head_width))
    expected = SCHEMES["shaw"].score_bias(qp, kp, s, q)
    code = generate("shaw", s)
    assert_close(numpy_entry(code)(qp, kp, q=q), expected)
    assert_close(as_numpy(torch_entry(code)(qp, kp, q=torch.from_numpy(q))), expected)


def test_t5_buckets_in_torch_are_cores_at_every_distance():
    code = generate("t5", SETTINGS["small"])
    bucket = run(code.torch_source)["relative_position_bucket"]
    r = np.arange(-5000, 5001)
    expected = relative.t5_relative_bucket(r, bidirectional=True, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    assert np.array_equal(bucket(torch.from_numpy(r)).numpy(), expected)
    assert np.array_equal(run(code.numpy_source)["relative_position_bucket"](r), expected)


def test_t5_module_is_an_embedding_of_buckets_by_heads():
    module = torch_entry(generate("t5", Setting(width=8, n_heads=6, seed=1)))
    weight = module.relative_attention_bias.weight
    assert tuple(weight.shape) == (T5_BUCKETS, 6) and weight.requires_grad
    assert_close(as_numpy(weight).T, relative.t5_demo_bucket_values(T5_BUCKETS, 6, seed=1), atol=0, rtol=0)


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 8, 12, 16, 64])
def test_alibi_slopes_are_cores(heads):
    from core.schemes.alibi import alibi_slopes

    code = generate("alibi", Setting(width=64, n_heads=heads))
    assert_close(run(code.numpy_source)["SLOPES"], alibi_slopes(heads), atol=0, rtol=0)


def test_whole_positions_only_for_buckets_and_clipping():
    for name in ("t5", "shaw"):
        with pytest.raises(ValueError):
            SCHEMES[name].score_bias([0.5], [0], SETTINGS["small"])
        code = generate(name, SETTINGS["small"])
        with pytest.raises(ValueError, match="whole numbers"):
            numpy_entry(code)([0.5], [0])
        with pytest.raises(ValueError, match="whole numbers"):
            torch_entry(code)([0.5], [0])


# --- the sources themselves -------------------------------------------------------------------


def imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


@pytest.mark.parametrize("name", list(SCHEMES))
def test_sources_are_self_contained_and_carry_the_settings(name):
    s = Setting(width=96, base=12_345.5, train_len=777, n_heads=12, seed=3)
    code = generate(name, s)
    assert imported_modules(code.numpy_source) <= {"math", "numpy"}
    assert imported_modules(code.torch_source) <= {"math", "numpy", "torch"}
    assert "torch" in imported_modules(code.torch_source)
    for source in (code.numpy_source, code.torch_source):
        assert ast.get_docstring(ast.parse(source)), "a module docstring with the formula"
        assert "core." not in source and "registry" not in source
    applied = SCHEMES[name].applied
    expected = {
        ADDED: ["D_MODEL = 96"],
        NOTHING: ["D_MODEL = 96"],
        ROTARY: ["HEAD_DIM = 96", "BASE = 12345.5"],
        BIAS: ["N_HEADS = 12"],
    }[applied]
    expected += {
        "sinusoidal": ["BASE = 12345.5"],
        "t2t": ["MAX_TIMESCALE = 12345.5"],
        "learned": ["MAX_LEN = 777", "SEED = 3"],
        "shaw": ["HEAD_DIM = 8", "K = 16", "SEED = 3"],
        "t5": ["NUM_BUCKETS = 32", "MAX_DISTANCE = 128"],
    }.get(name, [])
    for text in expected:
        assert text in code.numpy_source and text in code.torch_source, (name, text)
    assert code.what


def test_scaling_numbers_are_written_in():
    code = generate("rope", Setting(width=128, base=500_000.0, layout="interleaved", scaling=rope.RopeScaling("llama3", 8.0, 8192)))
    for text in (
        "HEAD_DIM = 128",
        "BASE = 500000.0",
        'LAYOUT = "interleaved"',
        "FACTOR = 8.0",
        "ORIGINAL_MAX_LEN = 8192",
        "LOW_FREQ_FACTOR = 1.0",
        "HIGH_FREQ_FACTOR = 4.0",
    ):
        assert text in code.numpy_source and text in code.torch_source, text
    ntk = generate("rope", Setting(width=64, base=10_000.0, scaling=rope.RopeScaling("ntk", 4.0, 64)))
    assert "NTK_BASE = BASE * FACTOR ** (HEAD_DIM / (HEAD_DIM - 2))" in ntk.numpy_source


def test_extreme_settings_generate_text_only():
    # the page shows code for d_model 8192 and max_len 131072: generating it builds no array
    s = Setting(width=8192, base=1e8, train_len=131_072, n_heads=16)
    for name in SCHEMES:
        code = generate(name, s)
        assert len(code.numpy_source) < 20_000
    assert "MAX_LEN = 131072" in generate("learned", s).numpy_source


def test_literals_read_back_exactly():
    for value in (128, 10_000.0, 1e8, 12.5, 0.1 + 0.2, np.int64(7), np.float64(3.25)):
        assert eval(literal(value)) == value  # noqa: S307


# --- the matrix offered for download ---------------------------------------------------------


def generated_matrix(code: GeneratedCode, s: Setting, n: int) -> np.ndarray:
    """What a user computes with the generated NumPy code for the first n positions of the page's matrix."""
    fn = numpy_entry(code)
    pos = np.arange(n)
    if code.applied == BIAS:
        return fn(pos, pos)
    if code.applied == ROTARY:  # the unit vector of equal entries, rotated over the whole context, first n rows
        return fn(np.full((s.train_len, s.width), 1.0 / np.sqrt(s.width)), np.arange(s.train_len))[:n]
    return fn(pos)


@pytest.mark.parametrize("kind", list(ROPE_SCALINGS))
def test_the_rope_download_is_what_the_generated_code_computes(kind):
    scaling = ROPE_SCALINGS[kind]
    for layout in rope.LAYOUTS:
        s = Setting(width=16, base=10_000.0, train_len=300, layout=layout, scaling=scaling)
        code = generate("rope", s)
        got = current_matrix("rope", s, np.arange(100))
        assert_close(got, generated_matrix(code, s, 100), atol=0, rtol=0)
        factor = rope.rope_frequencies(16, 10_000.0, scaling)[1]  # the attention factor scales a unit vector
        assert_close(np.linalg.norm(got, axis=1), np.full(100, factor))


@pytest.mark.parametrize("name", [n for n in SCHEMES if n != "rope"])
def test_the_download_is_what_the_generated_code_computes(name):
    s = Setting(width=12, base=300.0, train_len=50, n_heads=4, seed=1)
    n = extent(name, s, 10**6).positions
    expected = current_matrix(name, s, np.arange(n))
    assert_close(generated_matrix(generate(name, s), s, n), expected, atol=0, rtol=0) if name != "shaw" else assert_close(
        generated_matrix(generate(name, s), s, n), expected
    )


@pytest.mark.parametrize("name", list(SCHEMES))
@pytest.mark.parametrize("limit", [MAX_NPY_VALUES, MAX_CSV_VALUES, 1000, 1])
def test_extent_stays_within_the_limit(name, limit):
    for s in (Setting(width=8192, base=1e8, train_len=131_072, n_heads=16), Setting(width=7, train_len=5, n_heads=3)):
        e = extent(name, s, limit)
        assert e.positions >= 1 and e.positions <= e.total
        assert e.values == (s.n_heads * e.positions**2 if SCHEMES[name].applied == BIAS else s.width * e.positions)
        assert e.values <= max(limit, s.width) or e.positions == 1
        assert e.complete == (e.positions == e.total)
        if e.values < limit and not e.complete:  # as many positions as fit
            one_more = s.n_heads * (e.positions + 1) ** 2 if SCHEMES[name].applied == BIAS else s.width * (e.positions + 1)
            assert one_more > limit
    assert extent("onehot", Setting(width=8192, train_len=131_072), MAX_NPY_VALUES).total == 8192  # the table's rows
    assert extent("sinusoidal", Setting(width=8, train_len=100), MAX_CSV_VALUES).complete


def test_npy_and_csv_hold_the_values_exactly():
    s = Setting(width=6, base=10.0, train_len=9, n_heads=2)
    code = current_matrix("sinusoidal", s, np.arange(9))
    assert np.array_equal(np.load(io.BytesIO(to_npy(code))), code)
    text = to_csv(code)
    assert text.splitlines()[0] == "position,dim_0,dim_1,dim_2,dim_3,dim_4,dim_5"
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert np.array_equal(table[:, 0], np.arange(9)) and np.array_equal(table[:, 1:], code)
    bias = current_matrix("alibi", s, np.arange(4))  # (2, 4, 4)
    text = to_csv(bias)
    assert text.splitlines()[0] == "head,query,key_0,key_1,key_2,key_3"
    assert "-0" not in text.splitlines()[1].split(",")  # the zero on the diagonal is written 0.0
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert np.array_equal(table[:, :2], [[h, i] for h in range(2) for i in range(4)])
    assert np.array_equal(table[:, 2:].reshape(2, 4, 4), bias)

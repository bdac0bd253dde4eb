"""The NumPy and PyTorch code for a RoPE setting that the registry's `Setting` cannot hold: a partial
rotary factor (GPT-NeoX, Phi-2) or a preset's scaling (LongRoPE's lists, proportional RoPE, YaRN's
mscale), as the /context page exports a model preset.

It is the code page's own rotary template (`core.files.codegen.TEMPLATES[ROTARY]`) around the
formula of `core.schemes.rope.source`, so it is the same code /code shows for the settings they
share; tests/core/files/test_codegen.py executes it against core.
"""

from __future__ import annotations

from core.files.codegen import TEMPLATES, GeneratedCode
from core.schemes import rope
from core.schemes.registry import ROTARY, SCHEMES, Setting


def rope_code(head_dim: int, base: float, layout: str = "half", scaling: rope.RopeScaling | None = None, partial_rotary_factor: float = 1.0) -> GeneratedCode:
    """`rotate(x, positions)` and `RotaryEmbedding` for one head of width head_dim with this base,
    pair layout, scaling and partial rotary factor (only the first int(head_dim · p) dimensions turn).
    Settings core refuses raise its ValueError. Returns a GeneratedCode."""
    formula = rope.source(head_dim, base, layout, scaling, partial_rotary_factor)
    return TEMPLATES[ROTARY](SCHEMES["rope"], Setting(width=head_dim, base=base, layout=layout, scaling=scaling), formula)

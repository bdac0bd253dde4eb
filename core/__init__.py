"""Positional Encoding Explorer core: everything the app computes, in plain Python and numpy.

Split by job, layers pointing down only (tests/test_layers.py checks it):

- `core.schemes`: the math, one module per scheme, and the registry every other part reads;
- `core.analysis`: what is measured about schemes (attention, similarity, properties, tables);
- `core.viz`: Plotly figures, what a figure samples (grid) and what the browser receives (wire);
- `core.files`: reading uploaded checkpoints safely, generating code, writing downloads;
- `core.lab`: training tiny models per scheme (torch only in `core.lab.model`).
- `core.llm`: a real language model (SmolLM2-135M) run with the schemes' RoPE (torch only in `core.llm.forward`).

Nothing here imports streamlit, and importing any module but `core.schemes.torch` and
`core.lab.model` does not import torch. docs/architecture.md says more.
"""

"""The real language model (SmolLM2-135M-Instruct from its GGUF file), run with the app's RoPE.

What a page uses (every function raises ValueError with one sentence for bad input or a missing model):

- `model.missing()`: None when the model's file is installed and whole, else one sentence saying how to get it;
  `model.load()`: the model, read once per process (about 4 CPU-s, 570 MB), shared by every session;
  `model.loaded()`: whether that read has happened (a first run waits for it).
- `experiments.attention(text, mode)`: attention maps, next-token top 5 and per-head summaries for 2 to 128
  tokens, mode one of `experiments.MODES`; `experiments.PRESETS` are texts that need word order.
- `experiments.perplexity(length, experiments.scaling(kind, factor))`, `experiments.passkey(length, depth, ...)`,
  `experiments.pair_sizes(tokens)`, `experiments.pair_ablation(length, which, count)`, `experiments.layouts(text)`.
- `experiments.estimate_cpu_seconds(tokens, passes)`: what a run costs.
- `registry.RECORDS`: the page's four experiments as the lab's `Experiment` records (config, run, estimate and budget,
  typed shipped results, findings, figure, bench parts); `registry.job(record)` starts a live run in the lab's line.
- `results.attention_maps(preset, mode)`: the shipped maps beside the records' results (`python -m bench.llm`).

Every experiment takes `should_stop` (asked before every layer; True raises `model.Stopped`). Only
`forward` imports torch, and the experiments import it when they run.
"""

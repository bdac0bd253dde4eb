"""The real language model (SmolLM2-135M-Instruct from its GGUF file), run with the app's RoPE. Every function a page
calls raises ValueError with one sentence for bad input or a missing model; every experiment takes `should_stop`
(asked before every layer; True raises `model.Stopped`). Only `forward` imports torch, when an experiment runs."""

"""The real language model (SmolLM2-135M-Instruct from its GGUF file): loading it (`model`), its
tokenizer (`tokenizer`), its forward pass with the app's RoPE (`forward`, torch, imported only when a
computation runs), the experiments the page runs (`experiments`) and their shipped results (`results`).
"""

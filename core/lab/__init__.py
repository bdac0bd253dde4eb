"""The lab: train a tiny transformer per scheme on short sequences and test it on longer ones.
`config` (LabConfig, the tasks, their batches, LabResult; torch-free), `model` (the torch model,
its position hooks built from the registry, the training loop; the only torch module here) and
`runner` (background runs, the result cache, the server-wide cap on runs training at once;
torch-free, it imports `model` when a run starts)."""

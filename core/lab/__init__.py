"""The lab: train a tiny transformer per scheme on short sequences and test it on longer ones.
`config` (LabConfig, the tasks, their batches, LabResult; torch-free), `model` (the torch model,
its position hooks built from the registry, the training loop), and the runs on the page, torch-free:
`labrun` (a run in a background thread, and the Job each kind of run is), `cache` (finished runs),
`trainers` (the server-wide cap on runs training at once, and its line) and `entry` (which imports
`model`, and so torch, when a run starts)."""

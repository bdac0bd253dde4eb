"""The lab: train a tiny transformer per scheme on short sequences and test it on longer ones; docs/architecture.md
says which module does what."""

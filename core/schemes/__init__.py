"""The schemes: one module of pure functions per positional encoding, and `registry`, the one place
that says which exist (docs/architecture.md lists the modules). Imports nothing else of the app."""

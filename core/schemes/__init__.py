"""The schemes: one module of pure functions per positional encoding (sinusoidal, naive, learned,
rope, alibi, relative for T5 and Shaw, kerple), `registry` (Scheme, Setting, Positions, SCHEMES:
the one place that says what exists and how each is applied, drawn, exported and trained),
`checks` (the shared input checks), `formula` (the piece of generated code a scheme contributes)
and `torch` (torch twins of the schemes, float64 parity; the only module here that imports torch).
Imports nothing else of the app."""

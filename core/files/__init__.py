"""Files in and out: `checkpoint` (reading position tables from uploads safely: safetensors, .npy,
.npz, never a pickle), `codegen` (a self-contained NumPy function and PyTorch module for a scheme
at the current settings, from the template of how it is applied and the scheme's own Formula) and
`downloads` (the current matrix, bounded, as .npy or .csv). Imports core.schemes only."""

"""What is measured about schemes: `attention` (attention with and without positions, the shuffle
test), `similarity` (how alike two sinusoidal positions are, as functions of the offset),
`properties` (bounded, unique, smooth, relative, extrapolation, measured from each registry
scheme's arrays) and `position_analysis` (a table of position vectors: cosine, PCA, spectrum).
Imports core.schemes and the figure grid only."""

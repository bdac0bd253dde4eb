"""Drawing: `charts` (Plotly figure builders: labelled axes, titles, one diverging scale), `grid`
(which rows and columns a figure samples, and the sentence that says so) and `wire` (what the
browser receives: plain lists, a palette PNG for big heatmaps, a digest so unchanged figures
are not redrawn). Figure sets of one page may live here too; they import core.analysis and
core.schemes, never core.lab or core.files."""

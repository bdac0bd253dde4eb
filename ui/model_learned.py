"""/model's last tab for the bundled table: what all-MiniLM-L6-v2 learned, each finding with the
number measured from the table (core.analysis.table_summary) beside the sinusoid's."""

from __future__ import annotations

import streamlit as st

from core.analysis import position_analysis as pa
from core.analysis import table_summary as ts


def learned(name: str, A: pa.TableAnalysis, S: pa.TableAnalysis, L: int, d: int, far: int, norm_median: float) -> None:
    """The findings for the bundled model `name`, its analysis A and the sinusoid's S."""
    st.header(f"What {name} learned")
    ring = ts.ring(A, L)
    slow = ", ".join(map(str, ring.slow_cycles))
    st.markdown(
        f"""
- **A fast rotation.** PC 1 and PC 2 ({A.explained[0]:.0%} and {A.explained[1]:.0%} of the variance) trace a ring that turns by
  about {ring.angle:.0f}° per position, a period of about {360 / ring.angle:.1f} positions ({A.turns:.0f} turns over {L} positions): a
  sin/cos pair in disguise, at nearly the frequency of the sinusoid's fastest pair (57.3° per position).
  {ring.near_ring} of the {d} dimensions have their strongest frequency within three bins of it.
- **Slow waves.** The next components oscillate only {", ".join(map(str, ring.pc_cycles))} times over the table, and {ring.slow_share:.0%} of
  the single dimensions are dominated by {slow} cycles over the {L} positions. Together with the ring this makes a helix-like path
  (a fast turn around a slowly bending axis): seen from the side (PC 1 against PC 3), or turned in 3-D, the ring is stretched along PC 3.
- **Few directions.** {ts.components_for(A.explained)} components hold 90% of the variance between positions,
  against {ts.components_for(S.explained)} for the sinusoid of the same width: the model uses a small subspace of its 384
  dimensions for position.
- **Not translation-invariant, and some positions are special.** Similarity depends on where you are, not only on the offset
  (spread {A.offset_std[far]:.2f} at an offset of {far}). Position 0, which always holds [CLS], has a vector {A.norms[0] / norm_median:.1f}× the typical
  length and is unlike its neighbour; positions near 127 and the last few stand apart too. A plausible reason, not checked here: the
  model card says fine-tuning cut sequences at 128 tokens, so rows 128 and up were never updated then while the row just before
  often held the closing [SEP]; BERT-style pre-training also runs most of its steps on 128-token sequences.
"""
    )

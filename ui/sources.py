"""Each page's "Sources" expander: what the page says about a paper, a model or a library, and where that
comes from (paper, section, equation or table; a config file; a commit on a repository's default branch).
Numbers the page computes from its own arrays need no entry: the page says how they are computed. Where a
source could not be read here, the entry says so.

`SOURCES` maps a page's URL path to its entries; `sources_expander(path)` draws them, folded, at the end of
the page. The text is the app's own, shown through `static_table` (as text, never as Markdown)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.shared import static_table


@dataclass(frozen=True)
class Source:
    claim: str  # what the page says, in a few words
    where: str  # where it comes from


VASWANI = "Vaswani et al. 2017, Attention Is All You Need (NeurIPS; arXiv:1706.03762)"
ROFORMER = "Su et al. 2021, RoFormer: Enhanced Transformer with Rotary Position Embedding (arXiv:2104.09864)"
ALIBI = "Press, Smith & Lewis 2022, Train Short, Test Long (ICLR; arXiv:2108.12409)"
T5 = "Raffel et al. 2020, Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer (JMLR; arXiv:1910.10683)"
SHAW = "Shaw, Uszkoreit & Vaswani 2018, Self-Attention with Relative Position Representations (NAACL; arXiv:1803.02155)"
TXL = "Dai et al. 2019, Transformer-XL (ACL; arXiv:1901.02860)"
KERPLE = "Chi et al. 2022, KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation (NeurIPS; arXiv:2205.09921)"
YARN = "Peng et al. 2023, YaRN: Efficient Context Window Extension of Large Language Models (arXiv:2309.00071)"
PI = "Chen et al. 2023, Extending Context Window of Large Language Models via Positional Interpolation (arXiv:2306.15595)"
BERT = "Devlin et al. 2019, BERT (NAACL; arXiv:1810.04805)"
HAVIV = "Haviv et al. 2022, Transformer Language Models without Positional Encodings Still Learn Positional Information (Findings of EMNLP; arXiv:2203.16634)"
KAZEMNEJAD = "Kazemnejad et al. 2023, The Impact of Positional Encoding on Length Generalization in Transformers (NeurIPS; arXiv:2305.19466)"
TF = "transformers 5.23.0 (PyPI wheel)"

SOURCES: dict[str, tuple[Source, ...]] = {
    "practice": (
        Source("The Transformer paper adds its sinusoid once, to the inputs of the encoder and decoder stacks", f"{VASWANI}, §3.5"),
        Source("BERT adds a learned position embedding to the token embeddings", f"{BERT}, §3 ‘Input/Output Representations’ and Figure 2"),
        Source("RoPE rotates queries and keys in every attention layer", f"{ROFORMER}, §3.2, equations (14) to (16): applied in self-attention"),
        Source("ALiBi adds a bias to the scores of every layer", f"{ALIBI}, §3"),
        Source("T5 adds a learned bias per bucket of distances, its parameters shared across layers", f"{T5}, §2.1"),
        Source("KERPLE subtracts r₁·log(1 + r₂·distance) from the scores", f"{KERPLE}, its logarithmic variant"),
        Source("NoPE language models carry absolute position (probing)", f"{HAVIV}, abstract"),
        Source("A decoder without positions can represent absolute and relative positions", f"{KAZEMNEJAD}, abstract"),
        Source(
            "Learned position embeddings instead of the sinusoid: nearly identical results",
            f"{VASWANI}, Table 3, row (E): PPL 4.92, BLEU 25.7 (base: 4.92, 25.8)",
        ),
        Source("The sinusoid was kept because it may extrapolate", f"{VASWANI}, §3.5"),
        Source(
            "Llama 3.1 8B: llama3 scaling, factor 8, original 8,192, max_position_embeddings 131,072, rope_theta 500,000",
            "the /context page's Sources of Llama 3.1 8B (core/schemes/rope_presets.py)",
        ),
        Source("The lab's numbers for the token-k-back task", "the table under ‘Why this task’ on /lab, measured by `python -m bench.lab --tasks`"),
        Source(
            "The misconceptions answered from the seventh on",
            "the course notes this app was built from list them (noise, concatenation, learned tables, human perception)",
        ),
    ),
}


def sources_expander(path: str) -> None:
    """The page's sources, folded, as a two-column table built only while the expander is open (Streamlit 1.67 runs
    a lazy expander's content only when it is open): a closed one costs the page nothing."""
    entries = SOURCES[path]
    box = st.expander("Sources", icon=":material/menu_book:", key=f"sources_{path or 'problem'}", on_change="rerun")
    if box.open:
        with box:
            static_table({"what the page says": [e.claim for e in entries], "source": [e.where for e in entries]})

"""Page `relative`: ALiBi's per-head linear biases and the attention span they leave each head, T5's relative
buckets, Shaw's clipping and KERPLE's logarithm, one tab each (ui.tabs: only the open tab runs; `rel_view` in the URL)."""

import numpy as np
import pandas as pd
import streamlit as st

from core.schemes import alibi, relative
from core.schemes.registry import SHAW_CLIP, Setting
from core.viz import charts
from core.viz import relative_figures as figs
from ui.controls import Choice, Number, Toggle, check_links, check_url_value, is_flag
from ui.display import guarded, plot, static_table
from ui.heatmap import draw_heatmap
from ui import relative_text as words
from ui.path import next_link
from ui.scorecard import scorecard
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

SPAN_MASS = 0.9
HEAD_CHOICES = tuple(range(1, 65))


st.title("Relative biases: ALiBi, T5, Shaw and KERPLE")
s = current_settings()
L = s.max_len
st.markdown("These schemes change each attention score by a number set by where the key stands relative to the query.")

ALIBI_HEADS = Choice(
    "alibi_heads", "Heads", HEAD_CHOICES, 8, expected="ALiBi needs a whole number of heads from {first} to {last}", widget="select_slider",
    help="ALiBi's and KERPLE's heads, and the checklist's, numbered from 1 as on every page. Powers of two get slopes 2^(−8/H), 2^(−16/H), …; "
    "other counts follow the paper's reference code.",
)  # fmt: skip
ALIBI_CAUSAL = Toggle("alibi_causal", "Causal (a decoder: keys after the query are masked)", True)
ALIBI_SHARED = Toggle(
    "alibi_shared",
    "One colour range for every head",
    True,
    help="Off: each head gets its own colour range, so its straight-line penalty shows however small its slope.",
)
T5_BUCKETS = Number("t5_buckets", "Buckets", 2, 256, 32, expected="the number of buckets must be a whole number from {lo} to {hi}")
T5_MAX_DISTANCE = Number(
    "t5_max_distance", "Max distance", 1, 131_072, 128, expected="the max distance is a whole number from {lo} to {hi:,}",
    help="Distances from here on share the last bucket.",
)  # fmt: skip
T5_BIDIRECTIONAL = Toggle(
    "t5_bidirectional", "Bidirectional (encoder)", True,
    help="An encoder splits the buckets between keys before and after the query; a decoder uses them all for keys before.",
)  # fmt: skip
SHAW_K = Number("shaw_k", "Clipping distance k", 0, 64, SHAW_CLIP, expected="the clipping distance is a whole number from {lo} to {hi}", slider=True)
# a bad value in the link is named whichever tab is open
check_url_value("alibi_more", is_flag, "it is true (ALiBi's lines and slopes open) or false")
check_links(ALIBI_HEADS, ALIBI_CAUSAL, ALIBI_SHARED, T5_BUCKETS, T5_MAX_DISTANCE, T5_BIDIRECTIONAL, SHAW_K)
heads = ALIBI_HEADS.draw(st.columns(2)[0])


# --- ALiBi ------------------------------------------------------------------------------
def _alibi() -> None:
    st.header("ALiBi: a straight-line penalty per head")
    c1, c2 = st.columns(2)
    causal, shared = ALIBI_CAUSAL.draw(c1), ALIBI_SHARED.draw(c2)
    slopes = guarded(alibi.alibi_slopes, int(heads))
    draw_heatmap(figs.alibi_heads(int(heads), L, causal, shared), key="alibi_heads_map")  # painted by the browser
    st.caption(
        words.heads_caption(slopes[: figs.MAX_PANELS], L)  # the heads drawn
        if shared or L < 2 or slopes.size == 1
        else "What to look for: each head has its own colour range, so every panel runs from its own largest penalty (dark) to 0 on the diagonal "
        "(light): each head's penalty grows in a straight line with the distance; the ranges under the titles say how steeply."
    )
    # the same penalties as lines, and the slopes: one click away, built only while open (a step then sends the heads alone)
    more = st.expander("Each head's penalty against distance, and its slope", key="alibi_more", bind="query-params")
    if more.open:
        with more:
            plot(figs.alibi_lines(int(heads), L), key="alibi_lines")
            slopes_chart = charts.lines(
                [("slope mₕ", np.arange(1, int(heads) + 1), slopes)], title=words.slopes_title(slopes), x_title="head h",
                y_title="slope mₕ (log scale)", log_y=True, markers=True,
            )  # fmt: skip
            plot(slopes_chart, key="alibi_slopes")
            st.caption(words.slopes_caption(slopes))


def _alibi_span() -> None:
    st.header("What softmax makes of ALiBi's penalty: each head's attention span")
    slopes = guarded(alibi.alibi_slopes, int(heads))
    span = alibi.alibi_attention_span(slopes, L, SPAN_MASS)
    plot(figs.alibi_weights(slopes, L, span), key="alibi_weights")  # every head up to 8, else 8 spread, said in the chart
    held = f"keys holding {SPAN_MASS:.0%} of the attention"
    static_table(  # every row read whole; st.dataframe's grid cost the page's first load a tenth of its time
        {
            "head": list(range(1, int(heads) + 1)),
            "slope": [charts.number(m) for m in slopes],
            held: [int(n) for n in span],
            "share of the context": [charts.number(x) for x in span / L],
        }
    )
    st.caption(words.span_text(slopes, span, L, SPAN_MASS))
    with st.expander("Why the span matters past the training length"):
        st.markdown(
            "Content scores can overrule the bias, but these spans are the default reach of each head, "
            "and they do not change with the context length once it is longer than the span: the keys a longer input adds lie past it and share "
            f"less than {1 - SPAN_MASS:.0%} of each head's attention. Press et al. find that ALiBi's perplexity does not degrade on inputs longer "
            "than its training length, where the sinusoid's, rotary's and T5's do (Figure 1), and attribute its small gain there to fewer "
            "predictions lacking context rather than to the extra context (Appendix B)."
        )


# --- T5 ---------------------------------------------------------------------------------
def _t5() -> None:
    st.header("T5: relative positions in buckets")
    c1, c2, c3 = st.columns(3)
    num_buckets, max_distance, bidirectional = T5_BUCKETS.draw(c1), T5_MAX_DISTANCE.draw(c2), T5_BIDIRECTIONAL.draw(c3)
    try:
        ranges = relative.t5_bucket_ranges(bidirectional=bidirectional, num_buckets=int(num_buckets), max_distance=int(max_distance))
    except ValueError as err:
        st.error(f"{err} The T5 views wait for a valid setting.", icon=":material/error:")
        ranges = None
    if ranges is not None:
        plot(figs.t5_bucket_map(int(num_buckets), int(max_distance), bidirectional, ranges), key="t5_buckets_map")
        exact = [r for r in ranges if r.kind == "exact"]
        last_start = -ranges[int(num_buckets) // 2 - 1 if bidirectional else int(num_buckets) - 1].high  # keys before the query: r = −n
        used_log = [r for r in ranges if r.kind == "log"]
        st.caption(
            f"What to look for: near the query every distance has its own bucket ({len(exact)} exact buckets); further out the buckets widen "
            f"logarithmically ({len(used_log)} log buckets), and every distance from the last bucket's start on (distance {last_start:,}) shares one "
            "value, so T5 treats that distance and every longer one alike. "
            + (
                "Keys after the query (right) get their own buckets."
                if bidirectional
                else "In the causal form all keys after the query fall in bucket 0, and the mask hides them."
            )
        )
        bucket_table = pd.DataFrame({"bucket": [r.bucket for r in ranges], "kind": [r.kind for r in ranges], "relative positions": [r.label for r in ranges]})
        with st.expander("Every bucket's range"):
            st.dataframe(bucket_table, hide_index=True, width="stretch", key="t5_range_table")

        draw_heatmap(figs.t5_heads(int(num_buckets), int(max_distance), bidirectional, L), key="t5_bias_map")
        st.caption(
            f"What to look for: like ALiBi the matrix is constant along diagonals, but in steps: a new colour only where a new bucket begins. "
            f"It is flat from the start of the last bucket, {last_start:,} positions apart, not only past max distance ({max_distance})"
            + (f"; with max_len = {L:,} the figure ends before that, at {L - 1:,} positions apart. " if L - 1 < last_start else ". ")
            + f"T5 learns {num_buckets} numbers per head for this, shared by all layers."
        )
    with st.expander("Beside T5: Transformer-XL's relative encoding"):
        st.markdown(
            "Transformer-XL (Dai et al. 2019, §3.3) also scores by the offset i − j, but with a sinusoid instead of a learned table. It expands "
            "the score of query i and key j into four terms: content against content, content against the offset's sinusoid R(i − j) "
            "(through its own key projection W_R), a learned vector u against the key's content, and a learned vector v against R(i − j). "
            "T5 keeps only a learned number per bucket, added to the score; one of Transformer-XL's two position terms depends on the query too."
        )
        static_table(
            {
                "": ["what codes the offset", "what it adds to the score", "learned for it", "past the training length"],
                "T5": [
                    "a bucket: exact near, logarithmic far, one bucket past max_distance",
                    "a number per bucket and head, the same for every query",
                    "num_buckets numbers per head, shared by all layers",
                    "the last bucket's number for every far key",
                ],
                "Transformer-XL": [
                    "the sinusoid of the offset, R(i − j), at every distance",
                    "q·W_R R(i − j) + v·W_R R(i − j): depends on the query and the offset",
                    "W_R per layer, and u, v",
                    "the sinusoid is defined at any offset; the model has not seen the new ones",
                ],
            }
        )


# --- Shaw -------------------------------------------------------------------------------
def _shaw() -> None:
    st.header("Shaw et al.: clipped relative positions")
    shaw_k = SHAW_K.draw(st)
    spec, rows = figs.shaw_clip(int(shaw_k), L)
    draw_heatmap(spec, key="shaw_clip")
    distinct = relative.shaw_distinct_ids(L, L, int(shaw_k))
    drawn = relative.shaw_relative_positions(rows.indices, rows.indices, int(shaw_k))
    st.caption(
        words.shaw_text(drawn, int(shaw_k), L, distinct) + " Shaw et al. add the chosen vector "
        "a^K to the key before the dot product, so the score gains q·a^K: a term that depends on the query as well as the distance. A second table "
        "a^V is added to the values after the softmax. Each table holds (2k + 1) × head_dim numbers whatever the length (the app draws, counts and "
        "trains the key table). The checklists, here and on the compare page, measure Shaw's at this slider's default, k = "
        f"{SHAW_CLIP}."
    )


# --- KERPLE -----------------------------------------------------------------------------
def _kerple() -> None:
    st.header("KERPLE: a logarithm instead of a line")
    plot(figs.kerple_lines(int(heads), L), key="kerple_lines")
    st.caption(
        "KERPLE (Chi et al., 2022) subtracts r₁·log(1 + r₂·|i − j|) with two learned numbers per head. Like ALiBi it depends on the distance only "
        "and grows with it, but ever more slowly: far keys are never shut out as completely as under a steep ALiBi head. Shown at its initial values "
        f"for the {int(heads)} heads set above; the lab trains them."
    )
    st.subheader("The relative biases against the checklist")
    scorecard(["alibi", "t5", "shaw", "kerple"], Setting(width=64, train_len=L, n_heads=int(heads)), L)


url_tabs("rel_view", {"ALiBi": _alibi, "ALiBi's span": _alibi_span, "T5": _t5, "Shaw": _shaw, "KERPLE and the checklist": _kerple})
with st.expander("How the four schemes pick their number"):
    st.markdown(
        "They add nothing to the words. ALiBi and KERPLE subtract more the farther apart the two are; T5 looks the offset up in a few "
        "learned buckets (ranges of offsets, one number each; in an encoder, keys before and after the query in separate buckets); Shaw et "
        "al. add the query's dot product with a learned vector per offset, clipped at a largest offset. The head count sets ALiBi's "
        "and KERPLE's heads."
    )
sources_expander("relative")
next_link("relative")

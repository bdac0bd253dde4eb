"""The words of /practice: each misconception's answer and each exercise's "what to look for", with every
number in them computed here from core's arrays at the settings the answer names (and the exercise's link
opens), never typed. Pure functions: no Streamlit, so tests can read every sentence."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import numpy as np

from core.analysis import attention
from core.analysis import context as cx
from core.analysis import similarity
from core.lab import findings
from core.lab.config import SURVEY_LENGTHS, SURVEY_SEEDS
from core.lab.findings import Spread
from core.schemes import alibi, rope, sinusoidal
from core.schemes.rope_presets import PRESETS


@dataclass(frozen=True)
class Misconception:
    claim: str
    answer: str
    link: tuple[str, str] | None = None  # (page script, label) of the view that shows it


@dataclass(frozen=True)
class Exercise:
    question: str
    link: str  # a relative URL: the page and the settings the answer was computed at
    check: str
    picture: str = ""  # what the exercise's picture on /practice shows, for the one exercise that has one


# the first exercise's encoding (d_model, max_len, base) and the positions its picture draws: at 1 radian a position, 7 of them go
# just under one turn, so each dot's place and its colour order can be read (more positions wrap round and their colours blur)
EXERCISE_CIRCLE = (2, 10_000, 10_000.0, 7)


def circle_caption(d: int, max_len: int, base: float, count: int) -> str:
    """The first exercise's picture in words: the one pair's first `count` positions, and the prediction asked, not its answer."""
    omega = float(sinusoidal.pair_frequencies(d, base)[0])
    return (
        f"Positions 0 to {count - 1} of a d_model = {d} encoding: its one (sine, cosine) pair moves {omega:g} radian further round the circle "
        f"at every step (the colour is the position), so one turn takes {2 * np.pi / omega:.4g} positions. "
        f"Predict: among all {max_len:,} positions, do two ever land on the same point?"
    )


# --- numbers behind the answers ------------------------------------------------------------


def sum_versus_rotation(a: int = 3, b: int = 5, d: int = 64) -> tuple[float, float, float]:
    """‖PE(a) + PE(b) − PE(a + b)‖, max |M_b · PE(a) − PE(a + b)| and the norm of one row √(d/2), at base 10,000."""
    pe = sinusoidal.sinusoidal_encoding(a + b + 1, d, 10_000.0)
    gap_sum = float(np.linalg.norm(pe[a] + pe[b] - pe[a + b]))
    gap_rot = float(np.abs(sinusoidal.rotation_matrix(b, d) @ pe[a] - pe[a + b]).max())
    return gap_sum, gap_rot, float(np.linalg.norm(pe[0]))


def neighbour_cosines(d: int = 64, n: int = 256, seed: int = 0) -> tuple[float, float, float, float]:
    """Cosine of each position's vector with the next one's over n positions, for the sinusoid (d, base 10,000) and for
    vectors of independent standard normal noise of the same width: (sinusoid mean, sinusoid spread max − min,
    noise mean, noise spread)."""
    def cos_next(x: np.ndarray) -> np.ndarray:
        return (x[:-1] * x[1:]).sum(axis=1) / (np.linalg.norm(x[:-1], axis=1) * np.linalg.norm(x[1:], axis=1))

    pe = sinusoidal.sinusoidal_encoding(n, d, 10_000.0)
    noise = np.random.default_rng(seed).standard_normal((n, d))
    a, b = cos_next(pe), cos_next(noise)
    return float(a.mean()), float(a.max() - a.min()), float(b.mean()), float(b.max() - b.min())


def concat_is_projected_sum(d: int = 64, seed: int = 0) -> float:
    """max |W [x; p] − (W_x x + W_p p)| for a random W (d × 2d) split into its two halves: concatenating, then
    projecting, is adding two projected vectors (rounding only)."""
    rng = np.random.default_rng(seed)
    w, x, p = rng.standard_normal((d, 2 * d)), rng.standard_normal(d), rng.standard_normal(d)
    return float(np.abs(w @ np.concatenate([x, p]) - (w[:, :d] @ x + w[:, d:] @ p)).max())


def forgot_positions(d: int = 128, sentence: str = "the cat sat on the mat", seed: int = 0) -> tuple[float, float, float, float]:
    """What does and does not show that positions are missing, at d_model = d with the sinusoid (base 10,000) and words
    scaled by √d as the attention page scales them: the cosine of ‘cat’ at positions 0 and 1, and at 0 and 10, with the
    code added; the shuffle test's residual on `sentence` without and with the code (core.analysis.attention)."""
    near, far = attention.same_word_cosine("cat", d, sinusoidal.sinusoidal_encoding(11, d, 10_000.0))[[1, 10]]
    words = attention.tokenize(sentence)
    x, perm = attention.sentence_inputs(words, d), attention.shuffle_perm(len(words), seed)
    pe = sinusoidal.sinusoidal_encoding(len(words), d, 10_000.0)
    return float(near), float(far), attention.permutation_residual(x, perm), attention.permutation_residual(x, perm, pe)


LLAMA = PRESETS["llama-3.1-8b"]


def llama3_link() -> str:
    """/rope at Llama 3.1's own RoPE: its head width, base, factor, original and extended contexts."""
    s = LLAMA.scaling
    return "rope?" + urlencode(
        {"head_dim": LLAMA.head_dim, "scaling": "llama3", "factor": f"{s.factor:g}", "original_len": s.original_max_len,
         "max_len": LLAMA.extended_context, "base": f"{LLAMA.base:g}", "rope_view": "Scaling"}
    )  # fmt: skip


def llama3_answer() -> str:
    """How Llama 3.1's llama3 scaling treats its 64 pairs, from core.schemes.rope.scaling_regions and the angle reach."""
    s = LLAMA.scaling
    regions = rope.scaling_regions(LLAMA.head_dim, LLAMA.base, s, seq_len=LLAMA.extended_context)
    counts = {name: int((regions.label == name).sum()) for name in ("kept", "blended", "interpolated")}
    reach = cx.angle_reach(cx.pair_view(LLAMA.layers[0], LLAMA.extended_context), LLAMA.trained_context, LLAMA.extended_context)
    low, high = regions.edges
    growth = LLAMA.extended_context / s.original_max_len
    return (
        f"Read ‘pairs kept’ under the wavelength chart: {counts['kept']} of {regions.label.size} pairs, those whose wavelength is below "
        f"{s.original_max_len:,} / {s.high_freq_factor:g} = {low:,.0f} positions, keep their frequency; the {counts['interpolated']} "
        f"with a wavelength above {high:,.0f} are divided by {s.factor:g}, and {counts['blended']} between are blended. "
        f"The factor is not the ratio of the two contexts ({LLAMA.extended_context:,} / {s.original_max_len:,} = {growth:g}): so the slowest "
        f"pair turns {reach.slowest_extended:.4g} rad between a query and a key {reach.extended_offset:,} apart, against at most "
        f"{reach.slowest_trained:.4g} rad in training, {reach.slowest_extended / reach.slowest_trained:.4g} times as far."
    )


def uniqueness_answer(d: int = 2, max_len: int = 10_000, base: float = 10_000.0) -> str:
    """Where the closest positions of a d = 2 encoding are: the record near misses of the distance by offset."""
    best = similarity.closest_pair(max_len, d, base)
    offsets, dists = similarity.distance_records(max_len, d, base)
    omega = float(sinusoidal.pair_frequencies(d, base)[0])
    turns = offsets * omega / (2 * np.pi)
    six = float(np.sqrt(similarity.pair_distance_sq(np.array([6]), d, base)[0]))
    shown = ", ".join(f"{o:,} ({t:.3f} turns, {v:.2g})" for o, t, v in zip(offsets[-4:], turns[-4:], dists[-4:]))
    return (
        "Look at ‘Is every position unique?’: the smallest distance between two positions. One pair turns by "
        f"{omega:g} radian per position, so two positions would coincide only if their gap were a whole number of turns of 2π, which no "
        f"whole number of positions is. A gap near one turn is not close: 6 apart, the distance is {six:.2f} (the largest possible is 2). "
        f"Positions come close when their gap is close to many whole turns: the record gaps, each closer than every shorter one, end with "
        f"{shown}. The closest pair is {best.q - best.p:,} apart, at distance {best.distance:.2g}: very close, not equal."
    )


def alibi_answer(heads: int = 8, max_len: int = 4096) -> str:
    """The span of ALiBi's first and last head at max_len and at a longer context (core.schemes.alibi)."""
    slopes = alibi.alibi_slopes(heads)
    span = alibi.alibi_attention_span(slopes, max_len, 0.9)
    longer = alibi.alibi_attention_span(slopes, 8 * max_len, 0.9)
    return (
        f"The span table under ‘each head's attention span’: with equal content, the steep first head puts 90 % of its attention on the "
        f"nearest {span[0]:,} keys, the last head on the nearest {span[-1]:,}. Raise max_len to {8 * max_len:,}: the spans are "
        f"{longer[0]:,} and {longer[-1]:,}, "
        + (
            "unchanged once the context is longer than them: every key a longer input adds lies past the span, and all of those "
            "together get less than 10 % of the head's attention."
            if (longer[0], longer[-1]) == (span[0], span[-1])
            else f"wider than at {max_len:,}: the last head's span was cut short by the context."
        )
    )


# --- the page's lists ------------------------------------------------------------------------


def _top(spreads: dict[str, Spread], names: dict[str, str], one: str, several: str) -> str:
    """The scheme with the highest mean, with every other whose range over the seeds reaches into the best one's: "RoPE holds up
    best", or "T5 and ALiBi hold up best (within the seeds' spread)" when their ranges overlap (none is called better then)."""
    tied = findings.extreme(spreads, highest=True)
    if len(tied) == 1:
        return f"{names[tied[0]]} {one}"
    listed = [names[s] for s in tied]
    same = len({spreads[s].values for s in tied}) == 1  # every seed of each the same: not a spread, a tie
    return ", ".join(listed[:-1]) + " and " + listed[-1] + f" {several} " + ("(equally)" if same else "(within the seeds' spread)")


def misconceptions() -> list[Misconception]:
    """Every misconception with its answer, the numbers computed. The seeds' own list (noise, concatenation, learned tables,
    a cosine as a test, decoders, which to start with, a person's sense of place) is answered from the seventh on."""
    gap_sum, gap_rot, row = sum_versus_rotation()
    cos_pe, spread_pe, cos_noise, spread_noise = neighbour_cosines()
    concat_gap = concat_is_projected_sum()
    cat_near, cat_far, shuffle_without, shuffle_with = forgot_positions()
    short, long = SURVEY_LENGTHS
    spreads = findings.survey("kback1")  # the lab's default task: accuracy at short -> long tokens over the seeds
    kback = {s: (short.mean, None if long is None else long.mean) for s, (short, long) in spreads.items()}
    nope, best_low = kback["none"][0], min(kback[s][0] for s in ("sinusoidal", "learned", "rope", "t5"))
    (sin_short, sin_long), learned_short = kback["sinusoidal"], kback["learned"][0]
    names = {"sinusoidal": "the sinusoid", "rope": "RoPE", "learned": "the learned table", "t5": "T5", "alibi": "ALiBi"}
    top_short = _top({s: spreads[s][0] for s in names}, names, "does best", "do best")
    top_long = _top({s: spreads[s][1] for s in names if spreads[s][1] is not None}, names, "holds up best", "hold up best")
    return [
        Misconception(
            "Positions are added to the input once, and that is how every model does it.",
            "The Transformer paper adds its sinusoid (and BERT and GPT-2 their learned tables) once, to the token vectors before the first layer. "
            "Many later models add nothing to the tokens: RoPE rotates the queries and keys inside **every** attention layer, and ALiBi, T5 and "
            "KERPLE add a bias to the scores of every layer. Position then acts where tokens are compared, not in the token vectors.",
            ("app_pages/compare.py", "See how each scheme is applied on the compare page"),
        ),
        Misconception(
            "A decoder does not need positions: its causal mask already gives the order.",
            "The mask hides later tokens, so a decoder can in principle tell positions apart, for instance by how many tokens it sees: probes "
            "find absolute position in the hidden states of language models trained without any encoding (Haviv et al. 2022, who call them NoPos), "
            "and Kazemnejad et al. (2023, who call the same setup NoPE) show in theory that such a decoder can represent absolute and relative "
            "positions. Whether a small model learns "
            f"to use it is another matter: in the lab's ‘token k places back’ task, a one-layer model without positions gets {nope:.0%} of the "
            f"answers right at the training length of {short} tokens, where the sinusoid, a learned table, RoPE and T5 each get "
            + ("all of them" if best_low >= 1 else f"at least {best_low:.0%}")
            + " (the table under ‘Why this task’ on the lab page).",
            ("app_pages/lab.py", "Train it yourself in the lab"),
        ),
        Misconception(
            "The positional encoding and the padding mask are the same thing.",
            "The padding mask marks which tokens are real and which are filler, so attention ignores the filler. It says nothing about order: a "
            "sentence and its shuffle have the same padding mask. Positions say where each real token stands.",
        ),
        Misconception(
            "Every sequence model needs a positional encoding.",
            "A recurrent network reads tokens one after the other: its state after token t has been updated by tokens 0 to t in that order, so "
            "the order is in the computation. A convolution looks at neighbours through its kernel, each offset with its own weight. "
            "Self-attention reads all tokens at once, in parallel (which is what lets it train on a whole sequence in one step): each output is "
            "a weighted sum over every token, computed by the same formula whatever the tokens' places, and a sum does not depend on the order "
            "of its terms. That parallel reading is why attention is the one that needs positions.",
            ("app_pages/problem.py", "See attention ignore word order on the first page"),
        ),
        Misconception(
            "PE(a) + PE(b) = PE(a + b): the sinusoid adds positions.",
            f"No. At d_model = 64, ‖PE(3) + PE(5) − PE(8)‖ = {gap_sum:.4g}, about the length of a vector itself (√32 = {row:.4g}). "
            f"What holds is a rotation: PE(a + b) = M · PE(a), where the matrix M depends on b alone, the same for every a (here "
            f"max |M · PE(3) − PE(8)| = {gap_rot:.1e}, rounding). Shifting a position is multiplying by a matrix, not adding a vector.",
            ("app_pages/similarity.py", "See the matrix Mₖ on the similarity page"),
        ),
        Misconception(
            "The sinusoid extrapolates to any length: its formula works for every position.",
            "The formula gives a vector for any position, but a model trained on short inputs has only seen some combinations of its angles. "
            f"Beyond the training length the slow pairs reach angles it never saw, and accuracy falls: in the lab, a model trained on {short} "
            f"tokens with the sinusoid answers {sin_short:.0%} of the questions at {short} tokens and {sin_long:.0%} at {long} (the table under "
            "‘Why this task’). A formula that is defined is not a model that generalises.",
            ("app_pages/lab.py", "Measure it in the lab"),
        ),
        Misconception(
            "A positional encoding is just noise added to the words.",
            f"Noise has no structure; the sinusoid is nothing but structure. Over positions 0 to 255 at d_model = 64, the cosine between a "
            f"position's vector and the next one's is {cos_pe:.4f} at every position (spread {spread_pe:.1e}, rounding): a fixed step, the "
            f"same everywhere. For vectors of random noise of the same width it averages {cos_noise:.2f} and spreads over {spread_noise:.2f}. "
            "That fixed step is what lets attention read distances.",
            ("app_pages/similarity.py", "See the constant steps on the similarity page"),
        ),
        Misconception(
            "Concatenating positions is more explicit than adding them.",
            "Concatenated, [word; position] keeps the two in separate dimensions, at twice the width. But the first thing attention does is "
            "project, and a projection of a concatenation is a sum: W [x; p] = W₁ x + W₂ p, with W₁ and W₂ the two halves of W (here max "
            f"|W [x; p] − (W₁ x + W₂ p)| = {concat_gap:.1e}, rounding). So concatenating is adding a learned projection of the position, "
            "paid for with a wider input; adding the position directly keeps the width and shares the space. The attention page measures both.",
            ("app_pages/attention.py", "Compare them on the attention page"),
        ),
        Misconception(
            "A learned position table is always better than the sinusoid.",
            "In the Transformer paper, replacing the sinusoid with learned position embeddings gave nearly identical results (Vaswani et al. "
            "2017, Table 3, row E: the same development perplexity, 4.92, and BLEU 25.7 against 25.8); the authors kept the sinusoid because "
            "it might extrapolate to longer inputs (§3.5). A learned table has no row past its last trained position, so it cannot run on "
            f"longer inputs at all: in the lab it answers {learned_short:.0%} of the questions at {short} tokens and has no code at {long}.",
            ("app_pages/model.py", "See a trained table on the model page"),
        ),
        Misconception(
            "If two token vectors have a cosine above 0.9, the positions must be missing.",
            f"Not a test. With the sinusoid added at d_model = 128, the word ‘cat’ at positions 0 and 1 has cosine {cat_near:.3f}, and at "
            f"positions 0 and 10 still {cat_far:.3f}: a position code moves a word's vector only a little, so high cosines are normal with "
            "positions. Forgot the positions? These are the symptoms: (1) the shuffle test: shuffle the input tokens, run attention, put the "
            "outputs back in order and compare; without positions they are the same to rounding (for ‘the cat sat on the mat’, max difference "
            f"{shuffle_without:.0e}), with the sinusoid they are not ({shuffle_with:.3g}) (a causal mask breaks this symmetry on its own, so "
            "run it without one); (2) a task that needs order, such as the lab's "
            f"‘token k places back’, stays near a model without positions ({nope:.0%} of the answers at {short} tokens); (3) without a causal mask, a sentence "
            "and its anagram get the same sentence vector (the first page's bag-of-words numbers).",
            ("app_pages/attention.py", "Run the shuffle test on the attention page"),
        ),
        Misconception(
            "Only the encoder's input needs positions; the decoder learns the order from the encoder.",
            "The Transformer paper adds its positional encodings to the input embeddings at the bottoms of both the encoder and the decoder "
            "stacks (Vaswani et al. 2017, §3.5). The decoder's self-attention compares the target tokens with each other, and attention by "
            "itself does not see their order (the shuffle test in the misconception above); the encoder's outputs carry the positions of the "
            "source, not of the target. A causal mask lets a decoder infer some position on its own (the misconception on decoders above), "
            "a weaker signal it has to learn.",
        ),
        Misconception(
            "There is one best positional encoding, and it is the newest.",
            "No scheme wins everywhere, so start simple and change with evidence. Start with the sinusoid (nothing to learn; a learned table did "
            "no better in the Transformer paper, Vaswani et al. 2017, Table 3, row E) or RoPE (its score depends on the offset alone). Then try "
            f"a learned table or a relative bias if your inputs ask for it. In the lab's ‘token k places back’ task at {short} tokens, the "
            f"training length: sinusoid {kback['sinusoidal'][0]:.0%}, RoPE {kback['rope'][0]:.0%}, learned table {learned_short:.0%}, T5 "
            f"{kback['t5'][0]:.0%}, ALiBi {kback['alibi'][0]:.0%}. At {long} tokens, longer than any seen in training: sinusoid "
            f"{sin_long:.0%}, RoPE {kback['rope'][1]:.0%}, T5 {kback['t5'][1]:.0%}, ALiBi {kback['alibi'][1]:.0%}, and the learned table has "
            f"no code at all (the means over {len(SURVEY_SEEDS)} training seeds). So at the training length {top_short} here, and past it {top_long}. These "
            "are one small task's numbers: "
            "measure on yours.",
            ("app_pages/lab.py", "Compare them in the lab"),
        ),
        Misconception(
            "Positional encoding works like a person's sense of where a word is.",
            "A model has no sense of place of its own: all it has of order is what the code adds. Attention reads every token at once and "
            "compares them with dot products, so without a code it treats a sentence and its shuffle alike: for ‘the cat sat on the mat’, the "
            f"outputs put back in order differ by {shuffle_without:.0e} (rounding) without positions and by {shuffle_with:.3g} with the "
            "sinusoid. Reorder the words of a sentence on the first page and watch the attention without positions move with its words.",
            ("app_pages/problem.py", "Reorder a sentence on the first page"),
        ),
    ]


def exercises() -> list[Exercise]:
    """The exercises: a question, the view that answers it and what to look for there, computed at the link's settings."""
    circle_d, circle_len, circle_base, _ = EXERCISE_CIRCLE
    return [
        Exercise(
            f"With only two dimensions (one sin/cos pair) and {circle_len:,} positions, can every position still be told apart?",
            f"similarity?{urlencode(dict(d_model=circle_d, max_len=circle_len, base=f'{circle_base:g}', sim_view='Uniqueness and norms'))}",
            uniqueness_answer(circle_d, circle_len, circle_base),
            circle_caption(*EXERCISE_CIRCLE),
        ),
        Exercise(
            "Does the similarity of two sinusoidal positions depend on where they are, or only on how far apart they are?",
            "similarity?d_model=128&max_len=256&base=10000",
            "Every diagonal of the matrix has one colour: it depends on p − q only. Then change d_model to an odd number and look at the "
            "norms (‘Uniqueness and norms’): the lone last sine breaks the pattern slightly.",
        ),
        Exercise(
            "Shuffle a sentence: with no positions, does attention notice? With the sinusoid? With ALiBi and no causal mask?",
            "attention?scheme=alibi&causal=false&project=false",
            "Without positions the shuffle residual is rounding error. With the sinusoid it is large. ALiBi without a mask is symmetric in "
            "distance: a reversed sentence is attended to exactly like the original, mirrored (try the three-word presets).",
        ),
        Exercise(
            f"Llama 3.1 was trained on {LLAMA.trained_context:,} positions and runs at {LLAMA.extended_context:,}, and its config sets "
            f"factor {LLAMA.scaling.factor:g}. How many of a {LLAMA.head_dim}-wide head's {LLAMA.head_dim // 2} pairs keep their frequency?",
            llama3_link(),
            llama3_answer(),
        ),
        Exercise(
            "ALiBi with 8 heads: how many keys hold 90 % of the first head's attention, and of the last head's, when the content is equal?",
            "relative?max_len=4096&alibi_heads=8",
            alibi_answer(),
        ),
    ]

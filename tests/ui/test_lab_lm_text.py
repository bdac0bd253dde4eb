"""ui.lab.lm_text: the real-text section's sentences quote the shipped results and the paper's claims, never typed numbers.
Hand-made results make each rule fail if a sentence stops following its numbers."""

from __future__ import annotations


from core.lab import extend, lm
from core.lab.registry import EXPERIMENTS
from ui.lab import lm_text as text

RESULTS = {
    "none": {64: 9.0, 128: 9.5, 256: 9.9, 512: 10.0},
    "sinusoidal": {64: 6.0, 128: 15.0, 256: 24.0, 512: 45.0},
    "rope": {64: 5.0, 128: 6.0, 256: 15.0, 512: 27.0},
    "alibi": {64: 5.4, 128: 5.35, 256: 5.3, 512: 5.2},
}


def test_the_papers_rows_are_its_claims():
    rows = text.paper_rows(lm.PAPER_CLAIMS)
    assert rows["method"] == ["sinusoidal (paper)", "RoPE", "T5", "ALiBi"]  # the short names, in a narrow column
    assert rows["improves up to, past L = 512"] == ["20 tokens (L + 4%)", "200 tokens (L + 39%)", "600 tokens (L + 117%)", ""]
    assert rows["where"] == ["§2.2", "§2.2", "§2.2", "§1"]


def test_reading_quotes_the_ratios_and_explains_alibis_gain_by_the_early_token_curse():
    reading = text.reading([RESULTS], 64, lm.PAPER_CLAIMS)
    assert "score 5.00 to 6.00 and NoPE 9.00" in reading
    assert "causal mask" in reading and "Haviv et al. 2022" in reading and "scores worse than every scheme with positions" in reading
    assert "sinusoidal (paper) ×4" in reading and "rotary (RoPE) ×3" in reading  # 24 / 6, 15 / 5
    assert f"ALiBi ×{5.3 / 5.4:.3g}" in reading
    assert "keep improving past L up to: sinusoidal (paper) 20 tokens (L + 4%), rotary (RoPE) 200 tokens (L + 39%)" in reading
    assert "the paper says its ALiBi model peaks at around twice the training length" in reading
    assert "early-token curse" in reading and "Appendix B" in reading and "5.400 at 64 → 5.200 at 512" in reading
    assert "25.0% of the characters scored in windows of 64 have fewer than 16 before them, 3.1% in windows of 512" in reading
    flat = dict(RESULTS, alibi={64: 5.4, 128: 5.5, 256: 5.6, 512: 5.7})  # no gain: no sentence explaining one
    assert "early-token curse" not in text.reading([flat], 64, lm.PAPER_CLAIMS)
    no_alibi = tuple(c for c in lm.PAPER_CLAIMS if c.scheme != "alibi")  # the claim quoted only when the paper makes it
    assert "early-token curse" in text.reading([RESULTS], 64, no_alibi) and "its ALiBi model" not in text.reading([RESULTS], 64, no_alibi)
    good_nope = dict(RESULTS, none={64: 4.0, 128: 4.1, 256: 4.2, 512: 4.3})  # the comparison word follows the numbers
    assert "scores better than every scheme with positions" in text.reading([good_nope], 64, lm.PAPER_CLAIMS)


def test_reading_over_seeds_gives_means_and_compares_only_beyond_their_spread():
    other = dict(RESULTS, none={64: 5.2, 128: 5.6, 256: 6.0, 512: 6.1}, alibi={64: 5.3, 128: 5.35, 256: 5.4, 512: 5.5})
    reading = text.reading([RESULTS, other], 64, lm.PAPER_CLAIMS)
    assert "score 5.00 to 6.00 and NoPE 7.10 (means over 2 training seeds)" in reading  # NoPE (9.0 + 5.2) / 2; ALiBi 5.35 inside
    assert "scores within the seeds' spread of some schemes with positions" in reading  # NoPE 5.2-9.0 reaches into ALiBi's 5.3-5.4
    assert "early-token curse" not in reading  # ALiBi falls with seed 0 and rises with the other: no fall said
    assert f"ALiBi ×{(5.3 / 5.4 + 5.4 / 5.3) / 2:.3g}" in reading  # the mean of the seeds' ratios
    both = text.reading([RESULTS, dict(RESULTS, alibi={64: 5.5, 128: 5.4, 256: 5.35, 512: 5.3})], 64, lm.PAPER_CLAIMS)
    assert "scores worse than every scheme with positions beyond the spread" in both and "5.450 at 64 → 5.250 at 512, in every seed" in both


def test_start_shares_by_hand():
    assert text.start_shares(64) == [(64, 16 / 64), (512, 16 / 512)]
    assert text.start_shares(100, (1, 2), context=10) == [(100, 0.1), (200, 0.05)]


def test_differences_compute_rope_and_t5_buckets():
    diff = text.differences([RESULTS], 64, 32, lm.PAPER_CLAIMS, model=(2, 64))
    assert "Here RoPE's perplexity is ×3 by 4L; the paper's rotary model improves with up to 200 more tokens" in diff
    assert "200 tokens is L + 39% (§2.2)" in diff
    assert "2 layers of width 64 against the paper's 16 of width 1024 (§2.1)" in diff and "L = 64 instead of 512" in diff
    calm = dict(RESULTS, rope={64: 5.0, 128: 5.1, 256: 5.2, 512: 5.5})
    assert "RoPE's perplexity is ×1.04 by 4L" in text.differences([calm], 64, 32, lm.PAPER_CLAIMS)
    assert text.t5_buckets_reached(64, 32) == text.t5_buckets_reached(text.FAR, 32) == 31
    assert text.t5_buckets_reached(64, 128) == 27 and text.t5_buckets_reached(text.FAR, 128) == 32
    hits = text.t5_buckets_reached.cache_info().hits
    assert text.t5_buckets_reached(text.FAR, 128) == 32 and text.t5_buckets_reached.cache_info().hits == hits + 1  # a million distances bucketed once
    assert "reach 31 of the 31 buckets" in diff and "would reach 27 of 32" in diff
    timed = text.differences([RESULTS], 64, 32, lm.PAPER_CLAIMS, {"rope": 91.08, "alibi": 207.3})
    assert "trained and evaluated in 91 to 207 s per scheme here" in timed and "minutes" not in timed
    assert "trained and evaluated" not in diff  # no run times given, none stated


def test_a_caption_leads_with_at_most_three_whole_sentences_and_sixty_words_and_folds_the_rest():
    found = (
        "NoPE's position is read with R² 0.205 (0.172–0.234) after 1 layer. Haviv et al. (2022) conjecture the mask. "
        "RoPE reaches 0.040 at most. The sinusoid is read at 1.000."
    )
    assert text.sentences(found)[1] == "Haviv et al. (2022) conjecture the mask."  # a decimal point and "al." end no sentence
    shown, folded = text.lead(found)
    assert shown == "NoPE's position is read with R² 0.205 (0.172–0.234) after 1 layer. Haviv et al. (2022) conjecture the mask. RoPE reaches 0.040 at most."
    assert folded == "The sinusoid is read at 1.000." and f"{shown} {folded}" == found
    first = "NoPE's position is read with R² 0.205 (0.172–0.234) after 1 layer."
    assert text.lead(found, words=15) == (first, found.removeprefix(first + " "))  # 12 words, then 18
    long = "ALiBi: " + "0.96 at 510; " * 30 + "the end."  # one sentence past sixty words: nothing is cut mid-sentence
    assert text.lead(long) == ("", long)
    assert text.lead("One. Two.") == ("One. Two.", "")


def _row(method: str, factor: int, tune: int, far: float) -> dict:
    return {"method": method, "factor": factor, "fine_tune": tune, "perplexity": {"64": 4.0, "128": far, "256": far}}


def test_the_extension_lead_names_the_lowest_and_highest_at_s_l_by_their_means_over_the_seeds():
    def run(offset: float) -> list[dict]:  # one training seed's rows at s = 2 (s·L = 128), untuned and tuned
        scaled = {"linear": 14.0, "ntk": 5.0, "yarn": 6.0, "yarn_no_t": 5.5}
        return [_row("none", 1, 0, 6.0 + offset)] + [_row(m, 2, t, v + offset - t / 100) for m, v in scaled.items() for t in (0, 38)]

    runs = [run(0.0), run(0.02), run(-0.04)]  # the offsets average to -0.00667: each mean is the first seed's less 0.007
    lead = text.extension_lead(runs, 2, False)
    assert lead == (
        "At s = 2, without fine-tuning, perplexity at s·L = 128 is lowest with NTK-aware base change, 4.99, and highest with "
        "linear (position interpolation), 13.99 (means over 3 training seeds). The model as trained, not stretched, has 5.99 there."
    )
    wide = [run(0.0), run(0.2), run(-0.4)]  # NTK-aware's seeds 4.6-5.2 reach into YaRN without temperature's 5.1-5.7: no one lowest
    assert "lowest with NTK-aware base change (4.93) and YaRN without its temperature (5.43), within the seeds' spread, and highest" in (
        text.extension_lead(wide, 2, False)
    )
    assert text.extension_lead(runs, 2, True).startswith("At s = 2, after 38 fine-tuning steps, perplexity at s·L = 128 is lowest with NTK-aware")
    one_seed = text.extension_lead([run(0.0)], 2, False)
    assert one_seed.endswith("highest with linear (position interpolation), 14.00. The model as trained, not stretched, has 6.00 there.")
    assert text.extension_lead(runs, 4, False) == ""  # no run at s = 4: nothing to say
    shipped = EXPERIMENTS["extend"].load().data.runs("rows")
    for s in extend.FACTORS:  # at every setting the view allows: two short sentences
        for tuned in (False, True):
            said = text.extension_lead(shipped, s, tuned)
            assert said and len(text.sentences(said)) == 2 and len(said.split()) <= 55

"""The lab page's controls, each bound to the URL (choices by plain name), so a lab setting is a
link: the schemes and the task, the training run (length, evaluation lengths, steps, seed, k),
and the model and optimiser (folded away). `lab_controls()` draws them and returns the
configurations they describe, one per scheme, with the problems found in words: a bad setting,
or a run over the lab's budget of time and memory (core.lab.config.over_budget), which the page
then refuses to start."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.lab.config import LIMITS, MAX_EVAL_FACTOR, TASKS, LabConfig, configs_for, over_budget
from core.lab.lm import DEFAULT_SCHEMES
from core.schemes.registry import SCHEMES
from ui.controls import Choice, Choices, Number, Text, check_links

D = LabConfig()  # the defaults
WIDTHS, HEADS, LAYERS = [16, 32, 64, 128, 256], [1, 2, 4, 8, 16], list(range(1, LIMITS["n_layers"] + 1))

SCHEME_PICK = Choices("lab_schemes", "Schemes", list(SCHEMES), list(DEFAULT_SCHEMES), labels=lambda name: SCHEMES[name].label)
TASK = Choice("lab_task", "Task", list(TASKS), D.task, labels=lambda t: TASKS[t].label)
TRAIN_LEN = Number(
    "lab_train_len", "Training length", 2, LIMITS["train_len"], D.train_len,
    expected="the training length is a whole number from {lo} to {hi}", help="Every training sequence has this many tokens.",
)  # fmt: skip
STEPS = Number(
    "lab_steps", "Training steps", 0, LIMITS["steps"], D.steps,
    expected="steps are a whole number from {lo} to {hi:,}", help=f"Each step is a batch of {D.batch} sequences by default.",
)  # fmt: skip
SEED = Number(
    "lab_seed", "Seed", 0, 2**31 - 1, D.seed,
    expected="the seed is a whole number from {lo} to {hi:,}", help="The same seed gives the same run, to the last digit.",
)  # fmt: skip
OFFSET = Number(
    "lab_offset", "k (places back)", 1, LIMITS["train_len"] - 1, D.offset,
    expected="k is a whole number from {lo} to {hi}", help="For the task 'the token k places back'.",
)  # fmt: skip
WIDTH = Choice("lab_d_model", "Width d_model", WIDTHS, D.d_model, expected="the width is {options}")
N_HEADS = Choice("lab_heads", "Heads", HEADS, D.n_heads, expected="the head count is {options}")
N_LAYERS = Choice("lab_layers", "Layers", LAYERS, D.n_layers, expected="layers are {first} to {last}")
BATCH = Number("lab_batch", "Batch", 1, LIMITS["batch"], D.batch, expected="the batch is a whole number from {lo} to {hi}")
LR = Number("lab_lr", "Learning rate", 1e-5, 1.0, D.lr, expected="the learning rate is a number from {lo:.5f} to {hi:g}", step=1e-3, format="%.4g")
VOCAB = Number(
    "lab_vocab", "Symbols", 2, LIMITS["vocab"], D.vocab,
    expected="symbols are a whole number from {lo} to {hi}", help="Tokens are drawn uniformly from this many symbols: chance is 1 / symbols.",
)  # fmt: skip
TABLE_LEN = Number(
    "lab_table_len", "Rows of a position table (0 = the training length)", 0, MAX_EVAL_FACTOR * LIMITS["train_len"], 0,
    expected="table rows are a whole number from {lo} to {hi}",
    help="A learned table normally ends where training did. Give it more rows and it runs on longer inputs with rows training never touched.",
)  # fmt: skip
EVAL_LENS = Text(
    "lab_eval_lens", "Evaluation lengths", "", 200,  # the default follows the training length: see lab_controls
    expected="evaluation lengths are a short list of numbers",
    help=f"Whole numbers separated by commas, up to {MAX_EVAL_FACTOR} × the training length.",
    cap_typing=False, follow=True,
)  # fmt: skip


@dataclass(frozen=True)
class LabChoice:
    """What the controls say: the schemes and task chosen, one config per scheme that could be
    built, and the problems with the settings, in words (none when every config was built)."""

    schemes: list[str]
    task: str
    configs: list[LabConfig]
    problems: list[str]


def lab_controls() -> LabChoice:
    """Check the link's lab settings (the notices stand above the controls), then draw them."""
    check_links(SCHEME_PICK, TASK, TRAIN_LEN, STEPS, SEED, OFFSET, WIDTH, N_HEADS, N_LAYERS, BATCH, LR, VOCAB, TABLE_LEN, EVAL_LENS)
    c1, c2 = st.columns([3, 1])
    schemes = SCHEME_PICK.draw(c1)
    task = TASK.draw(c2)
    c1, c2, c3, c4, c5 = st.columns(5)
    train_len = TRAIN_LEN.draw(c1)
    eval_text = EVAL_LENS.draw(c2, default=", ".join(str(k * train_len) for k in range(1, MAX_EVAL_FACTOR + 1)))
    steps, seed = STEPS.draw(c3), SEED.draw(c4)
    offset = OFFSET.draw(c5, disabled=task != "kback")
    with st.expander("Model and optimiser"):
        m1, m2, m3, m4, m5, m6 = st.columns(6)
        d_model, heads, layers = WIDTH.draw(m1), N_HEADS.draw(m2), N_LAYERS.draw(m3)
        batch, lr, vocab = BATCH.draw(m4), LR.draw(m5), VOCAB.draw(m6)
        table_len = TABLE_LEN.draw()
    configs, problems = configs_for(
        schemes,
        eval_text,
        task=task,
        train_len=train_len,
        steps=steps,
        batch=batch,
        lr=lr,
        seed=seed,
        vocab=vocab,
        offset=offset,
        d_model=int(d_model),
        n_heads=int(heads),
        n_layers=int(layers),
        table_len=table_len or None,
    )
    budget = None if problems else over_budget(configs)  # the whole run, every scheme: refused before it starts
    return LabChoice(schemes, task, configs, problems + ([budget] if budget else []))

"""The papers the app cites, each written once: the pages' Sources lists (ui/path.py) and the lab's
sentences (core/lab) both read them from here, each in its own form.

`listed` is how a Sources list names a paper ("Haviv et al. 2022, Title (Findings of EMNLP; arXiv:…)");
`cited` is how the lab's captions quote it, every author named ("Haviv, Ram, Press, Izsak & Levy (2022),
Title, Findings of EMNLP 2022, arXiv:…")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    short: str  # the authors as a Sources list names them: "Vaswani et al.", or every name when there are few
    year: int
    title: str
    arxiv: str  # its arXiv identifier
    venue: str = ""  # where it appeared ("" for a preprint)
    authors: str = ""  # every author, for `cited` ("" when no sentence quotes it that way)
    short_title: str = ""  # the title a Sources list gives when the full one is long ("" for the title)

    @property
    def listed(self) -> str:
        where = f"{self.venue}; " if self.venue else ""
        return f"{self.short} {self.year}, {self.short_title or self.title} ({where}arXiv:{self.arxiv})"

    @property
    def cited(self) -> str:
        where = f"{self.venue} {self.year}, " if self.venue else ""
        return f"{self.authors or self.short} ({self.year}), {self.title}, {where}arXiv:{self.arxiv}"


VASWANI = Paper("Vaswani et al.", 2017, "Attention Is All You Need", "1706.03762", "NeurIPS")
ROFORMER = Paper("Su et al.", 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding", "2104.09864")
ALIBI = Paper(
    "Press, Smith & Lewis", 2022, "Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation", "2108.12409", "ICLR",
    authors="Press, Smith & Lewis", short_title="Train Short, Test Long",
)  # fmt: skip
T5 = Paper("Raffel et al.", 2020, "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer", "1910.10683", "JMLR")
SHAW = Paper("Shaw, Uszkoreit & Vaswani", 2018, "Self-Attention with Relative Position Representations", "1803.02155", "NAACL")
TXL = Paper("Dai et al.", 2019, "Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context", "1901.02860", "ACL", short_title="Transformer-XL")
KERPLE = Paper("Chi et al.", 2022, "KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation", "2205.09921", "NeurIPS")
YARN = Paper("Peng et al.", 2023, "YaRN: Efficient Context Window Extension of Large Language Models", "2309.00071", authors="Peng, Quesnelle, Fan & Shippole")
PI = Paper(
    "Chen et al.", 2023, "Extending Context Window of Large Language Models via Positional Interpolation", "2306.15595", authors="Chen, Wong, Chen & Tian"
)
BERT = Paper(
    "Devlin et al.", 2019, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding", "1810.04805", "NAACL", short_title="BERT"
)
HAVIV = Paper(
    "Haviv et al.", 2022, "Transformer Language Models without Positional Encodings Still Learn Positional Information", "2203.16634", "Findings of EMNLP",
    authors="Haviv, Ram, Press, Izsak & Levy",
)  # fmt: skip
KAZEMNEJAD = Paper(
    "Kazemnejad et al.", 2023, "The Impact of Positional Encoding on Length Generalization in Transformers", "2305.19466", "NeurIPS",
    authors="Kazemnejad, Padhi, Natesan Ramamurthy, Das & Reddy",
)  # fmt: skip
BARBERO = Paper(
    "Barbero et al.", 2024, "Round and Round We Go! What makes Rotary Positional Encodings useful?", "2410.06205",
    authors="Barbero, Vitvitskyi, Perivolaropoulos, Pascanu & Veličković",
)  # fmt: skip
LIU = Paper("Liu et al.", 2023, "Scaling Laws of RoPE-based Extrapolation", "2310.05209", authors="Liu, Yan, Zhang, An, Qiu & Lin")
PASSKEY = Paper(
    "Mohtashami & Jaggi", 2023, "Landmark Attention: Random-Access Infinite Context Length for Transformers", "2305.16300", "NeurIPS",
    authors="Mohtashami & Jaggi",
)  # fmt: skip
LLAMA3 = Paper("Llama Team", 2024, "The Llama 3 Herd of Models", "2407.21783")
GEMMA3 = Paper("Gemma Team", 2025, "Gemma 3 Technical Report", "2503.19786")
QWEN2VL = Paper(
    "Wang et al.", 2024, "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any Resolution", "2409.12191", short_title="Qwen2-VL"
)
SMOLLM2 = Paper("Allal et al.", 2025, "SmolLM2: When Smol Goes Big", "2502.02737")
SINKS = Paper("Xiao et al.", 2024, "Efficient Streaming Language Models with Attention Sinks", "2309.17453", "ICLR")

"""/lab's own modules, beside each other (the page script is app_pages/lab.py):

- `controls`: the synthetic task's controls, bound to the URL, and the configurations they describe;
- `run`: the one live-run widget (Train, Stop, progress, place in line, result) every lab run goes through,
  /llm's live perplexity included;
- `lm`, `lm_text`: the real-text comparison on Austen and the sentences that quote its numbers;
- `trained`: the experiments on the trained models, one view per registry record.
"""

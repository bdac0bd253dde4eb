"""Fit the lab's budget constants (core/lab/config.py: FLOP_S, SCORE_S, ...) to runs measured here.

    python scripts/lab_budget.py measure runs.jsonl   # time and measure each config below, a fresh process each
    python scripts/lab_budget.py fit runs.jsonl       # least squares over what was measured; prints the constants
    python scripts/lab_budget.py check runs.jsonl     # the estimate against every measured run

A config is measured in a process of its own (its peak RSS is the process's): three training steps
after one to warm up (median), one evaluation at its longest length, VmHWM before the model, after
training and after evaluation. The estimate must not be below what was measured by much: the
budget refuses on it, and the wall-time cap (WALL_SECONDS) catches what a loaded machine adds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = [
    dict(scheme="rope"),
    dict(scheme="t5"),
    dict(scheme="shaw"),
    dict(scheme="alibi"),
    dict(scheme="rope", d_model=128, n_heads=4, n_layers=2, train_len=128, batch=64, eval_lens=(512,)),
    dict(scheme="sinusoidal", d_model=128, n_heads=8, n_layers=2, train_len=128, batch=32, eval_lens=(512,)),
    dict(scheme="t5", d_model=128, n_heads=8, n_layers=2, train_len=128, batch=32, eval_lens=(512,)),
    dict(scheme="shaw", d_model=128, n_heads=8, n_layers=2, train_len=128, batch=32, eval_lens=(512,)),
    dict(scheme="alibi", d_model=64, n_heads=16, n_layers=1, train_len=256, batch=4, eval_lens=(1024,)),
    dict(scheme="rope", d_model=256, n_heads=1, n_layers=1, train_len=128, batch=32, eval_lens=(512,)),
    dict(scheme="rope", d_model=256, n_heads=2, n_layers=2, train_len=64, batch=32, eval_lens=(256,)),
    dict(scheme="learned", d_model=256, n_heads=4, n_layers=4, train_len=64, batch=128, eval_lens=(64,), vocab=256),
    dict(scheme="none", d_model=32, n_heads=2, n_layers=1, train_len=256, batch=64, eval_lens=(1024,)),
    dict(scheme="kerple", d_model=64, n_heads=4, n_layers=2, train_len=256, batch=8, eval_lens=(1024,)),
    dict(scheme="sinusoidal", d_model=256, n_heads=4, n_layers=4, train_len=128, batch=32, eval_lens=(256,)),
    dict(scheme="shaw", d_model=64, n_heads=4, n_layers=2, train_len=256, batch=8, eval_lens=(1024,)),
    dict(scheme="t5", d_model=64, n_heads=8, n_layers=2, train_len=128, batch=16, eval_lens=(512,)),
    dict(scheme="rope", d_model=64, n_heads=4, n_layers=4, train_len=256, batch=8, eval_lens=(1024,)),
]

ONE = r'''
import json, sys, time
sys.path.insert(0, ROOT)
import numpy as np, torch
from core.lab.config import LabConfig, make_batch
from core.lab import model as M
torch.set_num_threads(1)
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024
kw = json.loads(sys.argv[1])
cfg = LabConfig(**kw)
base = hwm()
m = M.TinyTransformer(cfg, torch.Generator().manual_seed(0))
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
rng = np.random.default_rng(0)
ts = []
for i in range(4):
    x, y = make_batch(cfg, rng, cfg.batch, cfg.train_len)
    t = time.perf_counter()
    logits = m(torch.from_numpy(x))
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, cfg.tokens), torch.from_numpy(y).reshape(-1), ignore_index=-100)
    opt.zero_grad(); loss.backward(); opt.step()
    ts.append(time.perf_counter() - t)
train_peak = hwm()
t = time.perf_counter()
M.evaluate(m, cfg, cfg.eval_lens[-1])
print(json.dumps(dict(kw=kw, step=float(np.median(ts[1:])), eval=time.perf_counter() - t, base=base, train_peak=train_peak, peak=hwm())))
'''


def measure(path: Path) -> None:
    with path.open("a") as out:
        for kw in CONFIGS:
            r = subprocess.run([sys.executable, "-c", f"ROOT = {str(ROOT)!r}\n" + ONE, json.dumps(kw)], capture_output=True, text=True, timeout=3600)
            line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else json.dumps(dict(kw=kw, error=r.stderr[-300:]))
            print(line, flush=True)
            out.write(line + "\n")


def features(kw: dict) -> tuple[list[float], list[float], list[float]]:
    """(train-step features, evaluation features at the longest length, memory features), in the
    order of the constants fitted: see core.lab.config.estimate."""
    from core.lab import config as c

    cfg = c.LabConfig(**kw)
    layers, heads, bias, formula = cfg.n_layers, cfg.n_heads, c._bias_passes(cfg), c._formula_bias(cfg)
    scores = layers * cfg.batch * heads * cfg.train_len**2
    train = [3 * c._flops(cfg, cfg.batch, cfg.train_len), scores * (1 + bias / 2), layers * heads * cfg.train_len**2 * formula, 1.0]
    length = cfg.eval_lens[-1]
    chunk = max(1, min(c.EVAL_BATCH, c.EVAL_SCORES // (heads * length**2)))
    passes = -(-c.EVAL_BATCH // chunk)
    ev = [passes * c._flops(cfg, chunk, length), passes * layers * chunk * heads * length**2 * (1 + bias / 2), passes * layers * heads * length**2 * formula]
    acts = layers * cfg.batch * cfg.train_len * cfg.d_model
    memory = [scores * (1 + bias / 3), acts]
    return train, ev, memory


def load(path: Path) -> list[dict]:
    return [r for r in (json.loads(line) for line in path.read_text().splitlines() if line.strip()) if "error" not in r]


def fit(path: Path) -> None:
    import numpy as np
    from scipy.optimize import nnls

    runs = load(path)
    rows = [features(r["kw"]) for r in runs]
    for name, index, target in (("train step", 0, "step"), ("evaluation", 1, "eval")):
        a = np.array([row[index] for row in rows])
        y = np.array([r[target] for r in runs])
        weights = 1 / np.maximum(y, 0.01)  # relative error: small runs count as much as large ones
        coef, _ = nnls(a * weights[:, None], y * weights)
        print(name, "coefficients", [f"{x:.3g}" for x in coef], "worst ratio measured/fitted", f"{max(y / np.maximum(a @ coef, 1e-9)):.2f}")
    a = np.array([[1.0, *row[2]] for row in rows])
    y = np.array([r["train_peak"] - r["base"] for r in runs], dtype=float)
    coef, _ = nnls(a / np.maximum(y, 1e6)[:, None], y / np.maximum(y, 1e6))
    print("training memory: base, bytes per score, bytes per activation", [f"{x:.3g}" for x in coef])


def check(path: Path) -> None:
    from core.lab.config import LabConfig, estimate

    print(f"{'config':<100} {'step est/meas':>16} {'eval est/meas':>16} {'MB est/meas':>14}")
    for r in load(path):
        cfg = LabConfig(**r["kw"])
        e = estimate(LabConfig(**{**r["kw"], "eval_lens": (cfg.eval_lens[-1],)}))
        print(
            f"{json.dumps(r['kw'])[:100]:<100} {e.step_s:7.3f}/{r['step']:<7.3f} {e.eval_s:7.2f}/{r['eval']:<7.2f} "
            f"{e.peak_bytes / 2**20:6.0f}/{(r['peak'] - r['base']) / 2**20:<6.0f}"
        )


if __name__ == "__main__":
    command, file = sys.argv[1], Path(sys.argv[2])
    {"measure": measure, "fit": fit, "check": check}[command](file)

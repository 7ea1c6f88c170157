"""PyTorch peer for the induction experiment (issue 20): the attention-only model of
tests/native/induction_experiment.cpp, trained on the same batches (the "induction" task of
wasm/core/tasks/induction.hpp, drawn here in the same order from the same mulberry32), one thread.

Model: x = token_embedding[w] + position_embedding[t]; per block x = x + W_out(causal multi-head
attention(x)) (Wq, Wk, Wv, W_out with biases, scores scaled by 1/sqrt(head_dim)); logits = x
wReadout + bReadout at every position; softmax cross-entropy over positions 0..62 (the mean over
the counted rows); Adam lr 3e-3 with a 100-step linear warm-up, betas (0.9, 0.999), eps 1e-8.
Weights are stored in x out (y = x W + b). With --weights FILE (a headwise getWeights() JSON,
written by bench/train/induction-weights.mjs) it starts from headwise's initial weights, so the
first losses can be compared with ours; without, from torch's generator.

Prints every --every steps the held-out (512 sequences, seed XOR 0x5EED5EED) loss per group, the
best induction score of the last block, the best previous-token score of the first block, each
head's scores, and the median step time; --losses N prints the first N batch losses.
Run with Debian's Python: /usr/bin/python3 bench/train/torch_induction.py --layers 2 --seed 0
"""
import argparse
import json
import os
import statistics
import sys
import time

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"


def _reexec_single_threaded():
    # OpenBLAS reads its thread count when it loads, and eager tensors re-fault their pages every
    # step on this VM without jemalloc: both must be set before torch loads.
    env = dict(os.environ)
    wanted = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if env.get("HEADWISE_TORCH_REEXEC") == "1":
        return
    env.update(wanted)
    env["HEADWISE_TORCH_REEXEC"] = "1"
    if os.path.exists(JEMALLOC):
        env["LD_PRELOAD"] = (JEMALLOC + " " + env.get("LD_PRELOAD", "")).strip()
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


_reexec_single_threaded()

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from task import Mulberry32  # noqa: E402

VOCAB, TOKENS, MIN_LENGTH, MAX_LENGTH = 64, 64, 12, 31
FIRST_COPY, REPEAT, OTHER = 0, 1, 2
GROUPS = ["first copy", "repeat", "other"]


def below(rng, n):
    return int(rng.next() * n)


def sequence(rng):
    """ids (64), groups per position (64), and (L, a, b) as wasm/core/tasks/induction.cpp draws them."""
    length = MIN_LENGTH + below(rng, MAX_LENGTH - MIN_LENGTH + 1)
    free = TOKENS - 2 * length
    first = below(rng, free + 1)
    second = first + length + below(rng, free - first + 1)
    ids = []
    for t in range(TOKENS):
        ids.append(ids[t - (second - first)] if second <= t < second + length else below(rng, VOCAB))
    groups = []
    for t in range(TOKENS):
        nxt = t + 1
        if first <= nxt < first + length:
            groups.append(FIRST_COPY)
        elif second < nxt < second + length:
            groups.append(REPEAT)
        else:
            groups.append(OTHER)
    return ids, groups, (length, first, second)


def batch_of(rng, n):
    rows = [sequence(rng) for _ in range(n)]
    ids = torch.tensor([r[0] for r in rows], dtype=torch.int64)
    groups = torch.tensor([r[1] for r in rows], dtype=torch.int64)
    layouts = [r[2] for r in rows]
    return ids, groups, layouts


def names(layers):
    out = ["tokenEmbedding", "positionEmbedding"]
    for l in range(layers):
        out += ["blocks.%d.%s" % (l, n) for n in ("wq", "bq", "wk", "bk", "wv", "bv", "wOut", "bOut")]
    return out + ["wReadout", "bReadout"]


def shapes(layers, width):
    D = width
    out = {"tokenEmbedding": (VOCAB, D), "positionEmbedding": (TOKENS, D)}
    for l in range(layers):
        for n in ("wq", "wk", "wv", "wOut"):
            out["blocks.%d.%s" % (l, n)] = (D, D)
        for n in ("bq", "bk", "bv", "bOut"):
            out["blocks.%d.%s" % (l, n)] = (D,)
    out["wReadout"], out["bReadout"] = (D, VOCAB), (VOCAB,)
    return out


def initial_weights(layers, width, seed, path):
    s = shapes(layers, width)
    if path:
        with open(path) as f:
            data = json.load(f)
        return {n: torch.tensor(data[n], dtype=torch.float32).reshape(s[n]) for n in names(layers)}
    g = torch.Generator().manual_seed(seed)
    out = {}
    for n in names(layers):
        bound = 3 ** 0.5 if n.endswith("Embedding") else width ** -0.5
        out[n] = (torch.rand(s[n], generator=g) * 2 - 1) * bound
    return out


class Model:
    def __init__(self, weights, layers, heads):
        self.p = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
        self.layers, self.heads = layers, heads
        self.order = names(layers)

    def parameters(self):
        return [self.p[n] for n in self.order]

    def forward(self, ids):
        """ids (B, T). Returns logits (B, T, V) and each block's attention (B, H, T, T)."""
        p, H = self.p, self.heads
        B, T = ids.shape
        x = p["tokenEmbedding"][ids] + p["positionEmbedding"]
        D = x.shape[-1]
        hd = D // H
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        maps = []
        for l in range(self.layers):
            w = lambda n: p["blocks.%d.%s" % (l, n)]  # noqa: E731
            q = (x @ w("wq") + w("bq")).view(B, T, H, hd).transpose(1, 2)
            k = (x @ w("wk") + w("bk")).view(B, T, H, hd).transpose(1, 2)
            v = (x @ w("wv") + w("bv")).view(B, T, H, hd).transpose(1, 2)
            s = (q @ k.transpose(2, 3)) * hd ** -0.5
            a = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
            maps.append(a)
            x = x + (a @ v).transpose(1, 2).reshape(B, T, D) @ w("wOut") + w("bOut")
        return x @ p["wReadout"] + p["bReadout"], maps


def loss_of(logits, ids):
    # Position t predicts id t + 1; the last position is not counted.
    return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


def evaluate(model, held):
    ids, groups, layouts = held
    with torch.no_grad():
        logits, maps = model.forward(ids)
        rows = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1), reduction="none").view(ids.shape[0], -1)
        g = groups[:, :-1]
        losses = [rows[g == k].mean().item() for k in range(3)]
        T = ids.shape[1]
        t = torch.arange(1, T)
        scores = []
        for a in maps:
            prev = a[:, :, t, t - 1].mean(dim=(0, 2))                     # (H,)
            induction = torch.zeros(a.shape[1])
            count = 0
            for i, (length, first, second) in enumerate(layouts):
                for q in range(second, second + length - 1):             # the repeat rows
                    induction += a[i, :, q, q - (second - first) + 1]
                    count += 1
            scores.append((prev.tolist(), (induction / count).tolist()))
    return losses, scores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--every", type=int, default=250)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--weights", help="a headwise getWeights() JSON to start from")
    ap.add_argument("--losses", type=int, default=0, help="print the first N batch losses")
    ap.add_argument("--dump-init", help="write the initial weights as getWeights() JSON and stop")
    args = ap.parse_args()
    torch.set_num_threads(1)
    init = initial_weights(args.layers, args.width, args.seed, args.weights)
    if args.dump_init:
        with open(args.dump_init, "w") as f:
            json.dump({n: init[n].flatten().tolist() for n in names(args.layers)}, f)
        return
    model = Model(init, args.layers, args.heads)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.9, 0.999), eps=1e-8)
    rng = Mulberry32(args.seed)
    held = batch_of(Mulberry32(args.seed ^ 0x5EED5EED), 512)
    times, cpu, first_losses = [], [], []
    print("layers seed step | loss: first-copy repeat other | induction(last) prev(first) | "
          "ms/step median wall (mean CPU)")
    for step in range(1, args.steps + 1):
        ids, _, _ = batch_of(rng, args.batch)
        start, start_cpu = time.perf_counter(), time.process_time()
        for group in opt.param_groups:
            group["lr"] = 3e-3 * min(1.0, step / 100)
        logits, _ = model.forward(ids)
        loss = loss_of(logits, ids)
        opt.zero_grad()
        loss.backward()
        opt.step()
        value = loss.item()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if step <= args.losses:
            first_losses.append(value)
        if step % args.every == 0:
            losses, scores = evaluate(model, held)
            print("%d %d %d | %.3f %.3f %.3f | %.3f %.3f | %.1f (%.1f) | %s" % (
                args.layers, args.seed, step, *losses, max(scores[-1][1]), max(scores[0][0]),
                1e3 * statistics.median(times[20:] or times), 1e3 * statistics.mean(cpu[20:] or cpu),
                " ".join("L%d: p %s i %s" % (l + 1, " ".join("%.2f" % v for v in s[0]),
                                             " ".join("%.2f" % v for v in s[1])) for l, s in enumerate(scores))))
            sys.stdout.flush()
    if args.losses:
        print(json.dumps({"firstLosses": first_losses}))


if __name__ == "__main__":
    main()

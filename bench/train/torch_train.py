"""PyTorch peer for the training benchmark: the "latest verb and latest noun" model of issue 12,
trained on the same batches as ours (bench/train/task.py), one thread.

Model: x0 = token_embedding[w] + position_embedding[t]; one multi-head attention layer (Wq, Wk, Wv,
W_out with biases) with a residual; a ReLU MLP (width -> mlp -> width) with a residual; a linear
readout from the "?" position; softmax cross-entropy; Adam lr 3e-3 with linear warm-up (step t uses
lr * min(1, t / warmup)), betas (0.9, 0.999), eps 1e-8, no weight decay. Weights are stored
in x out (y = x W + b), the layout of docs/train-weights-format.md.

The loss reads only position 11 ("?"), so by default the query, the attention row, the MLP and the
readout run at that position only (keys and values at all 12), like ours; --full-attention runs
the causal layer at every position as a textbook model would (same loss, more work).

Prints accuracy on the held-out set every 50 steps, the median step time after warm-up, the step
and the training time at which held-out accuracy first reaches 95%, and per-head attention shares
from "?" on the latest verb and the latest noun; --json FILE writes all of it (and the per-step
losses) for bench/train.mjs.
"""
import argparse
import json
import os
import sys
import time

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"


def _reexec_with_jemalloc():
    # Eager tensors re-fault their pages every step on this VM without jemalloc; the environment
    # variables must be set before torch (and OpenBLAS) load, so re-exec once with them.
    env = dict(os.environ)
    wanted = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    need = any(env.get(k) != v for k, v in wanted.items())
    if os.path.exists(JEMALLOC) and "--no-jemalloc" not in sys.argv and JEMALLOC not in env.get("LD_PRELOAD", ""):
        env["LD_PRELOAD"] = (JEMALLOC + " " + env.get("LD_PRELOAD", "")).strip()
        need = True
    if need and env.get("HEADWISE_TRAIN_REEXEC") != "1":
        env.update(wanted)
        env["HEADWISE_TRAIN_REEXEC"] = "1"
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


_reexec_with_jemalloc()

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import task  # noqa: E402

NAMES = ["tokenEmbedding", "positionEmbedding", "wq", "bq", "wk", "bk", "wv", "bv", "wOut", "bOut",
         "w1", "b1", "w2", "b2", "wReadout", "bReadout"]


def shapes(width, mlp, classes):
    V, T, D, M, K = len(task.VOCABULARY), task.TOKENS, width, mlp, classes
    return {"tokenEmbedding": (V, D), "positionEmbedding": (T, D),
            "wq": (D, D), "bq": (D,), "wk": (D, D), "bk": (D,), "wv": (D, D), "bv": (D,),
            "wOut": (D, D), "bOut": (D,), "w1": (D, M), "b1": (M,), "w2": (M, D), "b2": (D,),
            "wReadout": (D, K), "bReadout": (K,)}


def fan_in(name, width, mlp):
    return mlp if name in ("w2", "b2") else width


def init_weights(width, mlp, classes, seed, dtype):
    # Embeddings uniform in +-sqrt(3) (variance 1), Linear weights and biases uniform in
    # +-1/sqrt(fan_in) (PyTorch's Linear default); drawn with torch's generator, not bit-equal to ours.
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, shape in shapes(width, mlp, classes).items():
        bound = 3 ** 0.5 if name.endswith("Embedding") else fan_in(name, width, mlp) ** -0.5
        out[name] = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * bound
    return {k: v.to(dtype) for k, v in out.items()}


def load_weights(path, width, mlp, classes, dtype):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for name, shape in shapes(width, mlp, classes).items():
        flat = data.get(name)
        numel = 1
        for s in shape:
            numel *= s
        if flat is None or len(flat) != numel:
            raise SystemExit("%s: %s must be a flat array of %d numbers (shape %s)" % (path, name, numel, shape))
        out[name] = torch.tensor(flat, dtype=torch.float64).reshape(shape).to(dtype)
    return out


class Model:
    def __init__(self, weights, heads, full_attention):
        self.p = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
        self.heads = heads
        self.full = full_attention

    def parameters(self):
        return [self.p[n] for n in NAMES]

    def forward(self, words):
        """words: (B, 12) int64. Returns logits (B, classes) and attention from "?" (B, H, 12)."""
        p, H = self.p, self.heads
        B, T = words.shape
        D = p["wq"].shape[0]
        hd = D // H
        x0 = p["tokenEmbedding"][words] + p["positionEmbedding"]              # (B, T, D)
        k = (x0 @ p["wk"] + p["bk"]).view(B, T, H, hd).transpose(1, 2)        # (B, H, T, hd)
        v = (x0 @ p["wv"] + p["bv"]).view(B, T, H, hd).transpose(1, 2)
        if self.full:
            q = (x0 @ p["wq"] + p["bq"]).view(B, T, H, hd).transpose(1, 2)
            s = (q @ k.transpose(2, 3)) * hd ** -0.5
            mask = torch.ones(T, T, dtype=torch.bool).triu(1)
            a = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)      # (B, H, T, T)
            ctx = (a @ v).transpose(1, 2).reshape(B, T, D)[:, -1]
            a_last = a[:, :, -1]
        else:
            # Query at "?" only; it sees all 12 positions, so the causal mask removes nothing.
            q = (x0[:, -1] @ p["wq"] + p["bq"]).view(B, H, 1, hd)
            a_last = torch.softmax((q @ k.transpose(2, 3)) * hd ** -0.5, dim=-1)  # (B, H, 1, T)
            ctx = (a_last @ v).reshape(B, D)
            a_last = a_last.view(B, H, T)
        h1 = x0[:, -1] + ctx @ p["wOut"] + p["bOut"]
        h2 = h1 + torch.relu(h1 @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
        return h2 @ p["wReadout"] + p["bReadout"], a_last


def make_batches(seed, steps, batch, variant):
    g = task.Generator(seed)
    words, targets = [], []
    for _ in range(steps):
        w, t = g.batch(batch, variant)
        words.append(torch.tensor(w, dtype=torch.int64))
        targets.append(torch.tensor(t, dtype=torch.int64))
    return words, targets


def latest_positions(words):
    verb, noun = [], []
    for w in words:
        verb.append(max(i for i, x in enumerate(w) if task.VERB_BASE <= x < task.VERB_BASE + 8))
        noun.append(max(i for i, x in enumerate(w) if task.NOUN_BASE <= x < task.NOUN_BASE + 8))
    return torch.tensor(verb), torch.tensor(noun)


def evaluate(model, words, targets, verb_pos, noun_pos):
    with torch.no_grad():
        logits, a = model.forward(words)
        loss = torch.nn.functional.cross_entropy(logits, targets).item()
        acc = (logits.argmax(1) == targets).double().mean().item()
        idx = torch.arange(words.shape[0])
        verb = a[idx, :, verb_pos].double().mean(0).tolist()   # (H,)
        noun = a[idx, :, noun_pos].double().mean(0).tolist()
    return loss, acc, verb, noun


def specialised(verb, noun, threshold=0.5):
    """True when one head puts >= threshold on the latest verb and another on the latest noun."""
    H = len(verb)
    return any(verb[i] >= threshold and noun[j] >= threshold for i in range(H) for j in range(H) if i != j)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--mlp", type=int, default=64)
    ap.add_argument("--variant", default="verb-noun", choices=sorted(task.VARIANTS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--eval-size", type=int, default=2048)
    ap.add_argument("--eval-every", type=int, default=10,
                    help="held-out evaluation period in steps (95%% step resolution); printed every 50")
    ap.add_argument("--warm-up-steps", type=int, default=20, help="steps left out of the median step time")
    ap.add_argument("--float64", action="store_true", help="train in float64 instead of float32")
    ap.add_argument("--full-attention", action="store_true", help="run the layer at all 12 positions")
    ap.add_argument("--init", help="initial weights JSON (docs/train-weights-format.md)")
    ap.add_argument("--json", help="write a summary with per-step losses to this file")
    ap.add_argument("--stop-at", type=float, help="stop at the first evaluation with this accuracy")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--no-jemalloc", action="store_true")
    args = ap.parse_args()
    if args.width % args.heads:
        raise SystemExit("width must be a multiple of heads")

    torch.set_num_threads(1)
    dtype = torch.float64 if args.float64 else torch.float32
    classes = task.VARIANTS[args.variant]
    weights = (load_weights(args.init, args.width, args.mlp, classes, dtype) if args.init
               else init_weights(args.width, args.mlp, classes, args.seed, dtype))
    model = Model(weights, args.heads, args.full_attention)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)

    batches, batch_targets = make_batches(args.seed, args.steps, args.batch, args.variant)
    ev_words_list, ev_targets_list = task.eval_set(args.seed, args.eval_size, args.variant)
    ev_words = torch.tensor(ev_words_list, dtype=torch.int64)
    ev_targets = torch.tensor(ev_targets_list, dtype=torch.int64)
    verb_pos, noun_pos = latest_positions(ev_words_list)

    losses, step_ms, evals = [], [], []
    cpu_ms = None  # CPU time per step after warm-up: steadier than wall time on a shared machine
    train_s, reached_step, reached_s = 0.0, None, None
    for t in range(1, args.steps + 1):
        for group in opt.param_groups:
            group["lr"] = args.lr * min(1.0, t / args.warmup) if args.warmup > 0 else args.lr
        if t == args.warm_up_steps + 1:
            cpu_start, cpu_steps = time.process_time(), 0
        start = time.perf_counter()
        logits, _ = model.forward(batches[t - 1])
        loss = torch.nn.functional.cross_entropy(logits, batch_targets[t - 1])
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        elapsed = time.perf_counter() - start
        if t > args.warm_up_steps:
            cpu_steps += 1
            cpu_ms = (time.process_time() - cpu_start) * 1e3 / cpu_steps
        train_s += elapsed
        step_ms.append(elapsed * 1e3)
        losses.append(loss.item())
        if t % args.eval_every == 0 or t == args.steps:
            ev_start = time.process_time()
            ev_loss, acc, verb, noun = evaluate(model, ev_words, ev_targets, verb_pos, noun_pos)
            if t > args.warm_up_steps:
                cpu_start += time.process_time() - ev_start  # evaluation is not training
            evals.append({"step": t, "loss": ev_loss, "accuracy": acc})
            if reached_step is None and acc >= 0.95:
                reached_step, reached_s = t, train_s
            if not args.quiet and (t % 50 == 0 or t == args.steps):
                print("step %5d  loss %.4f  held-out loss %.4f  accuracy %.4f" % (t, losses[-1], ev_loss, acc))
            if args.stop_at is not None and acc >= args.stop_at:
                break

    timed = sorted(step_ms[args.warm_up_steps:]) or sorted(step_ms)
    mid = len(timed) // 2
    median_ms = timed[mid] if len(timed) % 2 else 0.5 * (timed[mid - 1] + timed[mid])
    _, final_acc, verb, noun = evaluate(model, ev_words, ev_targets, verb_pos, noun_pos)
    summary = {
        "peer": "pytorch", "torch": torch.__version__, "dtype": str(dtype).replace("torch.", ""),
        "heads": args.heads, "width": args.width, "mlp": args.mlp, "variant": args.variant, "seed": args.seed,
        "steps": args.steps, "batch": args.batch, "fullAttention": args.full_attention, "init": args.init,
        "medianStepMs": median_ms, "cpuStepMs": cpu_ms, "finalAccuracy": final_acc,
        "bestAccuracy": max(e["accuracy"] for e in evals),
        "stepTo95": reached_step, "trainSecondsTo95": reached_s, "trainSeconds": train_s,
        "verbShare": verb, "nounShare": noun, "specialised": specialised(verb, noun),
        "losses": losses, "evals": evals,
    }
    print("median step %.3f ms (steps %d-%d; CPU %s ms per step), final accuracy %.4f, "
          "95%% at step %s (%s s of training)" % (
        median_ms, args.warm_up_steps + 1, args.steps, "%.3f" % cpu_ms if cpu_ms else "-", final_acc, reached_step,
        "%.3f" % reached_s if reached_s is not None else "-"))
    print("attention from '?': latest verb %s, latest noun %s, specialised heads: %s" % (
        " ".join("%.3f" % x for x in verb), " ".join("%.3f" % x for x in noun), summary["specialised"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f)


if __name__ == "__main__":
    main()

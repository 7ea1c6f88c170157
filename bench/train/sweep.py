"""Accuracy table of issue 12 with the PyTorch peer: 1/2/4 heads, the controls, several seeds.

    python3 bench/train/sweep.py [--seeds 3] [--two-head-seeds 20] [--float64] [--out results.json]

Runs bench/train/torch_train.py once per (configuration, seed), one after another, and prints one
row per configuration: final and best held-out accuracy per seed, step to 95%, attention shares from
"?" (latest verb / latest noun per head), and for 2 heads how many seeds did not specialise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CONFIGS = [  # (label, heads, width, variant)
    ("1 head", 1, 32, "verb-noun"),
    ("2 heads", 2, 32, "verb-noun"),
    ("4 heads", 4, 32, "verb-noun"),
    ("1 head, verb only", 1, 32, "verb"),
    ("1 head, width 64", 1, 64, "verb-noun"),
]


def run(heads, width, variant, seed, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [sys.executable, os.path.join(HERE, "torch_train.py"), "--heads", str(heads), "--width", str(width),
               "--variant", variant, "--seed", str(seed), "--quiet", "--json", f.name] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.load(open(f.name))


def shares(r):
    return "/".join("v%.2f n%.2f" % (v, n) for v, n in zip(r["verbShare"], r["nounShare"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--two-head-seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--float64", action="store_true")
    ap.add_argument("--only", help="comma-separated labels to run")
    ap.add_argument("--out")
    args = ap.parse_args()
    extra = ["--float64"] if args.float64 else []
    results = {}
    for label, heads, width, variant in CONFIGS:
        if args.only and label not in args.only.split(","):
            continue
        n = args.two_head_seeds if heads == 2 and variant == "verb-noun" else args.seeds
        rows = []
        for seed in range(args.first_seed, args.first_seed + n):
            r = run(heads, width, variant, seed, extra)
            r.pop("losses")
            rows.append(r)
            print("%-18s seed %2d  final %.4f  best %.4f  95%% at %5s  median %.3f ms  %s" % (
                label, seed, r["finalAccuracy"], r["bestAccuracy"], r["stepTo95"], r["medianStepMs"], shares(r)),
                flush=True)
        results[label] = rows
        finals = [r["finalAccuracy"] for r in rows]
        line = "%-18s final %.3f-%.3f over %d seeds" % (label, min(finals), max(finals), len(rows))
        if heads == 2 and variant == "verb-noun":
            mixed = sum(1 for r in rows if not r["specialised"])
            line += ", %d of %d seeds kept the mixed (non-specialised) solution" % (mixed, len(rows))
        print("==", line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

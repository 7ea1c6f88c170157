"""PyTorch (Debian's python3-torch) on the same case, fused as GPT computes it, timed by the rules
of bench/timing.mjs. Usage: /usr/bin/python3 torch_bench.py B T D H hd <in> <out>
Run with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 (and libjemalloc preloaded): bench/main.mjs does."""
import json
import math
import sys
import time

import numpy as np
import torch


def peak_rss_bytes():
    """VmHWM, not getrusage's maxrss: Linux carries the parent's peak into maxrss across exec."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    b, t, d, h, hd = (int(v) for v in sys.argv[1:6])
    c = h * hd
    torch.set_num_threads(1)
    flat = np.fromfile(sys.argv[6], dtype=np.float32)
    sizes = [b * t * d, d * c, d * c, d * c, c * d]
    parts, at = [], 0
    for n in sizes:
        parts.append(torch.from_numpy(flat[at:at + n].copy()))
        at += n
    x = parts[0].view(b, t, d)
    wq, wk, wv = (p.view(d, c) for p in parts[1:4])
    wout = parts[4].view(c, d)
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    scale = 1.0 / math.sqrt(hd)

    def forward():
        with torch.no_grad():
            q = (x @ wq).view(b, t, h, hd).transpose(1, 2)
            k = (x @ wk).view(b, t, h, hd).transpose(1, 2)
            v = (x @ wv).view(b, t, h, hd).transpose(1, 2)
            scores = (q @ k.transpose(-2, -1)) * scale
            scores = scores.masked_fill(mask, float("-inf"))
            context = torch.softmax(scores, dim=-1) @ v
            return context.transpose(1, 2).reshape(b, t, c) @ wout

    calls, fastest, warm_start = 0, float("inf"), time.perf_counter()
    while True:
        elapsed = (time.perf_counter() - warm_start) * 1e3
        if (calls >= 3 and elapsed >= 1000) or (calls >= 1 and elapsed >= 4000):
            break
        t0 = time.perf_counter()
        out = forward()
        fastest = min(fastest, (time.perf_counter() - t0) * 1e3)
        calls += 1
    batch = max(1, math.ceil(1.0 / fastest))
    per_call, start = [], time.perf_counter()
    while True:
        elapsed, n = (time.perf_counter() - start) * 1e3, len(per_call)
        if (n >= 7 and elapsed >= 1500) or (n >= 3 and elapsed >= 8000) or n >= 300:
            break
        t0 = time.perf_counter()
        for _ in range(batch):
            out = forward()
        per_call.append((time.perf_counter() - t0) * 1e3 / batch)
    per_call.sort()
    out.contiguous().numpy().astype(np.float32).tofile(sys.argv[7])
    print(json.dumps({"medianMs": per_call[len(per_call) // 2], "minMs": per_call[0],
                      "maxMs": per_call[-1], "samples": len(per_call), "callsPerSample": batch,
                      "peakRssBytes": peak_rss_bytes(),
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()

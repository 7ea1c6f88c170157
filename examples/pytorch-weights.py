# Optional: prints what PyTorch's nn.MultiheadAttention computes for the weights and input of
# examples/pytorch-weights.mjs (the numbers that example compares against). Needs python3-torch.
#   python3 examples/pytorch-weights.py
import torch

E, H, T = 8, 2, 5


def pattern(count, a, b):
    # The same formula as the example: small exact decimals, rounded to float32 alike.
    return torch.tensor([((i * a + b) % 17 - 8) / 16 for i in range(count)], dtype=torch.float32)


mha = torch.nn.MultiheadAttention(E, H, batch_first=True, bias=True)
with torch.no_grad():
    mha.in_proj_weight.copy_(pattern(3 * E * E, 7, 3).reshape(3 * E, E))
    mha.in_proj_bias.copy_(pattern(3 * E, 5, 1))
    mha.out_proj.weight.copy_(pattern(E * E, 11, 2).reshape(E, E))
    mha.out_proj.bias.copy_(pattern(E, 3, 4))
x = pattern(T * E, 13, 5).reshape(1, T, E)
causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
out, _ = mha(x, x, x, attn_mask=causal, need_weights=False)
print('[' + ', '.join(f'{v:.7g}' for v in out.flatten().tolist()) + ']')

"""The "latest verb and latest noun" task, word for word the same generator as web/train-task.js.

mulberry32 on 32-bit unsigned integers (masked with 0xFFFFFFFF), so Python, JavaScript and C++ draw
identical sequences for a seed. Run as a script to print the first K sequences of a seed (or of several) as JSON:
    python3 bench/train/task.py SEED K        python3 bench/train/task.py 1,2,3 K
"""
import json
import sys

NOUN_BASE, VERB_BASE, FILLER_BASE, QUESTION = 0, 8, 16, 20
TOKENS = 12
VARIANTS = {"verb-noun": 64, "verb": 8}
VOCABULARY = ["dog", "ball", "cat", "bird", "boy", "girl", "stick", "bone",
              "chase", "catch", "see", "like", "find", "drop", "kick", "follow",
              "the", "a", "it", "and", "?"]
_KINDS = ((NOUN_BASE, 8), (VERB_BASE, 8), (FILLER_BASE, 4))
_M = 0xFFFFFFFF


def _imul(a, b):
    return (a * b) & _M


class Mulberry32:
    def __init__(self, seed):
        self.state = seed & _M

    def next(self):
        self.state = (self.state + 0x6D2B79F5) & _M
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t = ((t + _imul(t ^ (t >> 7), t | 61)) & _M) ^ t
        return ((t ^ (t >> 14)) & _M) / 4294967296.0


def _latest(words, base):
    for w in reversed(words):
        if base <= w < base + 8:
            return w
    return -1


def target(words, variant="verb-noun"):
    if variant not in VARIANTS:
        raise ValueError("variant must be one of %s" % ", ".join(VARIANTS))
    verb, noun = _latest(words, VERB_BASE), _latest(words, NOUN_BASE)
    if verb < 0 or noun < 0:
        raise ValueError("a sequence needs at least one noun and one verb")
    return verb - VERB_BASE if variant == "verb" else 8 * (verb - VERB_BASE) + (noun - NOUN_BASE)


class Generator:
    """Sequences drawn one after another; batch(n) takes the next n."""

    def __init__(self, seed):
        self.rng = Mulberry32(seed)

    def next_sequence(self):
        nxt = self.rng.next
        while True:
            words, nouns, verbs = [], 0, 0
            for _ in range(TOKENS - 1):
                u = nxt()
                kind = 0 if u < 0.35 else (1 if u < 0.70 else 2)
                base, count = _KINDS[kind]
                words.append(base + int(nxt() * count))
                nouns += kind == 0
                verbs += kind == 1
            if nouns and verbs:
                words.append(QUESTION)
                return words

    def batch(self, n, variant="verb-noun"):
        seqs = [self.next_sequence() for _ in range(n)]
        return seqs, [target(s, variant) for s in seqs]


def held_out_seed(seed):
    return (seed ^ 0x5EED5EED) & _M


def eval_set(seed, n=2048, variant="verb-noun"):
    return Generator(held_out_seed(seed)).batch(n, variant)


def first_sequences(seed, k):
    g = Generator(seed)
    return [g.next_sequence() for _ in range(k)]


if __name__ == "__main__":
    # SEED K prints a list of K sequences; SEED,SEED,... K prints {"seed": list, ...}.
    seeds, k = [int(s) for s in sys.argv[1].split(",")], int(sys.argv[2])
    if "," in sys.argv[1]:
        print(json.dumps({str(s): first_sequences(s, k) for s in seeds}, separators=(",", ":")))
    else:
        print(json.dumps(first_sequences(seeds[0], k), separators=(",", ":")))

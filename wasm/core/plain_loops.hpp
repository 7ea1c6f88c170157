// In wasm, memset and memcpy are functions of their own: called once per short row (a head's 3
// floats, a tile row of a few dozen) they cost more than the stores they make, and clang turns
// plain copy and fill loops back into such calls. Functions marked HEADWISE_PLAIN_LOOPS keep
// their loops (and the std::fill / std::copy inlined into them) as loops.
#pragma once

#if defined(__clang__)
#define HEADWISE_PLAIN_LOOPS __attribute__((no_builtin("memset", "memcpy")))
#else
#define HEADWISE_PLAIN_LOOPS
#endif

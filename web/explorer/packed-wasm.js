// The wasm as the classic-script bundle carries it (scripts/explorer-bundle.config.js packWasm):
// deflate-raw, then base64. Unpacked by the platform's DecompressionStream (browsers, Node 18+),
// so no inflater rides in the bundle and nothing is evaluated (it runs under a strict CSP).

/** The wasm bytes of a packed string. */
export async function unpackWasm(packed) {
  const text = atob(packed);
  const deflated = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) deflated[i] = text.charCodeAt(i);
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

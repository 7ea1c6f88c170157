// Node resolve hook: tfjs-core 4.22 ships its gradient registrations only as ES modules with
// extensionless relative imports ("./gradients/Abs_grad"), which Node's ESM loader rejects.
// This adds ".js" to such specifiers inside @tensorflow packages, nothing else.
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL ?? '';
  if (parent.includes('/node_modules/@tensorflow/') && /^\.{1,2}\//.test(specifier) && !/\.[cm]?js$/.test(specifier)) {
    try {
      return await nextResolve(`${specifier}.js`, context);
    } catch {
      return nextResolve(`${specifier}/index.js`, context);
    }
  }
  return nextResolve(specifier, context);
}

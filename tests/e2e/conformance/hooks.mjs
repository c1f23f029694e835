// Resolves the conformance suite's imports of fs to fs-glob.mjs (Node 20).
const shim = new URL('./fs-glob.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL &&
      context.parentURL.includes('/@modelcontextprotocol/conformance/'))
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}

// Node 20's fs lacks globSync (added in Node 22): re-export node:fs with a
// minimal globSync that understands '*' in the last path segment.
import fs from 'node:fs';
import path from 'node:path';
export * from 'node:fs';
export default fs;
export function globSync(pattern, opts = {}) {
  if (fs.globSync) return fs.globSync(pattern, opts);
  const cwd = opts.cwd ?? process.cwd();
  const dir = path.dirname(pattern), base = path.basename(pattern);
  const re = new RegExp('^' + base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
  try { return fs.readdirSync(path.resolve(cwd, dir)).filter(f => re.test(f)).map(f => path.join(dir, f)); }
  catch { return []; }
}

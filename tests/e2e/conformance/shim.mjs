// Node 20 has no fs.globSync (Node 22 does), which the conformance suite
// imports; this loader hands the suite an fs that has one (fs-glob.mjs).
import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);

#!/usr/bin/env node
// `node bin/run.mjs <entry> [args…]`: what `npm run hub|web|worker|db:migrate` run. Starts the entry's
// ahead-of-time bundle when it is fresh, its TypeScript source through tsx otherwise
// (bin/launcher.mjs has the rule and the list of entries), in this same process.
import { ENTRIES, runEntry } from "./launcher.mjs";

const [name, ...args] = process.argv.slice(2);
if (!name || !Object.hasOwn(ENTRIES, name)) {
  process.stderr.write(`usage: node bin/run.mjs <${Object.keys(ENTRIES).join("|")}> [args…]\n`);
  process.exit(2);
}
await runEntry(name, args);

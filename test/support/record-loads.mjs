// `node --import ./test/support/record-loads.mjs dist/index.js …`: at exit, one stderr line `LOADED [...]`
// naming every file of dist/ the process loaded (test/cli-bundle.test.ts: what a command's start-up loads).
import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = [];
registerHooks({
  load(url, context, next) {
    const at = url.lastIndexOf('/dist/');
    if (url.startsWith('file:') && at !== -1) loaded.push(url.slice(at + '/dist/'.length));
    return next(url, context);
  },
});
process.on('exit', () => writeSync(2, `LOADED ${JSON.stringify(loaded)}\n`));

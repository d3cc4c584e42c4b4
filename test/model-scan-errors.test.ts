/**
 * Clear errors from scanning the model (issue 15's list): a symlink loop is named in one short line, and
 * a file name that is not UTF-8 is named as such (it used to surface as a raw ENOENT).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanModel } from '../src/workflows/local-model.js';

function model(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-scan-'));
  mkdirSync(join(dir, 'model', 'cubes'), { recursive: true });
  writeFileSync(join(dir, 'model', 'cubes', 'a.yml'), 'cubes: []\n');
  return dir;
}

describe('scanning the model', () => {
  it('names a symlink that loops back, in one short line', async () => {
    const dir = model();
    symlinkSync(join(dir, 'model'), join(dir, 'model', 'cubes', 'again'));
    const err = (await scanModel(dir).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('model-dir file model/cubes/again: got "model", expected a symlink that does not loop back to a folder that contains it');
    expect(err.message.length).toBeLessThan(200);
  });

  it('names a file name that is not UTF-8 instead of failing with ENOENT', async () => {
    const dir = model();
    // Latin-1 "café.yml": a name in bytes that are not UTF-8.
    const name = Buffer.concat([Buffer.from(join(dir, 'model', 'cubes') + '/'), Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from('.yml')]);
    writeFileSync(name, 'cubes: []\n');
    const err = (await scanModel(dir).catch((e: unknown) => e)) as Error;
    expect(err.message).not.toMatch(/ENOENT/);
    expect(err.message).toBe('model-dir file in model/cubes: got "café.yml", expected a file name in UTF-8');
  });
});

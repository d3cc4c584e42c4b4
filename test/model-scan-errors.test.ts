/**
 * Clear errors from scanning the model (issue 15's list): a symlink loop is named in one short line, and
 * a file name that is not UTF-8 is named as such (it used to surface as a raw ENOENT).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanModel } from '../src/model/local-model.js';

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

describe('hashing the model', () => {
  const euro = Buffer.from('€', 'utf8');
  // Small files are checked from one read, large ones (over the 256 KiB read) as a stream: the same answers.
  for (const size of [10, 300 * 1024]) {
    it(`hashes a ${size}-byte text file as the platform does, and refuses bytes that are not UTF-8 or one cut short at the end`, async () => {
      const dir = model();
      const body = Buffer.alloc(size, 'a');
      const file = join(dir, 'model', 'cubes', 'a.yml');
      const text = Buffer.concat([body, euro]);
      writeFileSync(file, text);
      const sha1 = (await scanModel(dir)).find((f) => f.path === 'model/cubes/a.yml')?.sha1;
      expect(sha1).toBe(createHash('sha1').update(text).digest('hex'));
      writeFileSync(file, Buffer.concat([body, Buffer.from([0xe9]), body]));
      await expect(scanModel(dir)).rejects.toThrow('model-dir file model/cubes/a.yml: got "bytes that are not UTF-8", expected a UTF-8 text file');
      writeFileSync(file, Buffer.concat([body, euro.subarray(0, 2)]));
      await expect(scanModel(dir)).rejects.toThrow('model-dir file model/cubes/a.yml: got "a truncated UTF-8 sequence at the end", expected a UTF-8 text file');
    });
  }
});

/**
 * The emulator's errors are Cube's: every model of the corpus of broken models is compiled twice, by the
 * emulator's engine (what its validate endpoint answers) and by Cube's compiler as Cube runs it
 * (test/support/reference-compile.ts), and the two lists must be equal: the same errors, in the same
 * order, with the same messages and the same file names, a YAML syntax error's line suffix included.
 * Where Cube's compiler cannot tell the file, the emulator's must be the corpus's hand-marked one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeFile } from '../packages/emulator/src/build/trees.js';
import { compileTree } from '../packages/emulator/src/engine/model.js';
import { loadBrokenModels, type BrokenModel } from './support/broken-models.js';
import { referenceCompile, type ReferenceError } from './support/reference-compile.js';

interface Compared {
  model: BrokenModel;
  emulator: { fileName: string | null; message: string }[];
  reference: ReferenceError[];
}

/** The file each error must carry: Cube's where it tells, else the file the corpus marks (`model/` prefixed like the emulator's). */
function expectedFiles(c: Compared): (string | null)[] {
  return c.reference.map((r, i) => {
    if (r.fileName !== undefined) return r.fileName === null ? null : `model/${r.fileName}`;
    const marked = c.model.intended[i];
    return marked?.reported !== undefined ? marked.reported : (marked?.file ?? null);
  });
}

describe("the emulator's errors against Cube's compiler", () => {
  const models = loadBrokenModels();
  const compared: Compared[] = [];

  beforeAll(async () => {
    for (const model of models) {
      const tree: Record<string, string> = {};
      for (const [path, text] of model.files) tree[path] = encodeFile(text);
      const emulator = (await compileTree(tree)).errors;
      const reference = await referenceCompile([...model.files].map(([path, content]) => ({ fileName: path.replace(/^model\//, ''), content })));
      compared.push({ model, emulator, reference });
    }
  }, 900_000);

  it('gives the same list for every model: errors, order, messages and file names', () => {
    const differing = compared.filter((c) => {
      const files = expectedFiles(c);
      return (
        c.emulator.length !== c.reference.length ||
        c.emulator.some((e, i) => e.message !== c.reference[i]!.message || e.fileName !== files[i])
      );
    });
    console.log(`emulator = compiler on ${compared.length - differing.length} of ${compared.length} models`);
    for (const c of differing) {
      const files = expectedFiles(c);
      expect({ model: c.model.name, errors: c.emulator }).toEqual({
        model: c.model.name,
        errors: c.reference.map((r, i) => ({ fileName: files[i], message: r.message })),
      });
    }
    expect(differing).toHaveLength(0);
  });

  it("names a YAML syntax error's file with the parser's line, and ends the compile there as Cube does", () => {
    const syntax = compared.filter((c) => c.emulator.some((e) => /\.ya?ml:\d+$/.test(e.fileName ?? '')));
    expect(syntax.length).toBeGreaterThanOrEqual(8);
    for (const c of syntax) {
      expect(c.emulator, c.model.name).toHaveLength(1);
      const [error] = c.emulator;
      expect(error!.fileName, c.model.name).toBe(`model/${c.reference[0]!.fileName}`);
      expect(error!.message).toContain(`(${error!.fileName!.split(':').at(-1)}:`);
    }
  });

  it('names the view of a folder error (Cube names none)', () => {
    const folder = compared.flatMap((c) => c.emulator.filter((e) => /folder/i.test(e.message)).map((e) => ({ model: c.model.name, ...e })));
    expect(folder.length).toBeGreaterThanOrEqual(5);
    for (const e of folder) expect(e.fileName, `${e.model}: ${e.message}`).toMatch(/^model\/\w+\.(yml|js)$/);
  });
});

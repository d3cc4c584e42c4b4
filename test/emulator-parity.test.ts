/**
 * The emulator's errors are Cube's: every model of the corpus of broken models is compiled twice, by the
 * emulator's engine (what its validate endpoint answers) and by Cube's compiler as Cube runs it
 * (test/support/reference-compile.ts), and the two lists must be equal: the same errors, in the same
 * order, with the same messages and the same file names, a YAML syntax error's line suffix included.
 * Where Cube's compiler cannot tell the file, the emulator's must be the corpus's hand-marked one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBrokenModels } from './support/broken-models.js';
import { compareWithCompiler, type Parity } from './support/reference-compile.js';

describe("the emulator's errors against Cube's compiler", () => {
  const models = loadBrokenModels();
  const compared: Parity[] = [];

  beforeAll(async () => {
    for (const model of models) compared.push(await compareWithCompiler(model));
  }, 900_000);

  it('gives the same list for every model: errors, order, messages and file names', () => {
    const differing = compared.filter((c) => !c.equal);
    console.log(`emulator = compiler on ${compared.length - differing.length} of ${compared.length} models`);
    for (const c of differing) expect({ model: c.model.name, errors: c.emulator }).toEqual({ model: c.model.name, errors: c.expected });
    expect(compared.length).toBeGreaterThanOrEqual(120);
  });

  it("names a YAML syntax error's file with the parser's line, and ends the compile there as Cube does", () => {
    const syntax = compared.filter((c) => c.emulator.some((e) => /\.ya?ml:\d+$/.test(e.fileName ?? '')));
    expect(syntax.length).toBeGreaterThanOrEqual(8);
    for (const c of syntax) {
      expect(c.emulator, c.model.name).toHaveLength(1);
      const [error] = c.emulator;
      expect(error!.message).toContain(`(${error!.fileName!.split(':').at(-1)}:`);
    }
    // Other files join and include the broken one: Cube stops at the syntax error, so does the emulator.
    expect(syntax.map((c) => c.model.name)).toContain('151-echo-yml-syntax-error');
  });

  it('names the view of a folder error (Cube names none)', () => {
    const folder = compared.flatMap((c) => c.emulator.filter((e) => /folder/i.test(e.message)).map((e) => ({ model: c.model.name, ...e })));
    expect(folder.length).toBeGreaterThanOrEqual(5);
    for (const e of folder) expect(e.fileName, `${e.model}: ${e.message}`).toMatch(/^model\/\w+\.(yml|js)$/);
  });
});

/**
 * What production holds and serves, read as the proof after a merge and the drift watch read it (issue 37),
 * against the emulator over HTTPS: the members model files declare public are the ones production's
 * `/meta` lists, read whole (the empty context and every group the policies name), for models of several
 * shapes, so an unchanged model is never drift; a file production holds with CRLF line endings, dotfiles
 * and `exclude`d files are no difference; a file added, removed or changed is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { layerDigest, memberChanges, membersOfModel } from '../src/impact/layer-digest.js';
import { policyGroups } from '../src/impact/access/layer.js';
import { excludeFilter, sha1Of, type LocalFile } from '../src/model/local-model.js';
import { deployTarget } from '../src/operations/branch-build.js';
import type { OpContext } from '../src/operations/context.js';
import { compareFiles, compareWithHashes, productionLayer } from '../src/operations/production-state.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { ACCESS_MODEL } from './support/access-model.js';
import { NETWORK_MODEL } from './support/network-model.js';
import { emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca });
const withConfig = (tree: Record<string, string>) => ({ 'cube.js': DEMO_MODEL['cube.js'] as string, ...tree });
const modelOf = (tree: Record<string, string>) => modelDefinition(new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/'))));
/** A checkout's files as the walk reads them (bytes in memory). */
const local = (tree: Record<string, string>): LocalFile[] =>
  Object.entries(tree).map(([path, text]) => {
    const bytes = Buffer.from(text);
    return { path, abs: '', size: bytes.length, bytes, sha1: sha1Of(bytes) };
  });

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

describe("production's layer against the model files", () => {
  for (const [name, tree] of [
    ['the demo model', DEMO_MODEL],
    ['a model with access policies (groups, masks, row filters)', withConfig(ACCESS_MODEL)],
    ['a model whose every view is granted to groups only', withConfig(NETWORK_MODEL)],
  ] as const) {
    it(`${name}: production's /meta, read whole, lists exactly the members the files declare public`, async () => {
      await uploadTree(fx.admin, 1, 'main', tree);
      const def = modelOf(tree);
      const layer = await productionLayer(ctx(), policyGroups(def));
      expect(layer.problem).toBeUndefined();
      const declared = membersOfModel(def);
      expect(memberChanges(layer.members!, declared)).toEqual([]);
      expect(layer.digest).toBe(layerDigest(declared));
      expect(declared.length).toBeGreaterThan(3);
    }, 60_000);
  }

  it("names what production's layer holds relative to the files: a member removed from the files is one production still has", async () => {
    await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
    const def = modelOf(DEMO_MODEL);
    const layer = await productionLayer(ctx(), []);
    const fewer = membersOfModel(def).filter((m) => m.name !== 'orders.count');
    expect(memberChanges(layer.members!, fewer)).toEqual([{ member: 'orders.count', change: 'added' }]);
  }, 60_000);
});

describe("production's files against a checkout", () => {
  it('the same model is no change, also with CRLF line endings on the platform, dotfiles there, and exclude`d files', async () => {
    const crlf = DEMO_MODEL['model/cubes/orders.yml']!.replace(/\n/g, '\r\n');
    await uploadTree(fx.admin, 1, 'main', {
      ...DEMO_MODEL,
      'model/cubes/orders.yml': crlf,
      '.gitignore': 'node_modules\n',
      'model/generated/by_platform.yml': 'cubes: []\n',
    });
    const target = await deployTarget(ctx());
    const excluded = excludeFilter(['model/generated/**']);
    expect(await compareFiles(ctx(), target, local(DEMO_MODEL), excluded)).toEqual([]);
    // By hashes only (a record, no checkout to read), the CRLF copy is a change: its bytes differ.
    const hashes = Object.fromEntries(local(DEMO_MODEL).map((f) => [f.path, f.sha1]));
    expect(await compareWithHashes(ctx(), target, hashes, excluded)).toEqual([{ path: 'model/cubes/orders.yml', change: 'changed' }]);
  }, 60_000);

  it('a file production has that the checkout lacks is added, one it lacks removed, one whose text differs changed', async () => {
    const extra = 'cubes:\n  - name: extra\n    sql_table: public.extra\n    measures:\n      - name: count\n        type: count\n';
    await uploadTree(fx.admin, 1, 'main', { ...DEMO_MODEL, 'model/cubes/extra.yml': extra });
    const target = await deployTarget(ctx());
    const [first, ...rest] = Object.keys(DEMO_MODEL)
      .filter((p) => p.startsWith('model/'))
      .sort();
    const checkout = { ...DEMO_MODEL, [first!]: `${DEMO_MODEL[first!]}\n# edited\n`, 'model/cubes/gone.yml': 'cubes: []\n' };
    expect(rest.length).toBeGreaterThan(0);
    expect(await compareFiles(ctx(), target, local(checkout))).toEqual([
      { path: first, change: 'changed' },
      { path: 'model/cubes/extra.yml', change: 'added' },
      { path: 'model/cubes/gone.yml', change: 'removed' },
    ]);
  }, 60_000);
});

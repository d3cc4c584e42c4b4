/**
 * The offline check of the `agents/` folder in a preview (src/model/agents/, docs/agents.md): no platform
 * call of its own. The names are checked against the preview's compiled model (`/meta`, as validation
 * compiled it) when the impact read it whole, with production's as the base (a name only production
 * has is a removal); else against the pull request's model files, with no base.
 */
import { agentsPaths, checkAgents, DEFAULT_AGENTS_FOLDER, namesFromFiles, namesFromMeta, type AgentsCheck, type ModelNames } from '../model/agents/index.js';
import { modelTexts, type ModelEntry } from '../model/local-model.js';
import { modelFilesOf, type FileTexts } from '../model/model-files.js';
import type { PreviewOutcome } from './preview-types.js';
import { repoPath } from './validate.js';

/** Production's names, placed where its model files define them (a removed view's error goes on its definition). */
function placed(base: ModelNames, files: FileTexts | undefined): ModelNames {
  if (!files) return base;
  const local = namesFromFiles(files);
  for (const [key, e] of base.entities) {
    const at = local.entities.get(key)?.at;
    if (at) e.at = at;
  }
  return base;
}

/** The check of a preview's folder, its findings on repository paths; undefined when the model has no `agents/` file. */
export async function agentsCheckOf(
  local: readonly ModelEntry[],
  modelDir: string,
  o: Pick<PreviewOutcome, 'impact'>,
  modelFiles?: FileTexts,
  folder = DEFAULT_AGENTS_FOLDER,
): Promise<AgentsCheck | undefined> {
  const c = await check(local, o, folder, modelFiles);
  if (c) c.findings = c.findings.map((f) => ({ ...f, file: repoPath(modelDir, f.file) }));
  return c;
}

async function check(
  local: readonly ModelEntry[],
  o: Pick<PreviewOutcome, 'impact'>,
  folder: string,
  modelFiles?: FileTexts,
): Promise<AgentsCheck | undefined> {
  const paths = new Set(
    agentsPaths(
      local.map((f) => f.path),
      folder,
    ),
  );
  if (!paths.size) return undefined;
  const texts = await modelTexts(local, (p) => paths.has(p));
  const sources = o.impact?.sources;
  // A layer read only in part (access policies the reads did not cover) would show names as missing.
  const whole = !!sources && (!o.impact?.layer || o.impact.layer.whole);
  // The layer every read listed, not the empty context's alone: a view a policy hides from no group is no removal.
  const [head, base] = [sources?.layers?.head ?? sources?.headMeta, sources?.layers?.base ?? sources?.baseMeta];
  if (head && base && whole) return checkAgents(texts, { head: namesFromMeta(head), base: placed(namesFromMeta(base), sources?.files?.base) }, folder);
  const files = modelFiles ?? modelFilesOf(await modelTexts(local, (p) => /\.(ya?ml|[cm]?js|jinja|py)$/i.test(p)));
  return checkAgents(texts, { head: namesFromFiles(files) }, folder);
}

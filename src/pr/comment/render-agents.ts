/**
 * The "Agents" section of the PR comment and the job summary: the offline check of the `agents/` folder
 * (src/model/agents/). Its headline counts what the folder defines and what was found, and says which model
 * the names were checked against; then the names the pull request removes that the agents use, with the
 * agents, certified queries and eval questions they break; then each finding on its file and line.
 */
import type { AgentsCheck } from '../../model/agents/index.js';
import { plural } from '../../report/plural.js';
import { code, cut, link, pathInUrl, text } from './markdown.js';

export interface AgentsFindingView {
  file: string;
  line: number;
  level: 'error' | 'warning';
  message: string;
}

export interface AgentsBrokenView {
  name: string;
  kind: 'view' | 'cube' | 'member';
  agents: string[];
  certifiedQueries: string[];
  evalQuestions: string[];
}

export interface AgentsView {
  folder: string;
  source: 'compiled' | 'local';
  agents: number;
  certifiedQueries: number;
  evalQuestions: number;
  errors: number;
  warnings: number;
  /** The first findings (the view keeps some; the job summary has them all). */
  findings: AgentsFindingView[];
  broken: AgentsBrokenView[];
}

/** Findings and broken names the view keeps. */
export const VIEW_AGENTS_FINDINGS = 20;
export const VIEW_AGENTS_BROKEN = 10;
const COMMENT_FINDINGS = 10;

export function agentsView(c: AgentsCheck): AgentsView {
  return {
    folder: c.folder.folder,
    source: c.source,
    agents: c.counts.agents,
    certifiedQueries: c.counts.certifiedQueries,
    evalQuestions: c.counts.evalQuestions,
    errors: c.findings.filter((f) => f.level === 'error').length,
    warnings: c.findings.filter((f) => f.level === 'warning').length,
    findings: c.findings.map(({ file, line, level, message }) => ({ file, line, level, message })),
    broken: c.broken.map((b) => ({ ...b })),
  };
}

/** The view as the comment keeps it: the first rows, outside text cut short. */
export function keptAgentsView(v: AgentsView): AgentsView {
  const names = (xs: string[]) => xs.slice(0, 10).map((x) => cut(x, 100));
  return {
    ...v,
    folder: cut(v.folder, 200),
    findings: v.findings.slice(0, VIEW_AGENTS_FINDINGS).map((f) => ({ ...f, file: cut(f.file, 300), message: cut(f.message, 500) })),
    broken: v.broken.slice(0, VIEW_AGENTS_BROKEN).map((b) => ({
      ...b,
      name: cut(b.name, 200),
      agents: names(b.agents),
      certifiedQueries: names(b.certifiedQueries),
      evalQuestions: names(b.evalQuestions),
    })),
  };
}

export interface AgentsRenderOptions {
  target: 'comment' | 'summary';
  /** Links to a finding's line at the head commit. */
  repoUrl?: string;
  headSha?: string;
}

/** The section's first line. */
export function agentsHeadline(v: AgentsView): string {
  const defines = [
    plural(v.agents, 'agent'),
    plural(v.certifiedQueries, 'certified query', 'certified queries'),
    plural(v.evalQuestions, 'eval question'),
  ].join(', ');
  const against = v.source === 'compiled' ? "the preview's compiled model" : "the pull request's model files";
  const found =
    v.errors || v.warnings ? [v.errors ? `❌ ${plural(v.errors, 'error')}` : '', v.warnings ? `⚠️ ${plural(v.warnings, 'warning')}` : ''] : ['✅ no findings'];
  return `**Agents** (${code(`${v.folder}/`)}: ${defines}; names checked against ${against}): ${found.filter(Boolean).join(', ')}`;
}

const names = (label: string, xs: string[]) => (xs.length ? `${label} ${xs.map((x) => code(x)).join(', ')}` : '');

function brokenLine(b: AgentsBrokenView): string {
  const who = [names('agents', b.agents), names('certified queries', b.certifiedQueries), names('eval questions', b.evalQuestions)].filter(Boolean);
  return `- ${b.kind} ${code(b.name)}, removed by this pull request, breaks ${who.length ? who.join('; ') : 'nothing the folder names'}`;
}

function findingLine(f: AgentsFindingView, o: AgentsRenderOptions): string {
  const where = `${f.file}:${f.line}`;
  // A path GitHub can link at a commit: relative to the repository, not a runner's absolute path.
  const linkable = !!o.repoUrl && !!o.headSha && !/^(?:\/|[A-Za-z]:[\\/])/.test(f.file);
  const place = linkable ? link(where, `${o.repoUrl}/blob/${o.headSha}/${pathInUrl(f.file)}#L${f.line}`) : code(where);
  return `- ${f.level === 'error' ? '❌' : '⚠️'} ${place}: ${text(cut(f.message, 500))}`;
}

export function renderAgents(v: AgentsView, o: AgentsRenderOptions, full?: AgentsView): string[] {
  const all = o.target === 'summary' && full ? full : v;
  const out = [agentsHeadline(all), ''];
  if (all.broken.length) out.push(...all.broken.map(brokenLine), '');
  const shown = o.target === 'comment' ? all.findings.slice(0, COMMENT_FINDINGS) : all.findings;
  if (shown.length) out.push(...shown.map((f) => findingLine(f, o)), '');
  const more = all.errors + all.warnings - shown.length;
  if (more > 0) out.push(`…and ${plural(more, 'more finding')}: the job summary lists them all.`, '');
  return out;
}

/**
 * The agents folder against the pull request's model: every view an agent may use (`accessible_views`)
 * and every cube, view and member a certified query's or eval question's SQL names exists there. A name
 * the base model has and the pull request's does not is a removal: it is named with the agents, certified
 * queries and questions it breaks (as the impact names the reports a change breaks), and a removed view an
 * agent lists is an error on the view's definition in the base model too.
 */
import type { ModelEntity, ModelNames } from './model-names.js';
import { sqlNames } from './sql-names.js';
import type { AgentsFinding, AgentsFolder, CertifiedQuery, Place } from './types.js';

/** A name the pull request removes that the agents use, with who uses it. */
export interface BrokenName {
  /** `view`, `cube`, or `view.member`. */
  name: string;
  kind: 'view' | 'cube' | 'member';
  agents: string[];
  certifiedQueries: string[];
  evalQuestions: string[];
}

export interface AgentsCheck {
  folder: AgentsFolder;
  /** Which model the names were checked against: the compiled one (`/meta`) or the local files. */
  source: ModelNames['source'];
  /** The reading's findings and the model's, by file and line. */
  findings: AgentsFinding[];
  broken: BrokenName[];
  counts: { agents: number; certifiedQueries: number; evalQuestions: number; sqlChecked: number; sqlNotRead: number };
}

/** The line of a query's text where `name` first appears (a YAML block's text starts on the line after its key). */
function lineOf(sqlAt: Place, sql: string, name: string, block: boolean): number {
  const re = new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_]|$)`, 'i');
  const i = sql.split('\n').findIndex((l) => re.test(l));
  return sqlAt.line + (block ? 1 : 0) + Math.max(0, i);
}

interface Use {
  kind: 'certified query' | 'eval question';
  name: string;
  sql: string;
  at: Place;
  /** The text is a YAML block under its key (its first line is the key's next). */
  block: boolean;
}

export async function checkAgainstModel(folder: AgentsFolder, head: ModelNames, base?: ModelNames): Promise<AgentsCheck> {
  const findings = [...folder.findings];
  const broken = new Map<string, BrokenName>();
  const brokenOf = (name: string, kind: BrokenName['kind']) => {
    let b = broken.get(name);
    if (!b) broken.set(name, (b = { name, kind, agents: [], certifiedQueries: [], evalQuestions: [] }));
    return b;
  };
  const error = (at: Place, rule: string, message: string) => findings.push({ ...at, level: 'error', rule, message });
  const lacks = head.complete ? 'which the model does not have' : undefined;
  const against = head.source === 'compiled' ? "the pull request's compiled model" : "the pull request's model files";
  const removed = (name: string, member?: string): ModelEntity | undefined => {
    const e = base?.entities.get(name.toLowerCase());
    return e && (!member || e.members.has(member.toLowerCase())) ? e : undefined;
  };

  for (const agent of folder.agents)
    for (const v of agent.accessibleViews) {
      const e = head.entities.get(v.name.toLowerCase());
      if (e?.type === 'view') continue;
      if (e) {
        error(v.at, 'not-a-view', `agent ${agent.name} lists ${v.name} in \`accessible_views\`, which is a cube in ${against}; expected a view`);
        continue;
      }
      const gone = removed(v.name);
      if (gone) {
        brokenOf(gone.name, 'view').agents.push(agent.name);
        error(v.at, 'removed-view', `agent ${agent.name} lists view ${v.name} in \`accessible_views\`, which this pull request removes`);
        if (gone.at)
          error(
            gone.at,
            'removed-view',
            `view ${gone.name}, removed by this pull request, is in \`accessible_views\` of agent ${agent.name} (${v.at.file}:${v.at.line})`,
          );
      } else if (lacks) error(v.at, 'unknown-view', `agent ${agent.name} lists view ${v.name} in \`accessible_views\`, ${lacks} (checked against ${against})`);
    }

  const uses: Use[] = [];
  const queryUse = (q: CertifiedQuery): Use | undefined =>
    q.sql && q.sqlAt
      ? { kind: 'certified query', name: q.name, sql: q.sql, at: q.sqlAt, block: !q.sqlAt.file.match(/\.(md|markdown)$/i) && q.sql.includes('\n') }
      : undefined;
  for (const q of folder.certifiedQueries) {
    const u = queryUse(q);
    if (u) uses.push(u);
  }
  for (const q of folder.evalQuestions)
    if (q.sql) uses.push({ kind: 'eval question', name: q.name, sql: q.sql.text, at: q.sql.at, block: q.sql.text.includes('\n') });

  let sqlChecked = 0;
  let sqlNotRead = 0;
  /** The names each use breaks, to carry a certified query's to the questions that name it. */
  const breaksOf = new Map<string, string[]>();
  for (const u of uses) {
    const names = await sqlNames(u.sql);
    const what = `${u.kind} ${u.name}`;
    const line = (name: string): Place => ({ file: u.at.file, line: lineOf(u.at, u.sql, name, u.block) });
    if (names.problem) {
      sqlNotRead++;
      findings.push({
        ...u.at,
        level: 'warning',
        rule: 'sql-not-read',
        message: `${what}: its SQL could not be read (${names.problem}); its names are not checked`,
      });
      continue;
    }
    sqlChecked++;
    const own: string[] = [];
    const record = (name: string, kind: BrokenName['kind']) => {
      const b = brokenOf(name, kind);
      (u.kind === 'certified query' ? b.certifiedQueries : b.evalQuestions).push(u.name);
      own.push(name);
    };
    for (const t of names.tables) {
      if (head.entities.has(t.toLowerCase())) continue;
      const gone = removed(t);
      if (gone) {
        record(gone.name, gone.type);
        error(line(t), 'removed-table', `${what} queries ${gone.type} ${gone.name}, which this pull request removes`);
      } else if (lacks) error(line(t), 'unknown-table', `${what} queries ${t}, ${lacks} as a cube or view (checked against ${against})`);
    }
    for (const c of names.columns) {
      const e = head.entities.get(c.table.toLowerCase());
      if (!e || !e.membersKnown || e.members.has(c.column.toLowerCase())) continue;
      const gone = removed(c.table, c.column);
      const full = `${e.name}.${c.column}`;
      if (gone) {
        record(full, 'member');
        error(line(c.column), 'removed-member', `${what} names ${full}, which this pull request removes`);
      } else error(line(c.column), 'unknown-member', `${what} names ${full}, which ${e.type} ${e.name} does not have (checked against ${against})`);
    }
    if (u.kind === 'certified query') breaksOf.set(u.name, own);
  }
  // A question whose ground truth is a broken certified query breaks with it.
  for (const q of folder.evalQuestions) {
    const ref = q.certifiedQuery;
    for (const name of ref ? (breaksOf.get(ref.name) ?? []) : []) broken.get(name)?.evalQuestions.push(q.name);
  }
  // The agents that may use a removed member: those whose views it was in.
  for (const b of broken.values()) {
    if (b.kind !== 'member') continue;
    const view = b.name.slice(0, b.name.indexOf('.')).toLowerCase();
    for (const a of folder.agents) if (a.accessibleViews.some((v) => v.name.toLowerCase() === view) && !b.agents.includes(a.name)) b.agents.push(a.name);
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return {
    folder,
    source: head.source,
    findings,
    broken: [...broken.values()].sort((a, b) => a.name.localeCompare(b.name)),
    counts: {
      agents: folder.agents.length,
      certifiedQueries: folder.certifiedQueries.length,
      evalQuestions: folder.evalQuestions.length,
      sqlChecked,
      sqlNotRead,
    },
  };
}

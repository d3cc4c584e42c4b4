/**
 * The `agents/` folder of a Cube project read into one typed structure: spaces, agents, rules,
 * certified queries and eval questions, each with the file and line that defines it. The lint reads it
 * (./lint.ts, ./model-check.ts); the eval delta to come reuses it (the questions, their ground truths).
 */

/** A place in the repository: a path under model-dir and a 1-based line. */
export interface Place {
  file: string;
  line: number;
}

/** A name as written, and where. */
export interface Named {
  name: string;
  at: Place;
}

/** The space every rule, certified query and question without `space` belongs to; always provisioned. */
export const AUTO = 'auto';

export interface Space extends Named {
  /** `auto` is provisioned by the platform, whether or not a file declares it. */
  implicit?: boolean;
}

export interface Agent extends Named {
  space: string;
  /** Where `space:` is written (the name's place for the flat form's `auto` agent). */
  spaceAt: Place;
  accessibleViews: Named[];
  runtime?: string;
  memoryMode?: string;
}

export interface Rule extends Named {
  space: string;
  type?: string;
  prompt?: string;
}

export interface CertifiedQuery extends Named {
  space: string;
  userRequest?: string;
  sql?: string;
  /** The line the SQL's text starts on (a Markdown body's first line, a YAML value's line). */
  sqlAt?: Place;
}

export interface EvalQuestion extends Named {
  space: string;
  question?: string;
  /** The ground truth: a certified query of the question's space, by name ... */
  certifiedQuery?: Named;
  /** ... or inline SQL for Cube's SQL API. */
  sql?: { text: string; at: Place };
}

export type FindingLevel = 'error' | 'warning';

/** One thing the check found, on its file and line. */
export interface AgentsFinding extends Place {
  level: FindingLevel;
  /** A short id of the rule that found it (`unknown-view`, `duplicate-agent`, …): docs/agents.md lists them. */
  rule: string;
  message: string;
}

export interface AgentsFolder {
  /** The folder, relative to model-dir (`agents`, or what CUBE_CLOUD_AGENTS_CONFIG_PATH names). */
  folder: string;
  /** Its YAML and Markdown files, in path order. */
  files: string[];
  spaces: Space[];
  agents: Agent[];
  rules: Rule[];
  certifiedQueries: CertifiedQuery[];
  evalQuestions: EvalQuestion[];
  /** What reading found wrong (shapes, names, references). */
  findings: AgentsFinding[];
}

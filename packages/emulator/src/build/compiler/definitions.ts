/** What the compiler reads a model file into: entities (cubes, views), their members, joins and view sources. */

export const IDENTIFIER = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const MEASURE_TYPES = [
  'count',
  'count_distinct',
  'count_distinct_approx',
  'sum',
  'avg',
  'min',
  'max',
  'number',
  'string',
  'time',
  'boolean',
  'number_agg',
  'rank',
] as const;
/** camelCase spellings the platform also accepts, normalised to the snake_case name. */
export const MEASURE_TYPE_ALIASES: Record<string, string> = {
  countDistinct: 'count_distinct',
  countDistinctApprox: 'count_distinct_approx',
  numberAgg: 'number_agg',
};
export const DIMENSION_TYPES = ['string', 'number', 'time', 'boolean', 'geo'] as const;
export const RELATIONSHIPS = ['one_to_one', 'one_to_many', 'many_to_one', 'belongs_to', 'has_many', 'has_one'] as const;
export const RELATIONSHIP_ALIASES: Record<string, string> = {
  oneToOne: 'one_to_one',
  oneToMany: 'one_to_many',
  manyToOne: 'many_to_one',
  belongsTo: 'belongs_to',
  hasMany: 'has_many',
  hasOne: 'has_one',
};

export type MemberKind = 'measure' | 'dimension' | 'segment';
export const MEMBER_LISTS: ReadonlyArray<{ key: string; kind: MemberKind }> = [
  { key: 'measures', kind: 'measure' },
  { key: 'dimensions', kind: 'dimension' },
  { key: 'segments', kind: 'segment' },
];

export interface MemberDef {
  kind: MemberKind;
  name: string;
  type: string;
  title?: string;
  sql?: string;
  primaryKey: boolean;
  line: number;
}

export interface JoinDef {
  name: string;
  line: number;
}

export interface IncludeDef {
  name: string;
  alias?: string;
  title?: string;
  line: number;
}

export interface ViewSource {
  path: string[];
  pathText: string;
  pathLine: number;
  includes: '*' | IncludeDef[];
  includesLine: number;
  excludes: Array<{ name: string; line: number }>;
  prefix: boolean;
  alias?: string;
}

/** An old-form view member reference: `measures: [orders.count]`. */
export interface ViewRef {
  kind: MemberKind;
  path: string[];
  member: string;
  raw: string;
  line: number;
}

export interface EntityDef {
  kind: 'cube' | 'view';
  /** Undefined when the name is missing or not an identifier (already reported). */
  name?: string;
  /** Set for entities read from a file with YAML syntax errors: they resolve references but report nothing. */
  muted?: boolean;
  /** The name as written, for messages about an entity with a bad name. */
  label: string;
  file: string;
  line: number;
  title?: string;
  sql?: string;
  sqlTable?: string;
  extendsRef?: { name: string; line: number };
  members: MemberDef[];
  joins: JoinDef[];
  joinsLine?: number;
  sources: ViewSource[];
  refs: ViewRef[];
}

export interface Effective {
  entity: EntityDef;
  members: MemberDef[];
  joins: JoinDef[];
  sql?: string;
  sqlTable?: string;
}

export interface RawError {
  file: string | null;
  line: number | null;
  text: string;
}

/**
 * `${{ }}` evaluation the way the GitHub runner does it, on top of @actions/expressions (GitHub's own
 * lexer, parser and evaluator). Adds what the package leaves to the runner: the template scanner (literal
 * text mixed with expressions), the status functions (`success()`, `failure()`, `cancelled()`,
 * `always()`), `if:` semantics (an implicit `success() &&`), and the string conversion of results.
 * No vitest in here: a demo script can import it.
 */
import { Evaluator, Lexer, Parser, data, type Expr } from '@actions/expressions';

/** Status of the job (or, inside a composite action, of the action) that the status functions read. */
export type JobStatus = 'success' | 'failure' | 'cancelled';

/** Named contexts (`github`, `env`, `inputs`, `steps`, ...) as plain JSON-like values. Only these names parse. */
export type Contexts = Record<string, unknown>;

export interface EvaluateOptions {
  /** What `success()`, `failure()` and `cancelled()` answer from; default `success`. */
  status?: JobStatus;
}

/** One piece of a template: literal text or the inside of one `${{ }}`. */
export type TemplateSegment = { literal: string } | { expression: string };

/** A function the evaluator can call: the shape @actions/expressions expects. */
interface FunctionDefinition {
  name: string;
  minArgs: number;
  maxArgs: number;
  call: (...args: data.ExpressionData[]) => data.ExpressionData;
}

const STATUS_FUNCTIONS = ['success', 'failure', 'cancelled', 'always'];

/** Error of a template or expression, naming the text it came from. */
export class ExpressionTemplateError extends Error {
  override name = 'ExpressionTemplateError';
}

/** Convert a plain value to the evaluator's data model (undefined becomes null). */
export function toExpressionData(value: unknown): data.ExpressionData {
  if (value === undefined) return new data.Null();
  return JSON.parse(JSON.stringify(value), data.reviver) as data.ExpressionData;
}

/** Convert the evaluator's data back to a plain value. */
export function fromExpressionData(value: data.ExpressionData): unknown {
  return JSON.parse(JSON.stringify(value, data.replacer)) as unknown;
}

function functionsFor(status: JobStatus): Map<string, FunctionDefinition> {
  const fns: FunctionDefinition[] = [
    { name: 'success', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === 'success') },
    { name: 'failure', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === 'failure') },
    { name: 'cancelled', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status === 'cancelled') },
    { name: 'always', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(true) },
    {
      name: 'hashFiles',
      minArgs: 1,
      maxArgs: 255,
      call: () => {
        throw new Error('hashFiles() is not supported by the test harness');
      },
    },
  ];
  return new Map(fns.map((f) => [f.name.toLowerCase(), f]));
}

/** Parse one expression (the inside of `${{ }}`) against the given context names. */
export function parseExpression(expression: string, contextNames: string[]): Expr {
  const functions = [...functionsFor('success').values()];
  try {
    const tokens = new Lexer(expression).lex().tokens;
    const tree = new Parser(tokens, contextNames, functions).parse() as Expr | undefined;
    if (!tree) throw new Error('An expression was expected');
    return tree;
  } catch (error) {
    throw new ExpressionTemplateError(`${(error as Error).message} (expression: ${expression})`, { cause: error });
  }
}

/** Evaluate one expression (no `${{ }}` around it) to the evaluator's data. */
export function evaluateExpression(expression: string, contexts: Contexts, options: EvaluateOptions = {}): data.ExpressionData {
  const tree = parseExpression(expression.trim(), Object.keys(contexts));
  // Only the contexts the text names are converted (a copy each, the step outputs and event included):
  // converting all of them for every expression was a tenth of a demo's CPU. The rest read as null.
  const named = new Set(expression.toLowerCase().match(/[a-z_][\w-]*/g));
  const dict = new data.Dictionary(
    ...Object.entries(contexts).map(([key, value]) => ({ key, value: named.has(key.toLowerCase()) ? toExpressionData(value) : new data.Null() })),
  );
  try {
    // A context that exists but holds nothing evaluates to null, as on the runner.
    return new Evaluator(tree, dict, functionsFor(options.status ?? 'success')).evaluate() ?? new data.Null();
  } catch (error) {
    throw new ExpressionTemplateError(`${(error as Error).message} (expression: ${expression.trim()})`, { cause: error });
  }
}

/**
 * Split a template into literal text and expressions, as the runner's template reader does: `}}` inside a
 * single-quoted string literal does not close the expression; an unclosed `${{` is an error.
 */
export function parseTemplate(text: string): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let index = 0;
  while (index < text.length) {
    const start = text.indexOf('${{', index);
    if (start < 0) {
      segments.push({ literal: text.slice(index) });
      break;
    }
    if (start > index) segments.push({ literal: text.slice(index, start) });
    let end = -1;
    let inString = false;
    for (let i = start + 3; i < text.length; i++) {
      if (text[i] === "'") inString = !inString;
      else if (!inString && text[i] === '}' && text[i - 1] === '}' && i - 1 >= start + 3) {
        end = i;
        break;
      }
    }
    if (end < 0) {
      throw new ExpressionTemplateError(
        `The expression is not closed. An unescaped \${{ sequence was found, but the closing }} sequence was not found. (value: ${text})`,
      );
    }
    const expression = text.slice(start + 3, end - 1).trim();
    if (expression === '') throw new ExpressionTemplateError(`An expression was expected (value: ${text})`);
    segments.push({ expression });
    index = end + 1;
  }
  return segments;
}

/** True when the text holds a `${{`. */
export function hasExpression(text: string): boolean {
  return text.includes('${{');
}

/**
 * Evaluate a template to a value: a lone `${{ x }}` keeps its type (object, boolean, number...); literal
 * text mixed with expressions is a string, each expression converted as `format()` does.
 */
export function evaluateTemplateValue(text: string, contexts: Contexts, options: EvaluateOptions = {}): unknown {
  const segments = parseTemplate(text);
  const only = segments.length === 1 ? segments[0] : undefined;
  if (only && 'expression' in only) return fromExpressionData(evaluateExpression(only.expression, contexts, options));
  return segments.map((s) => ('literal' in s ? s.literal : evaluateExpression(s.expression, contexts, options).coerceString())).join('');
}

/**
 * Evaluate a template to a string, as for `with:`, `env:` and `run:` values: null is '', booleans and
 * numbers print as the runner prints them; a lone expression giving an object or array is an error
 * (inside literal text it prints `Object` / `Array`, as `format()` does).
 */
export function evaluateTemplate(text: string, contexts: Contexts, options: EvaluateOptions = {}): string {
  const segments = parseTemplate(text);
  const only = segments.length === 1 ? segments[0] : undefined;
  if (only && 'expression' in only) {
    const value = evaluateExpression(only.expression, contexts, options);
    if (value.kind === data.Kind.Dictionary) throw new ExpressionTemplateError(`A mapping was not expected (value: ${text})`);
    if (value.kind === data.Kind.Array) throw new ExpressionTemplateError(`A sequence was not expected (value: ${text})`);
    return value.coerceString();
  }
  return segments.map((s) => ('literal' in s ? s.literal : evaluateExpression(s.expression, contexts, options).coerceString())).join('');
}

/** True when the expression calls a status function anywhere (then no implicit `success() &&`). */
function callsStatusFunction(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  const n = node as Record<string, unknown>;
  const fn = n['functionName'] as { lexeme?: string } | undefined;
  if (fn?.lexeme && STATUS_FUNCTIONS.includes(fn.lexeme.toLowerCase())) return true;
  const children = [n['args'], n['left'], n['right'], n['expr'], n['index'], n['group']].flatMap((c) => (Array.isArray(c) ? c : [c]));
  return children.some(callsStatusFunction);
}

/** Truthiness of an evaluated value, as the runner sees it. */
export function isTruthy(value: data.ExpressionData): boolean {
  switch (value.kind) {
    case data.Kind.Null:
      return false;
    case data.Kind.Boolean:
      return value.value;
    case data.Kind.Number: {
      const n = value.value;
      return n !== 0 && !Number.isNaN(n);
    }
    case data.Kind.String:
      return value.value.length > 0;
    default:
      return true;
  }
}

/**
 * Evaluate an `if:` condition. Bare (`github.x == 'y'`) or wrapped whole (`${{ ... }}`); without a status
 * function it means `success() && (...)`. An empty condition is `success()`. A condition that mixes
 * literal text with `${{ }}` is a string, hence true when not empty: the runner's well-known trap.
 */
export function evaluateCondition(condition: string | boolean | number | null | undefined, contexts: Contexts, options: EvaluateOptions = {}): boolean {
  let text = condition === null || condition === undefined ? '' : String(condition).trim();
  if (hasExpression(text)) {
    const segments = parseTemplate(text);
    const only = segments.length === 1 ? segments[0] : undefined;
    if (only && 'expression' in only) {
      text = only.expression;
    } else {
      // Mixed literal + expression: the runner makes it `success() && format(...)`, a non-empty string.
      const value = evaluateTemplate(text, contexts, options);
      return (options.status ?? 'success') === 'success' && value.length > 0;
    }
  }
  if (text === '') text = 'success()';
  const tree = parseExpression(text, Object.keys(contexts));
  const full = callsStatusFunction(tree) ? text : `success() && (${text})`;
  return isTruthy(evaluateExpression(full, contexts, options));
}

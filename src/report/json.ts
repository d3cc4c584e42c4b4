/**
 * The Reporter of a `--json` run: stdout carries only the one JSON document written at the end, so
 * logs go to stderr (secrets masked) and errors are collected for the document.
 */
import type { AnnotationProps, Reporter } from './reporter.js';
import { TerminalReporter } from './terminal.js';

export interface ReportedError {
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** How to fix it, when known (the key, its scope, the CA, the address). */
  hint?: string;
}

export class JsonReporter extends TerminalReporter implements Reporter {
  /** Every error annotation of the run, for the JSON document. */
  readonly errors: ReportedError[] = [];
  /** Every warning of the run, for the JSON document. */
  readonly warnings: ReportedError[] = [];

  constructor(err: (line: string) => void, verbose = false, status?: (line: string) => void) {
    // Everything a person reads goes to stderr: stdout is the document's.
    super(err, err, verbose, status);
  }

  private entry(message: string, p?: AnnotationProps): ReportedError {
    return {
      message: this.masked(message),
      ...(p?.file ? { file: p.file } : {}),
      ...(p?.line ? { line: p.line } : {}),
      ...(p?.line && p.column ? { column: p.column } : {}),
    };
  }

  override warning(message: string, p?: AnnotationProps) {
    this.warnings.push(this.entry(message, p));
    super.warning(message, p);
  }

  /** The failure that ended the run, with its hint as a field of its own. */
  failure(message: string, hint?: string) {
    this.errors.push({ message: this.masked(message), ...(hint ? { hint: this.masked(hint) } : {}) });
    super.error(hint ? `${message}\nhint: ${hint}` : message);
  }

  override error(message: string, p?: AnnotationProps) {
    this.errors.push(this.entry(message, p));
    super.error(message, p);
  }
}

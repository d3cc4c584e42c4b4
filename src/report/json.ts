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
}

export class JsonReporter extends TerminalReporter implements Reporter {
  /** Every error annotation of the run, for the JSON document. */
  readonly errors: ReportedError[] = [];

  constructor(err: (line: string) => void, verbose = false) {
    // Everything a person reads goes to stderr: stdout is the document's.
    super(err, err, verbose);
  }

  override error(message: string, p?: AnnotationProps) {
    this.errors.push({
      message: this.masked(message),
      ...(p?.file ? { file: p.file } : {}),
      ...(p?.line ? { line: p.line } : {}),
      ...(p?.line && p.column ? { column: p.column } : {}),
    });
    super.error(message, p);
  }
}

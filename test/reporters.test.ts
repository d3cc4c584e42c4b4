/** Where each reporter puts an annotation's place: file, line and column. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActionsReporter } from '../src/report/actions.js';
import { JsonReporter } from '../src/report/json.js';
import { TerminalReporter } from '../src/report/terminal.js';

afterEach(() => vi.restoreAllMocks());

describe('annotation places', () => {
  it('terminal: file:line:column, file:line, file', () => {
    const err: string[] = [];
    const r = new TerminalReporter(
      () => {},
      (l) => err.push(l),
    );
    r.error('bad', { file: 'model/a.yml', line: 4, column: 9 });
    r.error('bad', { file: 'model/a.yml', line: 4 });
    r.error('bad', { file: 'model/a.yml' });
    expect(err).toEqual(['error: model/a.yml:4:9: bad', 'error: model/a.yml:4: bad', 'error: model/a.yml: bad']);
  });

  it('JSON: the column only with a line', () => {
    const r = new JsonReporter(() => {});
    r.error('bad', { file: 'model/a.yml', line: 4, column: 9 });
    r.error('bad', { file: 'model/a.yml', column: 9 });
    expect(r.errors).toEqual([
      { message: 'bad', file: 'model/a.yml', line: 4, column: 9 },
      { message: 'bad', file: 'model/a.yml' },
    ]);
  });

  it('Actions: `col` in the workflow command', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    new ActionsReporter().error('bad', { file: 'model/a.yml', line: 4, column: 9, title: 'data model' });
    expect(written.join('')).toMatch(/^::error title=data model,file=model\/a\.yml,line=4,col=9::bad/);
  });

  it('Actions: progress is one log line per phase', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const r = new ActionsReporter();
    r.progress('upload to b', '0/3 files');
    r.progress('upload to b', '1/3 files');
    r.progress('dbt sync 7: PARSING', '40%');
    r.progress('');
    expect(written.join('')).toBe('upload to b: 0/3 files\ndbt sync 7: PARSING: 40%\n');
  });
});

describe('terminal progress', () => {
  it('redraws one status line only when there is a terminal, and erases it at the end', () => {
    const status: string[] = [];
    const r = new TerminalReporter(
      () => {},
      () => {},
      false,
      (l) => status.push(l),
    );
    r.progress('upload to b', '0/3 files');
    r.progress('upload to b', '1/3 files');
    r.progress('build of b: building');
    r.progress('');
    // The second update came within the redraw interval: skipped; a new phase draws at once.
    expect(status).toEqual(['upload to b (0 s): 0/3 files', 'build of b: building (0 s)', '']);
    const quiet = new TerminalReporter(
      () => {},
      () => {},
    );
    expect(() => quiet.progress('upload to b', '0/3 files')).not.toThrow();
  });
});

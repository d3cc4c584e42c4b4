/** What the runner harness reads back from a step (test/harness/commands.ts): workflow commands, environment files, masks. */
import { describe, expect, it } from 'vitest';
import { SecretMasker, parseEnvFile, parseWorkflowCommand } from './harness/commands.js';

describe('workflow commands, environment files, masking', () => {
  it('parses commands with escaped properties and data', () => {
    expect(parseWorkflowCommand('::error file=a.yml,line=3,title=T%3A x%2C y::boom%0Anext %25')).toEqual({
      command: 'error',
      properties: { file: 'a.yml', line: '3', title: 'T: x, y' },
      data: 'boom\nnext %',
    });
    expect(parseWorkflowCommand('  ::NOTICE::hi')?.command).toBe('notice');
    expect(parseWorkflowCommand('::unknown::x')).toBeUndefined();
    expect(parseWorkflowCommand('plain ::error::x')).toBeUndefined();
  });

  it('parses GITHUB_OUTPUT in k=v and heredoc forms, and rejects a missing delimiter', () => {
    expect(parseEnvFile('a=1=2\n\nb<<EOF\nline 1\nline 2\nEOF\nc<<X\nX\nd=\n')).toEqual([
      ['a', '1=2'],
      ['b', 'line 1\nline 2'],
      ['c', ''],
      ['d', ''],
    ]);
    expect(() => parseEnvFile('b<<EOF\nno end\n')).toThrow(/Matching delimiter not found 'EOF'/);
    expect(() => parseEnvFile('nonsense\n')).toThrow(/Invalid format/);
  });

  it('masks a secret and its encodings', () => {
    const m = new SecretMasker();
    m.add('s3cr3t"x');
    expect(m.mask('a s3cr3t"x b')).toBe('a *** b');
    expect(m.mask(JSON.stringify({ k: 's3cr3t"x' }))).toBe('{"k":"***"}');
    expect(m.mask(Buffer.from('s3cr3t"x').toString('base64'))).toContain('***');
  });
});

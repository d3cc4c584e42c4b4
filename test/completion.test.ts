/**
 * Shell completion as a shell runs it: the bundle prints the bash script, a real bash sources it and
 * calls the completion function with COMP_WORDS as bash would set them. Every command and every flag
 * of the table completes, values of known sets too. The zsh script is checked by zsh when one is here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { FLAG_VALUES } from '../src/commands/spec.js';

let bashScript: string;
let zshScript: string;

function printed(shell: string): string {
  const r = spawnSync(process.execPath, [resolve('dist/index.js'), 'completion', shell], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-completion-'));
  bashScript = join(dir, 'datamodel-ci.bash');
  writeFileSync(bashScript, printed('bash'));
  zshScript = printed('zsh');
});

/** What bash offers for a command line whose last word is being typed (`''` for a new word). */
function complete(...words: string[]): string[] {
  const array = ['datamodel-ci', ...words].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const program = `source '${bashScript}'
COMP_WORDS=(${array}); COMP_CWORD=${words.length}
_datamodel_ci
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', cwd: resolve('.') });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('registers itself for datamodel-ci', () => {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `source '${bashScript}'; complete -p datamodel-ci`], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('complete -F _datamodel_ci datamodel-ci');
  });

  it('completes every listed command (hidden ones left out), and a prefix to its commands', () => {
    const all = complete('');
    for (const c of COMMANDS.filter((x) => !x.hidden)) expect(all).toContain(c.name);
    expect(all).toEqual(expect.arrayContaining(['help', 'version']));
    expect(all).not.toContain('hash-model');
    expect(complete('val')).toEqual(['validate']);
    expect(complete('up')).toEqual(['upload-model']);
  });

  it('completes every flag of every command from the table', () => {
    for (const c of COMMANDS.filter((x) => !x.hidden)) {
      const offered = complete(c.name, '--');
      expect(offered.sort(), c.name).toEqual([...c.flags.map((f) => `--${f.name}`), '--help'].sort());
    }
    expect(complete('validate', '--dry')).toEqual(['--dry-run']);
    expect(complete('upload-model', '--dry-run', '--conc')).toEqual(['--concurrency']);
  });

  it('completes the values of known sets, paths of path flags, and nothing for free text', () => {
    for (const [flag, values] of Object.entries(FLAG_VALUES)) {
      const command = COMMANDS.find((c) => c.flags.some((f) => f.name === flag))!;
      expect(complete(command.name, `--${flag}`, ''), flag).toEqual([...values]);
    }
    expect(complete('cleanup-branch', '--mode', 'sw')).toEqual(['sweep']);
    expect(complete('validate', '--branch', '')).toEqual([]);
    expect(complete('validate', '--model-dir', 'pack')).toEqual(['packages']);
    expect(complete('check', '--ca-cert', 'package.j')).toEqual(['package.json']);
  });

  it('completes the arguments of api, completion and help, then flags', () => {
    expect(complete('api', '')).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    expect(complete('api', 'GET', '/x', '--js')).toEqual(['--json']);
    expect(complete('api', '--api-url', 'https://x', 'P')).toEqual(['POST', 'PUT', 'PATCH']);
    expect(complete('completion', '')).toEqual(['bash', 'zsh']);
    expect(complete('help', 'merge')).toEqual(['merge-to-default']);
  });
});

describe('zsh completion', () => {
  it('lists every command and every flag, with values and paths', () => {
    expect(zshScript.startsWith('#compdef datamodel-ci\n')).toBe(true);
    for (const c of COMMANDS.filter((x) => !x.hidden)) {
      expect(zshScript).toContain(`'${c.name}:`);
      for (const f of c.flags) expect(zshScript, `${c.name} --${f.name}`).toMatch(new RegExp(`'--${f.name}\\[[^\\]']*\\]`));
    }
    expect(zshScript).toMatch(/'--auth-scheme\[[^\]]*\]:auth-scheme:\(bearer api-key\)'/);
    expect(zshScript).toMatch(/'--model-dir\[[^\]]*\]:model-dir:_files -\/'/);
  });

  it.runIf(spawnSync('zsh', ['--version']).status === 0)('parses in zsh', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dmci-zsh-')), '_datamodel-ci');
    writeFileSync(file, zshScript);
    const r = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/**
 * Workflow commands on a step's stdout/stderr (`::error::`, `::add-mask::`, `::stop-commands::`, the
 * deprecated `::set-output::` ...), handled line by line as the runner does.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { parseWorkflowCommand } from './commands.js';
import type { StepRecorder } from './recorder.js';
import type { Annotation } from './types.js';

const SET_OUTPUT_DEPRECATION =
  'The `set-output` command is deprecated and will be disabled soon. Please upgrade to using Environment Files. For more information see: https://github.blog/changelog/2022-10-11-github-actions-deprecating-save-state-and-set-output-commands/';
const SAVE_STATE_DEPRECATION = SET_OUTPUT_DEPRECATION.replace('`set-output`', '`save-state`');
const UNSECURE_DISABLED = (cmd: string) =>
  `The \`${cmd}\` command is disabled. Please upgrade to using Environment Files or opt into unsecure command execution by setting the \`ACTIONS_ALLOW_UNSECURE_COMMANDS\` environment variable to \`true\`. For more information see: https://github.blog/changelog/2020-10-01-github-actions-deprecating-set-env-and-add-path-commands/`;

/** Handle one line of a step's output as the runner does: a workflow command, or a (masked) log line. */
export function processLine(rec: StepRecorder, stepEnv: Record<string, string>, line: string): void {
  const cmd = parseWorkflowCommand(line, rec.stopToken ? [rec.stopToken] : []);
  if (rec.stopToken !== undefined) {
    if (cmd && cmd.command === rec.stopToken.toLowerCase()) rec.stopToken = undefined;
    rec.write(line);
    return;
  }
  if (!cmd) {
    rec.write(line);
    return;
  }
  const job = rec.job;
  const fail = (message: string, omitLine = false) => {
    rec.annotate({ level: 'error', message: `Unable to process command '${omitLine ? cmd.command : line}' successfully.` });
    rec.annotate({ level: 'error', message });
    rec.commandFailed = true;
  };
  const unsecureAllowed = () => (stepEnv['ACTIONS_ALLOW_UNSECURE_COMMANDS'] ?? job.env['ACTIONS_ALLOW_UNSECURE_COMMANDS'] ?? '').toLowerCase() === 'true';
  switch (cmd.command) {
    case 'stop-commands':
      rec.write(line);
      rec.stopToken = cmd.data;
      return;
    case 'error':
    case 'warning':
    case 'notice': {
      const p = cmd.properties;
      const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined);
      let file = p['file'];
      if (file !== undefined && isAbsolute(file)) {
        const rel = relative(job.workspace, file);
        if (rel && !rel.startsWith('..') && !isAbsolute(rel)) file = rel.split(sep).join('/');
      }
      const a: Omit<Annotation, 'step'> = { level: cmd.command, message: cmd.data };
      if (file !== undefined) a.file = file;
      const lineNo = num(p['line']);
      if (lineNo !== undefined) a.line = lineNo;
      const endLine = num(p['endline']);
      if (endLine !== undefined) a.endLine = endLine;
      const col = num(p['col']);
      if (col !== undefined) a.col = col;
      const endColumn = num(p['endcolumn']);
      if (endColumn !== undefined) a.endColumn = endColumn;
      if (p['title'] !== undefined) a.title = p['title'];
      rec.annotate(a);
      return;
    }
    case 'debug':
      rec.debug(cmd.data);
      return;
    case 'group':
      rec.write(`##[group]${cmd.data}`);
      return;
    case 'endgroup':
      rec.write('##[endgroup]');
      return;
    case 'add-mask':
      if (cmd.data.trim() === '') {
        rec.annotate({ level: 'warning', message: "Can't add secret mask for empty string in ##[add-mask] command." });
      } else {
        job.masker.add(cmd.data);
        if (rec.echo) rec.write('::add-mask::***');
      }
      return;
    case 'set-output':
    case 'save-state': {
      if (rec.echo) rec.write(line);
      const name = cmd.properties['name'];
      if (!name) return fail(`Required field 'name' is missing in ##[${cmd.command}] command.`);
      if (cmd.command === 'set-output') rec.outputs[name] = cmd.data;
      else rec.state[name] = cmd.data;
      rec.annotate({ level: 'warning', message: cmd.command === 'set-output' ? SET_OUTPUT_DEPRECATION : SAVE_STATE_DEPRECATION });
      return;
    }
    case 'set-env':
    case 'add-path': {
      if (rec.echo) rec.write(line);
      if (!unsecureAllowed()) return fail(UNSECURE_DISABLED(cmd.command));
      if (cmd.command === 'add-path') {
        job.path = [cmd.data, ...job.path.filter((p) => p !== cmd.data)];
        return;
      }
      const name = cmd.properties['name'];
      if (!name) return fail("Required field 'name' is missing in ##[set-env] command.");
      job.env[name] = cmd.data;
      job.envChanges[name] = cmd.data;
      return;
    }
    case 'echo': {
      const v = cmd.data.trim().toUpperCase();
      if (v === 'ON') rec.echo = true;
      else if (v === 'OFF') rec.echo = false;
      else fail(`Invalid echo command value. Possible values can be: 'on', 'off'. Current value is: '${cmd.data}'.`);
      return;
    }
    default:
      // add-matcher / remove-matcher: problem matchers are not emulated.
      if (rec.echo) rec.write(line);
      rec.debug(`harness: the '${cmd.command}' command is accepted but not emulated`);
  }
}

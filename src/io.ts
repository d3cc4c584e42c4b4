/** Where a command writes and what it reads from its surroundings: the process, or a test's arrays. */
export interface Io {
  /** The result (stdout). */
  out: (line: string) => void;
  /** Logs, progress and errors (stderr). */
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
};

/** Where a command writes and what it reads from its surroundings: the process, or a test's arrays. */
export interface Io {
  /** The result (stdout). */
  out: (line: string) => void;
  /** Logs, progress and errors (stderr). */
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /**
   * Redraw the one status line at the bottom of a terminal (`''` clears it). Present only when stderr is
   * a terminal: progress stays out of files, pipes and CI logs.
   */
  status?: (line: string) => void;
}

/** Streams whose reader went away (`| head`): later writes are dropped instead of failing. */
const closed = new Set<NodeJS.WriteStream>();

/** A closed pipe ends the output quietly: no EPIPE stack trace, the command's own exit code stays. */
export function guardPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closed.add(stream);
    });
  }
}

function write(stream: NodeJS.WriteStream, text: string): void {
  if (!closed.has(stream)) stream.write(text);
}

// ESC [ 2 K erases the line; the carriage return goes back to its start.
const CLEAR = '\r\u001b[2K';
let statusShown = false;

function clearStatus(): void {
  if (statusShown) write(process.stderr, CLEAR);
  statusShown = false;
}

export const processIo: Io = {
  out: (l) => {
    // A status line on the same terminal would be overwritten mid-line.
    if (process.stdout.isTTY) clearStatus();
    write(process.stdout, `${l}\n`);
  },
  err: (l) => {
    clearStatus();
    write(process.stderr, `${l}\n`);
  },
  env: process.env,
  ...(process.stderr.isTTY
    ? {
        status: (line: string) => {
          if (!line) return clearStatus();
          const width = Math.max(20, (process.stderr.columns || 80) - 1);
          write(process.stderr, `${CLEAR}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
          statusShown = true;
        },
      }
    : {}),
};

/** The exit codes of the terminal: 0 done, 1 failed, 2 bad input, 3 platform unreachable or refused (in Actions every failure is 1). */
import { InputError } from '../client/errors.js';
import { isPlatformUnavailable } from '../report/hints.js';
import { UsageError } from './args.js';

/** A failure already reported (annotations, comment); the command exits 1. */
export class StepFailed extends Error {}

/** Bad input found only by reading the platform (a key query naming a member no semantic layer has): exit 2. */
export class InputRefused extends StepFailed {}

/** A command that only reads the platform could not read it (an unknown deployment too): exit 3. */
export class PlatformUnreadable extends Error {}

export const EXIT = { done: 0, failed: 1, badInput: 2, platform: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError || error instanceof InputError || error instanceof InputRefused) return EXIT.badInput;
  if (error instanceof PlatformUnreadable) return EXIT.platform;
  return isPlatformUnavailable(error) ? EXIT.platform : EXIT.failed;
}

import { plural } from './plural.js';
import { Said, said } from './said.js';
import type { ErrorJson } from './schemas/local-output.js';

/** What kind of error, as the `--json` error line names it. */
export type ErrorKind = ErrorJson['error']['kind'];
/** Exit codes of the product contract (README, "Output and exit codes"). */
export const ExitCode = {
  OK: 0,
  SERVICE: 1,
  USAGE: 2,
  INPUT: 3,
  AUTH: 4,
  NETWORK: 5,
  LOCAL: 6,
  INTERRUPTED: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error that ends a command with a documented exit code and one clear line on stderr.
 * `details` is added to the `{"error": {...}}` object printed with `--json`; it must never hold secrets.
 * The message is written with `said` (src/said.ts): its literal words are callctl's, shown as
 * written; what it interpolates is redacted where it is printed.
 */
export class CliError extends Error {
  /** The message, callctl's words apart from outside text: what is printed (redacted). */
  said: Said;

  constructor(
    message: string | Said,
    readonly exitCode: ExitCodeValue,
    readonly kind: ErrorKind,
    readonly details: Record<string, unknown> = {},
  ) {
    super(String(message));
    this.name = new.target.name;
    this.said = Said.of(message);
  }

  /** Rewrites the message (`said` and `message` alike), e.g. with what happened around it. */
  amend(message: Said): void {
    this.said = message;
    this.message = String(message);
  }
}

/** The error class of one kind: its exit code, and the `details` its `--json` line adds. */
function kindOf(exitCode: ExitCodeValue, kind: ErrorKind) {
  return class extends CliError {
    constructor(message: string | Said, details?: Record<string, unknown>) {
      super(message, exitCode, kind, details);
    }
  };
}

/** The error class of an answer of the service: where it came from and what it said, in `details` too. */
function answeredOf(exitCode: ExitCodeValue, kind: ErrorKind) {
  return class extends CliError {
    constructor(
      message: string | Said,
      readonly endpoint: string,
      readonly httpStatus: number,
      readonly serviceCode: number | undefined,
      details: Record<string, unknown> = {},
    ) {
      super(message, exitCode, kind, { endpoint, httpStatus, serviceCode, ...details });
    }
  };
}

/** Unknown flag, missing argument, bad flag value. */
export class UsageError extends kindOf(ExitCode.USAGE, 'usage') {}

/** Invalid input data (CSV rows, JSON files, variables): nothing was sent. */
export class InputError extends CliError {
  constructor(
    message: string | Said,
    details?: Record<string, unknown>,
    /** Lines printed above the error line (the problems it counts), each as the error line is. */
    readonly listed: readonly Said[] = [],
  ) {
    super(message, ExitCode.INPUT, 'input', details);
  }
}

/** No token, or credentials or token rejected. */
export class AuthError extends kindOf(ExitCode.AUTH, 'auth') {}

/** Network failure or timeout, after retries. */
export class NetworkError extends kindOf(ExitCode.NETWORK, 'network') {}

/** The service answered an error: an HTTP status, or an envelope whose code is not success. */
export class ServiceError extends answeredOf(ExitCode.SERVICE, 'service') {}

/**
 * An https:// address that answers in plain HTTP, or an http:// one that speaks TLS: nothing was
 * sent, and every attempt would fail alike until the address is fixed (exit 1, no retries).
 */
export class WrongSchemeError extends kindOf(ExitCode.SERVICE, 'wrong-scheme') {}

/** A proxy refused its credentials (407): nothing reached the service, and every attempt would fail alike (exit 4). */
export class ProxyAuthError extends AuthError {}

/** Whether an error says that nothing of the request left for the service (the ledger forgets the person). */
export function nothingSent(error: unknown): error is WrongSchemeError | ProxyAuthError {
  return error instanceof WrongSchemeError || error instanceof ProxyAuthError;
}

/**
 * What the command names does not exist where it looked (a recorded event's id): exit 1, as the
 * service's own "not found" is, since running again will not help until the name is fixed.
 */
export class NotFoundError extends kindOf(ExitCode.SERVICE, 'not-found') {}

/**
 * Local trouble: a file or folder callctl needs (config, journal, log, lock) cannot be read or
 * written, or holds something callctl cannot use. Not the service's doing: fix the file or folder.
 */
export class LocalError extends kindOf(ExitCode.LOCAL, 'local') {}

/** Ctrl-C, or a prompt or confirmation declined. */
export class InterruptedError extends CliError {
  constructor(message: string | Said = said`interrupted`) {
    super(message, ExitCode.INTERRUPTED, 'interrupted');
  }
}

/**
 * The service answered, but with trouble that may pass by itself (5xx, 429, as HTTP status or
 * envelope code), after retries: exit 5, like a network failure, so that a cron job runs again.
 */
export class ServiceUnavailableError extends answeredOf(ExitCode.NETWORK, 'service-unavailable') {}

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  ENOENT: 'no such file or folder',
  EEXIST: 'it already exists',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
  EIO: 'input/output error',
};

/** The file-system calls whose errors are local trouble, and what each does for a reader. */
const FS_VERBS: Record<string, string> = {
  close: 'close',
  rmdir: 'rmdir',
  stat: 'stat',
  lstat: 'lstat',
  fstat: 'fstat',
  access: 'access',
  utime: 'utime',
  futime: 'futime',
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create the folder',
  mkdtemp: 'create a folder in',
  rename: 'replace',
  unlink: 'remove',
  rm: 'remove',
  link: 'create',
  symlink: 'create',
  chmod: 'change the mode of',
  fchmod: 'change the mode of',
  scandir: 'list',
  opendir: 'list',
  fsync: 'flush',
  fdatasync: 'flush',
  ftruncate: 'truncate',
  truncate: 'truncate',
  copyfile: 'copy',
};

/** The write errors of stdout a run's error already tells (src/io.ts then does not tell them again). */
const toldOutputErrors = new WeakSet<object>();

/** stdout that cannot be written (a full disk under `> file`): local trouble, in one line. */
export function stdoutFailed(error: NodeJS.ErrnoException): LocalError {
  toldOutputErrors.add(error);
  return new LocalError(said`cannot write to stdout: ${error.code} (${fsReason(error.code)})`);
}

/** Whether a run's error already tells this write error of stdout (see stdoutFailed). */
export const outputErrorTold = (error: object): boolean => toldOutputErrors.has(error);

/** A file-system error code in words ("permission denied" for EACCES). */
export function fsReason(code: string | undefined): string {
  return (code && FS_REASONS[code]) ?? code ?? 'error';
}

/**
 * The error of a file-system call (EACCES on open, ENOSPC on write...) as local trouble (exit 6)
 * naming the path, the operation and the reason; anything else as it is. `what` says which file
 * it is for the reader ("the config file", "the journal folder").
 */
export function localTrouble(error: unknown, what?: string): unknown {
  if (error instanceof CliError) return error;
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || typeof e.syscall !== 'string' || !Object.hasOwn(FS_VERBS, e.syscall)) return error;
  const reason = e.syscall === 'mkdir' && e.code === 'EEXIST' ? 'a file of that name is in the way' : fsReason(e.code);
  const path = e.path ? ` ${e.path}` : '';
  const verb = FS_VERBS[e.syscall]!;
  return new LocalError(said`cannot ${verb}${what ? ` ${what}` : ''}${path}: ${reason}`, {
    code: e.code,
    syscall: e.syscall,
    ...(e.path ? { path: e.path } : {}),
  });
}

/**
 * An error met once `shown` records of its answer were out on stdout (a streamed `--json` or
 * export): says how many, so that nobody takes the output for the whole answer.
 */
export function afterShown(error: unknown, shown: number): unknown {
  if (shown > 0 && error instanceof CliError && error.details.written === undefined) {
    error.amend(said`${error}; ${plural(shown, 'record')} had been written before it`);
    error.details.written = shown;
  }
  return error;
}

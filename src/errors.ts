/** Exit codes of the product contract (design.md, "Exit codes"). */
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
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly kind: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Unknown flag, missing argument, bad flag value. */
export class UsageError extends CliError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, ExitCode.USAGE, 'usage', details);
  }
}

/** Invalid input data (CSV rows, JSON files, variables): nothing was sent. */
export class InputError extends CliError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, ExitCode.INPUT, 'input', details);
  }
}

/** No token, or credentials or token rejected. */
export class AuthError extends CliError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, ExitCode.AUTH, 'auth', details);
  }
}

/** Network failure or timeout, after retries. */
export class NetworkError extends CliError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, ExitCode.NETWORK, 'network', details);
  }
}

/** The service answered an error: an HTTP status, or an envelope whose code is not success. */
export class ServiceError extends CliError {
  constructor(
    message: string,
    readonly endpoint: string,
    readonly httpStatus: number,
    readonly serviceCode: number | undefined,
    details: Record<string, unknown> = {},
  ) {
    super(message, ExitCode.SERVICE, 'service', { endpoint, httpStatus, serviceCode, ...details });
  }
}

/** Local trouble: a file or folder callctl needs cannot be read or written. */
export class LocalError extends CliError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, ExitCode.LOCAL, 'local', details);
  }
}

/** Ctrl-C, or a prompt or confirmation declined. */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, ExitCode.INTERRUPTED, 'interrupted');
  }
}

/**
 * The service answered, but with trouble that may pass by itself (5xx, 429, as HTTP status or
 * envelope code), after retries: exit 5, like a network failure, so that a cron job runs again.
 */
export class ServiceUnavailableError extends CliError {
  constructor(
    message: string,
    readonly endpoint: string,
    readonly httpStatus: number,
    readonly serviceCode: number | undefined,
    details: Record<string, unknown> = {},
  ) {
    super(message, ExitCode.NETWORK, 'service-unavailable', { endpoint, httpStatus, serviceCode, ...details });
  }
}

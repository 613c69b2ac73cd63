/** Types of bench/campaign/hosts.mjs, as far as the tests use it. */

/** One run of a host's cron job. */
export interface HostRun {
  host: string;
  kind: 'upload' | 'push';
  file: string;
  code: number | null;
  err: string;
}

export function runSummary(run: HostRun): string;

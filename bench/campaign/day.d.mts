/** Types of bench/campaign/day.mjs for the tests (test/campaign/). */
import type { Sandbox } from '../../src/sandbox/server.js';
import type { Verdict } from './checker.mjs';

/** The real parts of a day, handed to a plant once the day has ended. */
export interface DayParts {
  /** The store's URL, password included. */
  store: string;
  app: { url: string; forwards: Array<{ eventId?: string; status: number; body: string }> };
  sandbox: Sandbox;
  /** A cron host's environment (its folders, the store, the service). */
  env: Record<string, string>;
  dir: string;
  files: { rows: Array<{ callee: string; file: string; line: number; caseid: boolean }> };
  workflows: string[];
  secrets: Record<string, string>;
}

export interface DayResult extends Verdict {
  /** The verdict after `plant` changed the real parts. */
  planted?: Verdict;
  dir: string;
  seconds: { day: number; all: number };
  summary: Record<string, unknown>;
}

export function readScenario(path: string): Record<string, unknown>;
export function runDay(
  scenario: Record<string, unknown>,
  options?: { seed?: number; say?: (line: string) => void; keep?: boolean; plant?: (parts: DayParts) => Promise<void> },
): Promise<DayResult>;

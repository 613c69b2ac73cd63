/** Types of bench/campaign/checker.mjs for the tests (test/campaign/). */
export interface Verdict {
  ok: boolean;
  problems: string[];
  counts: Counts;
  table: string;
}
/** The table's numbers. */
export interface Counts {
  seed: number;
  notificationsSent: number;
  attempts: number;
  answered200: number;
  givenUp: number;
  stored: number;
  storedRetries: number;
  forwarded: number;
  forwardRepeatsDropped: number;
  duplicates: number;
  lost: number;
  rowsSent: number;
  rowsReceived: number;
  rowsUncertain: number;
  rowsUnfinished: number;
  rowsResentByCaseid: number;
  people: number;
  peoplePushed: number;
  peopleUncertain: number;
  peopleUnfinished: number;
  calls: number;
  reportsChecked: number;
  faults: number;
  receiverCrashes: number;
}
export function check(history: unknown): Verdict;
export function kindOf(body: unknown): string;
export function notificationOf(body: unknown): string;
export function digitsOf(n: string): string;
export function table(counts: Counts, faults: Array<{ kind: string }>): string;

// No imports: the inspector's browser code (src/hooks/ui/client, checked without Node's types) takes it too.

/** One line of the inspector's list: what `hooks events` shows of an event. */
export interface EventRow {
  id: string;
  time: string;
  /** `refused` for a request refused before its type was known. */
  type: string;
  plan?: string;
  task?: string;
  callee?: string;
  status?: string;
  verdict: string;
  retry: number;
  /** The HTTP status answered (`status` is the event's own, from its body). */
  httpStatus: number;
  forward: string;
}

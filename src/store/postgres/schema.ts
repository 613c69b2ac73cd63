import type { ClientBase } from 'pg';
import { UsageError } from '../../errors.js';
import { said } from '../../said.js';
import type { SchemaStatus } from '../store.js';

/**
 * callctl's tables in PostgreSQL, as numbered steps. A database records the steps it has had in
 * `callctl_schema`; `migrate` applies the missing ones in order. Steps are only ever added, never
 * changed, so any database can be brought up to date from any earlier version.
 */
export const MIGRATIONS: ReadonlyArray<{
  version: number;
  description: string;
  sql: string;
}> = [
  {
    version: 1,
    description: 'events, event identities, forwarding claims, new-event notifications',
    sql: `
CREATE TABLE callctl_events (
  id          bigserial PRIMARY KEY,
  received_at timestamptz NOT NULL,
  type        text,
  key         text,
  retry       integer NOT NULL DEFAULT 0,
  answer      integer NOT NULL,
  verdict     text,
  plan        text,
  task        text,
  callee      text,
  record      jsonb NOT NULL,
  fwd_state   text CHECK (fwd_state IN ('claimed', 'done', 'failed')),
  fwd_owner   text,
  fwd_lease   timestamptz,
  fwd_status  integer,
  fwd_error   text,
  fwd_attempts integer,
  fwd_at      timestamptz
);
CREATE INDEX callctl_events_received ON callctl_events (received_at);
CREATE INDEX callctl_events_type ON callctl_events (type, id);
CREATE INDEX callctl_events_plan ON callctl_events (plan) WHERE plan IS NOT NULL;
CREATE INDEX callctl_events_task ON callctl_events (task) WHERE task IS NOT NULL;
CREATE INDEX callctl_events_callee ON callctl_events (callee) WHERE callee IS NOT NULL;
CREATE INDEX callctl_events_claimed ON callctl_events (fwd_lease) WHERE fwd_state = 'claimed';
-- One row per event identity: how many arrivals within the dedup window, and the first one.
CREATE TABLE callctl_event_keys (
  key      text PRIMARY KEY,
  arrivals integer NOT NULL,
  first_id bigint NOT NULL,
  last_at  timestamptz NOT NULL
);
CREATE INDEX callctl_event_keys_last ON callctl_event_keys (last_at);
-- hooks events --follow listens; one notification per inserting statement is enough to wake it.
CREATE FUNCTION callctl_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('callctl_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER callctl_events_notify AFTER INSERT ON callctl_events
  FOR EACH STATEMENT EXECUTE FUNCTION callctl_events_notify();
`,
  },
  {
    version: 2,
    description:
      'notifications sent by receivers after commit, not by a trigger; the identity as remembered on each event',
    // NOTIFY in the inserting transaction takes a database-wide lock until its commit, so every
    // append waited for the previous one's disk flush (246 req/s in bench/hooks.mjs). Receivers
    // now notify from their own short transaction, at most every NOTIFY_DELAY_MS.
    sql: `
DROP TRIGGER IF EXISTS callctl_events_notify ON callctl_events;
DROP FUNCTION IF EXISTS callctl_events_notify();
ALTER TABLE callctl_events ADD COLUMN seen_key text;
`,
  },
  {
    version: 3,
    description: 'never-twice ledger of push and template send, shared by every host',
    // One row per destination and person: the last thing known (pending: may have been reached
    // at \`at\`; clear: the request reached nobody), as the last line per person in a ledger file.
    sql: `
CREATE TABLE callctl_reach_ledger (
  destination text NOT NULL,
  person      text NOT NULL,
  state       text NOT NULL CHECK (state IN ('pending', 'clear')),
  at          timestamptz NOT NULL,
  PRIMARY KEY (destination, person)
);
`,
  },
  {
    version: 4,
    description: 'plan-end Timestamp+Sign pairs, shared by every receiver (replay protection)',
    // One row per pair and plan end (its identity: PlanName and a digest of PlanDetails) first
    // seen under it, and when; rows past the history window are deleted as new ones come.
    sql: `
CREATE TABLE callctl_plan_pairs (
  pair text NOT NULL,
  key  text NOT NULL,
  at   timestamptz NOT NULL,
  PRIMARY KEY (pair, key)
);
CREATE INDEX callctl_plan_pairs_at ON callctl_plan_pairs (at);
`,
  },
  {
    version: 5,
    description: 'upload and push/template journals, shared by every host',
    // One row per journal record, in order (seq); a journal is named as its file would be.
    sql: `
CREATE TABLE callctl_journals (
  kind   text NOT NULL CHECK (kind IN ('upload', 'reach')),
  name   text NOT NULL,
  seq    bigserial,
  record text NOT NULL,
  at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, name, seq)
);
`,
  },
  {
    version: 6,
    description: 'the HTTP status answered is `status` (was `answer`); failed forwards found by when they failed',
    // Failed forwards are tried again later (claims.ts takeAbandoned). Records written before it,
    // by pre-release builds, say `answer` in `record`: they are not read as `status`.
    sql: `
ALTER TABLE callctl_events RENAME COLUMN answer TO status;
CREATE INDEX callctl_events_failed ON callctl_events (fwd_at) WHERE fwd_state = 'failed';
`,
  },
  {
    version: 7,
    description: "the person of an event in `callee`: a template status's channel_id, compared as people are",
    // Appends write the person (src/person.ts personKey, through recordFacts). In pre-release
    // builds this step also rewrote the rows kept before it; it stays so that versions keep their numbers.
    sql: '',
  },
  {
    version: 8,
    description: 'leases: the locks of runs as rows (holder, expiry, fencing number), which hold through any pooler',
    // Session advisory locks landed on whichever server connection a pooler gave, and leaked there
    // (src/store/postgres/lease.ts). A row per lease: taken, renewed and released by single
    // statements; one whose run died expires by itself; the fencing number grows with each taking.
    sql: `
CREATE SEQUENCE callctl_lease_fence;
CREATE TABLE callctl_leases (
  name    text PRIMARY KEY,
  owner   text NOT NULL,
  fence   bigint NOT NULL,
  pid     integer NOT NULL,
  host    text NOT NULL,
  what    text NOT NULL,
  started timestamptz NOT NULL,
  expires timestamptz NOT NULL
);
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Fails (a UsageError) unless the tables are there at a version this callctl can use. */
export function checkSchema({ version }: SchemaStatus): void {
  if (version === 0) throw new UsageError(said`the store has no callctl tables yet: run \`callctl store migrate\``);
  if (version > SCHEMA_VERSION)
    throw new UsageError(
      said`the store's schema is version ${version}, newer than this callctl's ${SCHEMA_VERSION}: upgrade callctl`,
    );
  if (version < SCHEMA_VERSION)
    throw new UsageError(
      said`the store's schema is version ${version}, older than this callctl's ${SCHEMA_VERSION}: run \`callctl store migrate\``,
    );
}

/** The advisory lock every migration holds, so that two callctl starting at once take turns. */
const MIGRATE_LOCK = 0x63616c6c; // "call"

/** What is there: the schema version and the server's, and the events kept. */
export async function schemaStatus(client: ClientBase): Promise<SchemaStatus> {
  const server = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  const exists = await client.query("SELECT to_regclass('callctl_schema') IS NOT NULL AS there");
  if (!exists.rows[0].there) return { version: 0, latest: SCHEMA_VERSION, history: [], server };
  const rows = await client.query<{ version: number; description: string; at: Date }>(
    'SELECT version, description, migrated_at AS at FROM callctl_schema ORDER BY version',
  );
  const history = rows.rows.map((r) => ({ version: r.version, description: r.description, at: r.at.toISOString() }));
  const version = history.at(-1)?.version ?? 0;
  if (version === 0) return { version, latest: SCHEMA_VERSION, history, server };
  const e = await client.query<{ n: number; first: Date | null; last: Date | null }>(
    'SELECT count(*)::int AS n, min(received_at) AS first, max(received_at) AS last FROM callctl_events',
  );
  const { n, first, last } = e.rows[0]!;
  const events = {
    count: n,
    ...(first ? { first: first.toISOString() } : {}),
    ...(last ? { last: last.toISOString() } : {}),
  };
  return { version, latest: SCHEMA_VERSION, history, server, events };
}

/**
 * Brings the database up to this callctl's schema, in one transaction under an advisory lock:
 * a second instance migrating at the same time waits, then finds nothing left to do. Returns the
 * versions applied (none when up to date). A database newer than this callctl is left alone.
 */
export async function migrate(client: ClientBase): Promise<{ from: number; applied: number[] }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
    // Nothing created when the tables are there (even IF NOT EXISTS needs CREATE on the schema,
    // which a receiver's role need not have on a store its owner migrated). IF NOT EXISTS still:
    // to_regclass may not yet see the table of a migration that committed while this one waited.
    const there = await client.query("SELECT to_regclass('callctl_schema') IS NOT NULL AS there");
    if (!there.rows[0].there)
      await client.query(`CREATE TABLE IF NOT EXISTS callctl_schema (
        version integer PRIMARY KEY, description text NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`);
    const from = Number((await client.query('SELECT coalesce(max(version), 0) AS v FROM callctl_schema')).rows[0].v);
    const applied: number[] = [];
    for (const step of MIGRATIONS) {
      if (step.version <= from) continue;
      if (step.sql) await client.query(step.sql);
      await client.query('INSERT INTO callctl_schema (version, description) VALUES ($1, $2)', [
        step.version,
        step.description,
      ]);
      applied.push(step.version);
    }
    await client.query('COMMIT');
    return { from, applied };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * What a role that runs callctl (serve-hooks, cron runs) needs on the tables the owner migrated:
 * read and write rights on each table (only reading `callctl_schema`), USAGE on the sequences;
 * no CREATE on the schema.
 */
const TABLES = [
  'callctl_events',
  'callctl_event_keys',
  'callctl_plan_pairs',
  'callctl_reach_ledger',
  'callctl_journals',
  'callctl_leases',
];
const SEQUENCES = ['callctl_events_id_seq', 'callctl_journals_seq_seq', 'callctl_lease_fence'];
const RIGHTS = [
  ...TABLES.flatMap((n) => ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((p) => ({ n, s: false, p }))),
  { n: 'callctl_schema', s: false, p: 'SELECT' },
  ...SEQUENCES.map((n) => ({ n, s: true, p: 'USAGE' })),
];

/** The GRANTs (as their owner runs them) that let `role` run callctl on its tables. */
export function grants(role: string): string[] {
  return [
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ${TABLES.join(', ')} TO ${role};`,
    `GRANT SELECT ON callctl_schema TO ${role};`,
    `GRANT USAGE ON SEQUENCE ${SEQUENCES.join(', ')} TO ${role};`,
  ];
}

/**
 * The rights callctl writes with that the connected role lacks, tables of the same missing
 * rights together ("INSERT, UPDATE on callctl_events, callctl_leases"); none: an empty list.
 */
export async function missingRights(client: Pick<ClientBase, 'query'>): Promise<string[]> {
  const r = await client.query<{ n: string; p: string }>(
    `SELECT w.n, w.p FROM jsonb_to_recordset($1::jsonb) AS w(n text, s boolean, p text)
      WHERE NOT CASE WHEN w.s THEN has_sequence_privilege(w.n, w.p) ELSE has_table_privilege(w.n, w.p) END`,
    [JSON.stringify(RIGHTS)],
  );
  const byTable = new Map<string, string[]>();
  for (const row of r.rows) byTable.set(row.n, [...(byTable.get(row.n) ?? []), row.p]);
  const byRights = new Map<string, string[]>();
  for (const [table, rights] of byTable) {
    const key = rights.join(', ');
    byRights.set(key, [...(byRights.get(key) ?? []), table]);
  }
  return [...byRights].map(([rights, tables]) => `${rights} on ${tables.join(', ')}`);
}

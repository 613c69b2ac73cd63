/**
 * A run that takes a lease in a PostgreSQL store and holds it (renewing) until it is killed: the
 * child process of test/store/leases.test.ts, bundled by esbuild (there) so that Node runs it
 * without TypeScript. Arguments: the store's URL, the state folder, the lease's name, its TTL in
 * ms. Prints `held` once it holds the lease.
 */
import { PostgresStore } from '../../src/store/postgres/store.js';

const [url, dir, name, ttl] = process.argv.slice(2);
const store = new PostgresStore({ url: url!, dir: dir!, leaseTtlMs: Number(ttl) });
await store.lock({ name: name!, what: 'test run' });
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);

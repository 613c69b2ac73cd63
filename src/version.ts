import { existsSync, readFileSync } from 'node:fs';

/**
 * callctl's version, from its package.json: the nearest one above this module (src/ when tests
 * run the sources, dist/ or dist/chunks/ in the build).
 */
export function readVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dir.pathname === '/') return '0.0.0';
  }
}

// Pure: a bundle that only needs readVersion (dist/quick.cjs) does not read the file at load.
export const VERSION: string = /* @__PURE__ */ readVersion();

/** The User-Agent of every request callctl sends. */
export const USER_AGENT = `callctl/${VERSION}`;

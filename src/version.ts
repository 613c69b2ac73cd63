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

/** Set by the build (scripts/build.mjs) to package.json's version; absent when tests run the sources. */
declare const CALLCTL_BUILD_VERSION: string | undefined;

/** The built program knows its version without reading a file; the sources read package.json. */
export const VERSION: string = typeof CALLCTL_BUILD_VERSION === 'string' ? CALLCTL_BUILD_VERSION : readVersion();

/** The User-Agent of every request callctl sends. */
export const USER_AGENT = `callctl/${VERSION}`;

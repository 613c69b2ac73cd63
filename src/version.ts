import { existsSync, readFileSync } from 'node:fs';

/**
 * callctl's version, from its package.json: the nearest one above this module (src/ when tests
 * run the sources, dist/ or dist/chunks/ in the build).
 */
function readVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dir.pathname === '/') return '0.0.0';
  }
}

export const VERSION: string = readVersion();

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT, ensureBuilt } from './child.js';
import { tempDir } from './helpers.js';

/** A forward target: a real listener that answers 200 and keeps every body it got. */
export async function forwardTarget(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface Running {
  child: ChildProcess;
  /** The inspector's address (as printed). */
  ui: string;
  /** serve-hooks' address, when it runs. */
  hooks?: string;
  err(): string;
  out(): string;
}

/**
 * Runs the built callctl with `args` in a child until the inspector's address is printed (and
 * serve-hooks' too, when it is serve-hooks). The caller stops it (child.kill).
 */
export function runUi(args: string[], env: Record<string, string> = {}): Promise<Running> {
  ensureBuilt();
  const child = spawn(process.execPath, ['bin/callctl.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  const serving = args[0] === 'serve-hooks';
  return new Promise((resolve, reject) => {
    const look = () => {
      const ui = /inspector: (http:\/\/\S+)/.exec(out + err)?.[1];
      const hooks = /listening on (http:\/\/[\d.]+:\d+)/.exec(err)?.[1];
      if (ui && (!serving || hooks))
        resolve({ child, ui, ...(hooks ? { hooks } : {}), err: () => err, out: () => out });
    };
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      look();
    });
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      look();
    });
    child.on('exit', (code) => reject(new Error(`callctl ${args.join(' ')} exited with ${code}: ${err}`)));
  });
}

import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { itWith } from '../helpers/programs.js';
import { tempDir } from '../helpers/temp.js';

/*
 * The nginx snippets of docs/serve-hooks.md, in a real nginx in front of real receivers: each
 * passes the notifications' path and the health checks (issue 35 item 6: the snippets passed
 * /hooks/ only, so a balancer or a monitor in front of nginx could not ask /readyz).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = 'nginx-docs-key';
const children: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/main.js'))) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** The ```nginx blocks of a page. */
function snippets(page: string): string[] {
  return [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A block's top-level statements with their braces: `upstream ... {}` and `location ... {}`. */
function statements(block: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  const text = block.replace(/#[^\n]*/g, '');
  for (let i = 0; i < text.length; i++) {
    if (depth === 0 && start === -1 && /\S/.test(text[i]!)) start = i;
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) {
      out.push(text.slice(start, i + 1));
      start = -1;
    }
  }
  return out;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts the built `callctl serve-hooks` on a free port; resolves with its port. */
function receiver(): Promise<number> {
  const child = spawn(
    process.execPath,
    ['bin/callctl.js', 'serve-hooks', '--port', '0', '--key', KEY, '--log', join(tempDir(), 'events.ndjson')],
    {
      cwd: ROOT,
      env: { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.on('exit', (code) => reject(new Error(`serve-hooks exited with ${code}: ${out}`)));
  });
}

/** Runs nginx with `block` as the docs give it, its receivers' addresses replaced; resolves with its URL. */
async function nginx(block: string, ports: Map<string, number>): Promise<string> {
  let config = block;
  for (const [shown, port] of ports) config = config.replaceAll(shown, `127.0.0.1:${port}`);
  const parts = statements(config);
  const dir = tempDir('callctl-nginx-');
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${parts.filter((p) => p.startsWith('upstream')).join('\n')}
  server {
    listen 127.0.0.1:${port};
    ${parts.filter((p) => p.startsWith('location')).join('\n')}
  }
}
`,
  );
  const child = spawn('nginx', ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${err}`);
    try {
      await fetch(`${url}/`);
      return url;
    } catch {
      if (i > 100) throw new Error(`nginx did not listen: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('the nginx snippets of docs/serve-hooks.md, in a real nginx', () => {
  const blocks = snippets('docs/serve-hooks.md');

  itWith(
    'nginx',
    'pass /readyz, /healthz and the notifications to serve-hooks',
    async () => {
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      for (const block of blocks) {
        const shown = [...new Set(block.match(/127\.0\.0\.1:87\d\d/g) ?? [])];
        const ports = new Map<string, number>();
        for (const address of shown) ports.set(address, await receiver());
        const url = await nginx(block, ports);
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status, block).toBe(200);
        expect(await ready.json()).toMatchObject({ ready: true });
        expect((await fetch(`${url}/healthz`)).status, block).toBe(200);
        const sent = await runCli(['hooks', 'trigger', 'task.end', '--url', `${url}/hooks/x`, '--key', KEY]);
        expect(sent.code, `${block}\n${sent.err}`).toBe(0);
        for (const child of children.splice(0)) child.kill('SIGTERM');
      }
    },
    60_000,
  );
});

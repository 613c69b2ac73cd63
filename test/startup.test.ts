import { execFile, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useSandbox } from './helpers/sandbox.js';
import { tempDir } from './helpers/temp.js';
import { COMMANDS } from '../src/commands/declarations.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const tracer = fileURLToPath(new URL('./helpers/trace-imports.mjs', import.meta.url));

/**
 * The sources bundled into the files a run of the built CLI loads (needs `npm run build`, which
 * `npm test` does first). esbuild marks each bundled module with a `// path` comment.
 */
function sourcesLoaded(args: string[], env: Record<string, string> = {}): string[] {
  return distFilesLoaded(args, env).flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]!),
  );
}

/** The files of dist/ a run of the built CLI loads, ES modules and CommonJS alike. */
function distFilesLoaded(args: string[], env: Record<string, string> = {}): string[] {
  const file = join(tempDir('callctl-trace-'), 'modules.txt');
  // The exit code does not matter here (robots has no service to reach), only what was loaded.
  spawnSync(process.execPath, ['--import', tracer, bin, ...args], {
    env: {
      ...withoutProxies(process.env),
      TRACE_IMPORTS_FILE: file,
      CALLCTL_BASE_URL: 'http://127.0.0.1:1',
      CALLCTL_TOKEN: 'x',
      ...env,
    },
    stdio: 'ignore',
  });
  const urls = readFileSync(file, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file://') && u.includes('/dist/'));
  return urls.map((u) => fileURLToPath(u));
}

const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
const withoutProxies = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !PROXY_VARS.includes(k)));

const HEAVY = ['zod', 'undici', 'conf', 'chalk', 'cli-table3', 'csv-parse', '@inquirer'];

describe('start-up', () => {
  it('`callctl --version` loads not even the program tree', () => {
    const sources = sourcesLoaded(['--version']);
    expect(sources).toContain('src/version.ts');
    expect(sources).not.toContain('src/program.ts');
    expect(sources.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
  });

  it.each([['--help'], ['workflow', '--help'], ['help', 'robots'], []])(
    '`callctl %s` reads its rendered page: no command tree, no dependency',
    (...args) => {
      const sources = sourcesLoaded(args);
      expect(sources).toContain('src/help/request.ts');
      expect(sources).not.toContain('src/program.ts');
      expect(sources.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
    },
  );

  it.each([['--version'], ['--help'], ['workflow', 'update', '--help'], ['help', 'robots'], []])(
    '`callctl %s` is answered by dist/quick.cjs alone (CommonJS: no ESM loader, no program module)',
    (...args) => {
      expect(distFilesLoaded(args).map((f) => f.replace(/.*\/dist\//, 'dist/'))).toEqual(['dist/quick.cjs']);
    },
  );

  it("the built program's main() answers help from the rendered pages too (in a chunk, one folder below them)", () => {
    // A copy of dist/ whose rendered page for `robots` is marked: main() must print the mark.
    const copy = join(tempDir('callctl-dist-'), 'dist');
    cpSync(fileURLToPath(new URL('../dist/', import.meta.url)), copy, { recursive: true });
    const pages = JSON.parse(readFileSync(join(copy, 'help.json'), 'utf8')) as Record<string, string>;
    writeFileSync(join(copy, 'help.json'), JSON.stringify({ ...pages, robots: 'the rendered page\n' }));
    const main = pathToFileURL(join(copy, 'main.js')).href;
    const r = spawnSync(
      process.execPath,
      ['-e', `import(${JSON.stringify(main)}).then((m) => m.main(['robots', '--help'], m.nodeIO()))`],
      { env: withoutProxies(process.env), encoding: 'utf8' },
    );
    expect(r.stdout).toBe('the rendered page\n');
  });

  it("each chunk's require() (the banner) finds Node's built-ins even where the chunk declares its own `process`", () => {
    // The build turns `import process from "node:process"` (chalk's) into a const declared where
    // the module starts, not hoisted as an import is: a banner reading that name would throw
    // (temporal dead zone) if a module above it in the chunk required a built-in.
    const dist = fileURLToPath(new URL('../dist/', import.meta.url));
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    const shadowing = files.filter((f) => /^(?:const|let|var) process\b/m.test(readFileSync(join(dist, f), 'utf8')));
    expect(shadowing.length).toBeGreaterThan(0); // chalk's chunk: the case this test is about
    for (const f of shadowing) {
      const banner = readFileSync(join(dist, f), 'utf8').split('\n', 1)[0]!;
      expect(banner).toMatch(/^const require = /);
      expect(banner.replaceAll('globalThis.process', ''), f).not.toMatch(/\bprocess\b/);
    }
  });

  it('help the build did not render (`--json --help`) comes from the tree, still without any heavy module', () => {
    const sources = sourcesLoaded(['--json', 'robots', '--help']);
    expect(sources).toContain('src/program.ts');
    expect(sources.filter((s) => HEAVY.some((name) => s.startsWith(`node_modules/${name}/`)))).toEqual([]);
  });

  // A verb's file holds its declaration and its run: what the run needs beyond (api, engines,
  // output) it imports when it runs, so declaring a command loads no heavy module, and only its
  // own folder's files and the shared flag helpers (src/commands/flags/, the loose ones beside).
  // `state` is the old spelling of `store list`: its declaration lives in the store's folder.
  const FOLDER: Record<string, string> = { state: 'store' };
  it.each(Object.keys(COMMANDS))("declaring `%s` loads no heavy module and no other command's code", (name) => {
    const sources = sourcesLoaded(['--json', name, '--help']);
    expect(sources).toContain('src/program.ts');
    expect(sources.filter((s) => HEAVY.some((heavy) => s.startsWith(`node_modules/${heavy}/`)))).toEqual([]);
    const folder = FOLDER[name] ?? name;
    const others = sources.filter(
      (s) => /^src\/commands\/(?!flags\/)[^/]+\//.test(s) && !s.startsWith(`src/commands/${folder}/`),
    );
    expect(others).toEqual([]);
  });

  it('a command loads its own module and what it needs, not the other commands', () => {
    const sources = sourcesLoaded(['robots', '--json', '--timeout', '0.1']);
    expect(sources).toContain('src/commands/robots/list.ts');
    const others = sources.filter((s) => /^src\/commands\/(?!robots\/|flags\/)[^/]+\//.test(s));
    expect(others).toEqual([]);
    expect(sources.some((s) => s.startsWith('node_modules/conf/') || s.startsWith('node_modules/csv-parse/'))).toBe(
      false,
    );
  });

  it('with a proxy in the environment, the request goes through undici (EnvHttpProxyAgent)', () => {
    const sources = sourcesLoaded(['robots', '--json', '--timeout', '0.1'], { HTTPS_PROXY: 'http://127.0.0.1:1' });
    expect(sources.some((s) => s.startsWith('node_modules/undici/'))).toBe(true);
  });
});

/** Runs the built CLI with the import tracer, without blocking this process (a sandbox in it answers). */
function traced(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string; sources: string[] }> {
  const file = join(tempDir('callctl-trace-'), 'modules.txt');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tracer, bin, ...args],
      { env: { ...withoutProxies(process.env), TRACE_IMPORTS_FILE: file, ...env } },
      (error, out, err) => {
        const sources = readFileSync(file, 'utf8')
          .split('\n')
          .filter((u) => u.startsWith('file://') && u.includes('/dist/'))
          .flatMap((u) =>
            [...readFileSync(fileURLToPath(u), 'utf8').matchAll(/^\/\/ ((?:src|node_modules|generated)\/\S+)$/gm)].map(
              (m) => m[1]!,
            ),
          );
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, out, err, sources });
      },
    );
  });
}

describe('a read command answered by the service', () => {
  const fixture = useSandbox();

  it('checks the answer without loading zod, and declares only its own command', async () => {
    const r = await traced(['robots', '--json'], { ...fixture.env, CALLCTL_TOKEN: fixture.token });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)[0]).toHaveProperty('RobotID');
    expect(r.sources.filter((s) => s.startsWith('node_modules/zod/'))).toEqual([]);
    // Its own answer's check (generated by the build), not the others'.
    expect(r.sources.filter((s) => s.startsWith('generated/'))).toEqual(['generated/answer-checks/robotList.js']);
    expect(r.sources.filter((s) => s.startsWith('src/schemas/') && !/(answers|formats)\.ts$/.test(s))).toEqual([]);
  });

  it('an answer its check cannot vouch for is read by zod, which names the problem', async () => {
    // A robot without its RobotID: the service's envelope, but not the spec's Robot.
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 200, status: 'OK', data: [{ RobotMethod: 'single', RobotName: 'a' }] }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await traced(['robots', '--json'], {
        CALLCTL_BASE_URL: url,
        CALLCTL_TOKEN: 'tk',
        CALLCTL_CONFIG_DIR: tempDir('callctl-config-'),
      });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/GET \/service\/cloud\/robot: code 200, but an unexpected answer: data\.0\.RobotID: /);
      expect(r.sources.some((s) => s.startsWith('node_modules/zod/'))).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('pipes', () => {
  const fixture = useSandbox();
  it('a reader that closes early (| head -1) ends the run quietly', () => {
    const res = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" push --help | head -1`], { encoding: 'utf8' });
    expect(res.stdout).toMatch(/^Usage: callctl push/);
    expect(res.stderr).toBe('');
  });

  it.each([
    ['--version'],
    ['push', '--help'],
    ['robots'],
    ['robots', '--json'],
    ['task', 'detail', 'T-DEBT-0001', '--format', 'ndjson'],
  ])('an output that cannot be written (a full disk) is one error line and exit 6: %s', async (...args) => {
    // It was Node's stack trace of the ENOSPC, and exit 1. (Not spawnSync: the sandbox answers
    // from this process.)
    const res = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile('sh', ['-c', `"${process.execPath}" "${bin}" ${args.join(' ')} > /dev/full`], {
        env: { ...process.env, ...fixture.env, CALLCTL_TOKEN: fixture.token },
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    // A streamed export says how many records went out before (the request is not sent again).
    const streamed = /; \d+ records? had been written before it$/.exec(res.stderr.split('\n')[0]!)?.[0] ?? '';
    if (args[0] === 'task') expect(streamed).not.toBe('');
    const line = `error: cannot write to stdout: ENOSPC (no space left on the device)${streamed}`;
    const json = { error: { kind: 'local', message: line.slice(7), exitCode: 6 } };
    expect(res.stderr).toBe(`${line}\n${args.includes('--json') ? `${JSON.stringify(json)}\n` : ''}`);
    expect(res.code).toBe(6);
  });
});

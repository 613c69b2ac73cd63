import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
let work: string;
let tarball: string;
let installed: string;
let installedDir: string;
let installLog: string;

beforeAll(async () => {
  work = tempDir('callctl-pack-');
  // --ignore-scripts: dist/ is already built by `npm test`; rebuilding here would race other tests.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root });
  tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz'))!,
  );
  const prefix = join(work, 'global');
  const install = await run(
    'npm',
    ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { cwd: work },
  );
  installLog = install.stdout + install.stderr;
  installed = join(prefix, 'bin', 'callctl');
  installedDir = join(prefix, 'lib', 'node_modules', 'callctl');
}, 180_000);

const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

describe('the packed tarball', () => {
  it('holds only the runtime files', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files).toContain('package/bin/callctl.js');
    expect(files).toContain('package/dist/main.js');
    expect(files).toContain('package/package.json');
    const unexpected = files.filter((f) => !/^package\/(bin\/|dist\/|package\.json$|README\.md$|LICENSE)/.test(f));
    expect(unexpected).toEqual([]);
    expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
  });

  it('installs alone and quietly: no dependencies (dist/ bundles them), no install script, nothing in node_modules', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.scripts.prepare).toBeUndefined();
    expect(manifest.scripts.install ?? manifest.scripts.postinstall ?? manifest.scripts.preinstall).toBeUndefined();
    expect(installLog).toMatch(/added 1 package/);
    expect(installLog).not.toMatch(/install-scripts|prepare/);
    expect(existsSync(join(installedDir, 'node_modules'))).toBe(false);
  });

  it('installs as a global command: --version, sandbox and robots work from the installed copy', async () => {
    const version = (await run(installed, ['--version'])).stdout.trim();
    expect(version).toBe(JSON.parse(execFileSync('cat', [join(root, 'package.json')], { encoding: 'utf8' })).version);

    const sandbox = spawn(installed, ['sandbox', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(sandbox);
    const info = await new Promise<{ url: string; appKey: string; appSecret: string }>((resolve, reject) => {
      let text = '';
      sandbox.stdout!.on('data', (d: Buffer) => {
        text += d;
        const line = text.split('\n')[0];
        if (text.includes('\n')) resolve(JSON.parse(line!));
      });
      sandbox.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    });
    const env = {
      ...process.env,
      CALLCTL_BASE_URL: info.url,
      CALLCTL_APP_KEY: info.appKey,
      CALLCTL_APP_SECRET: info.appSecret,
      CALLCTL_CONFIG_DIR: join(work, 'config'),
      XDG_STATE_HOME: join(work, 'state'),
      XDG_CACHE_HOME: join(work, 'cache'),
    };
    const robots = await run(installed, ['robots', '--json'], { env });
    expect(JSON.parse(robots.stdout).length).toBeGreaterThan(0);
    // conf (the profile store) and csv-parse run from the bundle too.
    await run(installed, ['config', 'set', 'base-url', info.url], { env });
    expect((await run(installed, ['config', 'get', 'base-url'], { env })).stdout.trim()).toBe(info.url);
    const csv = join(work, 'contacts.csv');
    writeFileSync(csv, 'callee,platform\n+6281234567001,a\n');
    const dry = await run(
      installed,
      ['workflow', 'update', '--workflow-id', 'wf-20001', '--csv', csv, '--dry-run', '--json'],
      { env },
    );
    expect(JSON.parse(dry.stdout)).toMatchObject({ valid: 1 });
    sandbox.kill('SIGTERM');
    const code = await new Promise((resolve) => sandbox.on('exit', resolve));
    expect(code).toBe(0);
  });
});

// The release's single executable and Debian package (issue 27), built once for this file from
// dist/ (`npm test` builds it) and the node running the tests: on Node 22 or 24 in .ci/run the
// executable carries that Node. A smoke suite runs it with a PATH holding only the executable and
// coreutils (no node), against the sandbox the executable serves itself; then the .deb made from
// it is checked, installed with dpkg into a scratch root, and its systemd unit verified.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
  existsSync,
  copyFileSync,
  readdirSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildExecutable } from '../scripts/sea.mjs';
import { buildDeb, DEB_PATHS } from '../scripts/deb.mjs';
import { renderManPage } from '../scripts/man-page.mjs';
import { hasProgram, itWith } from './helpers/programs.js';
import { tempDir } from './helpers/temp.js';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
if (!linuxX64)
  console.warn(`skipped: the release tests build a Linux x64 executable; this is ${process.platform}-${process.arch}`);

/** The coreutils a shell script would use: the executable's PATH holds these and nothing else. */
const COREUTILS = [
  'cat',
  'cp',
  'cut',
  'date',
  'env',
  'head',
  'id',
  'ls',
  'mkdir',
  'mv',
  'rm',
  'sha256sum',
  'sleep',
  'sort',
  'tail',
  'tee',
  'touch',
  'tr',
  'true',
  'wc',
];

let work: string;
let executable: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];
/** What building the executable printed as warnings (postject's own go to console.warn). */
const buildWarnings: string[] = [];

beforeAll(async () => {
  if (!linuxX64) return;
  work = tempDir('callctl-release-');
  const bin = join(work, 'bin');
  executable = join(bin, 'callctl');
  const warn = vi.spyOn(console, 'warn').mockImplementation((...args) => void buildWarnings.push(args.join(' ')));
  try {
    await buildExecutable(executable);
  } finally {
    warn.mockRestore();
  }
  for (const name of COREUTILS) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, name)).find((f) => existsSync(f));
    if (found) symlinkSync(found, join(bin, name));
  }
  env = {
    PATH: bin,
    HOME: join(work, 'home'),
    XDG_STATE_HOME: join(work, 'state'),
    XDG_CACHE_HOME: join(work, 'cache'),
    CALLCTL_CONFIG_DIR: join(work, 'config'),
  };
}, 180_000);

afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

/** Runs `callctl ...args`, found on the PATH of `env` (the executable's folder alone). */
function callctl(args: string[], extra: Record<string, string> = {}) {
  return run('callctl', args, { env: { ...env, ...extra }, maxBuffer: 64 << 20 });
}

/** Starts `callctl ...args` and resolves with it and the first line it printed on `stream`. */
function start(args: string[], stream: 'stdout' | 'stderr', extra: Record<string, string> = {}) {
  const child = spawn('callctl', args, { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output.stderr += d));
  const firstLine = new Promise<string>((resolve, reject) => {
    const check = () => output[stream].includes('\n') && resolve(output[stream].split('\n')[0]!);
    child[stream]!.on('data', check);
    child.on('exit', (code) => reject(new Error(`callctl ${args[0]} exited ${code}: ${output.stderr}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, output, firstLine, exit };
}

describe.runIf(linuxX64)('the single executable, with no node on PATH', () => {
  let sandbox: { url: string; appKey: string; appSecret: string; seed: { workflowId: string; debtTaskId: string } };
  let service: Record<string, string>;

  beforeAll(async () => {
    sandbox = JSON.parse(await start(['sandbox', '--port', '0', '--json'], 'stdout').firstLine);
    service = { CALLCTL_BASE_URL: sandbox.url, CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret };
  }, 30_000);

  it("is built without warnings a person cannot act on (postject's about Node's ELF notes)", () => {
    expect(buildWarnings).toEqual([]);
  });

  it('is one file that needs no node: none is on its PATH', async () => {
    expect(statSync(executable).size).toBeGreaterThan(30 << 20); // Node itself is inside
    await expect(run('node', ['--version'], { env })).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers --version and the help pages it carries', async () => {
    expect((await callctl(['--version'])).stdout).toBe(`${version}\n`);
    expect((await callctl(['--help'])).stdout).toMatch(/^Usage: callctl \[options\] \[command\]/);
    const page = (await callctl(['workflow', 'update', '--help'])).stdout;
    expect(page).toMatch(/^Usage: callctl workflow update \[options\]/);
    expect((await callctl(['help', 'sandbox'])).stdout).toMatch(/^Usage: callctl sandbox/);
    // No arguments: the program's page on stderr and exit 2, as the npm package does.
    await expect(callctl([])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^Usage: callctl/) });
    expect((await callctl(['completion', 'fish'])).stdout).toContain('complete -c callctl');
  });

  it('runs the read commands against the sandbox it serves itself', async () => {
    const robots = JSON.parse((await callctl(['robots', '--json'], service)).stdout) as unknown[];
    expect(robots.length).toBeGreaterThan(0);
    const workflows = JSON.parse((await callctl(['workflow', 'list', '--json'], service)).stdout) as Array<{
      id?: string;
    }>;
    expect(JSON.stringify(workflows)).toContain(sandbox.seed.workflowId);
    const task = JSON.parse((await callctl(['task', 'detail', sandbox.seed.debtTaskId, '--json'], service)).stdout);
    expect(JSON.stringify(task)).toContain(sandbox.seed.debtTaskId);
    // conf (the profile store) runs from inside too.
    await callctl(['config', 'set', 'base-url', sandbox.url]);
    expect((await callctl(['config', 'get', 'base-url'])).stdout.trim()).toBe(sandbox.url);
    // A refused request: the documented exit code and one line.
    const refused = callctl(['task', 'detail', 'T-NO-SUCH', '--json'], service);
    await expect(refused).rejects.toMatchObject({ code: 1 });
  });

  it('serve-hooks receives, verifies and logs a notification that hooks trigger signs and sends', async () => {
    const log = join(work, 'events.ndjson');
    const hooks = start(['serve-hooks', '--port', '0', '--key', 'k-1', '--log', log], 'stderr');
    const url = /http:\/\/[\d.:]+/.exec(await hooks.firstLine)![0];
    const sent = JSON.parse(
      (await callctl(['hooks', 'trigger', 'task.end', '--url', url, '--key', 'k-1', '--json'])).stdout,
    );
    expect(sent).toMatchObject({ type: 'task.end', status: 200 });
    hooks.child.kill('SIGTERM');
    expect(await hooks.exit).toBe(0);
    expect(JSON.parse(hooks.output.stdout.split('\n')[0]!)).toMatchObject({ type: 'task.end', verdict: 'verified' });
    expect(readFileSync(log, 'utf8')).toContain('"task.end"');
  });
});

describe.runIf(linuxX64)('the Debian package', () => {
  let deb: string;
  /** A scratch root with its own dpkg database, into which the package is installed. */
  let scratch: string;

  beforeAll(() => {
    if (!hasProgram('dpkg-deb')) return;
    // No compression: the package is the same, and making it takes 2 s instead of 2 minutes (xz).
    deb = buildDeb(executable, join(work, 'deb'), { compression: 'none' });
  }, 60_000);

  itWith(
    'dpkg-deb',
    'says what it is and holds the executable, completions, man page, unit and settings file',
    async () => {
      const info = (await run('dpkg-deb', ['--info', deb])).stdout;
      expect(info).toMatch(/^ Package: callctl$/m);
      expect(info).toMatch(new RegExp(`^ Version: ${version.replaceAll('.', '\\.')}$`, 'm'));
      expect(info).toMatch(/^ Architecture: amd64$/m);
      expect(info).toMatch(/^ Depends: libc6/m);
      const contents = (await run('dpkg-deb', ['--contents', deb])).stdout;
      for (const path of Object.values(DEB_PATHS)) expect(contents).toMatch(new RegExp(` \\./${path}$`, 'm'));
      expect(contents).toMatch(/^-rwxr-xr-x root\/root .* \.\/usr\/bin\/callctl$/m);
      expect(contents).toMatch(/^-rw------- root\/root .* \.\/etc\/callctl\/serve-hooks\.env$/m);
      expect(contents).toMatch(/^drwxr-xr-x root\/root .* \.\/$/m);
      // The settings file is a conffile: an upgrade keeps the operator's KEYs.
      expect((await run('dpkg-deb', ['--info', deb, 'conffiles'])).stdout).toBe('/etc/callctl/serve-hooks.env\n');
    },
  );

  itWith('dpkg', 'installs with dpkg (into a scratch root): callctl --version, completions, licences', async () => {
    scratch = tempDir('callctl-root-', 'file');
    mkdirSync(join(scratch, 'var/lib/dpkg/info'), { recursive: true });
    mkdirSync(join(scratch, 'var/lib/dpkg/updates'), { recursive: true });
    writeFileSync(join(scratch, 'var/lib/dpkg/status'), '');
    // --force-depends: the scratch root's empty database has no libc6; the host provides it.
    await run('dpkg', [
      '--root',
      scratch,
      '--log',
      '/dev/null',
      '--force-script-chrootless',
      '--force-depends',
      '-i',
      deb,
    ]);
    const status = (await run('dpkg', ['--root', scratch, '-s', 'callctl'])).stdout;
    expect(status).toMatch(/^Status: install ok installed$/m);
    expect((await run(join(scratch, 'usr/bin/callctl'), ['--version'], { env })).stdout).toBe(`${version}\n`);
    expect(readFileSync(join(scratch, DEB_PATHS.bash), 'utf8')).toContain(
      'complete -o default -F _callctl_complete callctl',
    );
    expect(readFileSync(join(scratch, DEB_PATHS.zsh), 'utf8')).toMatch(/^#compdef callctl/);
    const copyright = readFileSync(join(scratch, DEB_PATHS.copyright), 'utf8');
    expect(copyright).toMatch(/^callctl\n=+\nMIT License/);
    expect(copyright).toContain('Node.js'); // the runtime inside, with its own licences
    expect(copyright).toMatch(/^zod@\S+\nLicense: MIT$/m);
    // The README and the manual it links, offline: every docs/ page and picture it names is there.
    const doc = join(scratch, dirname(DEB_PATHS.readme));
    const readme = readFileSync(join(doc, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(5);
    for (const page of linked) expect(existsSync(join(doc, page)), page).toBe(true);
    expect(existsSync(join(doc, 'docs/inspector.png'))).toBe(true);
    expect(gunzipSync(readFileSync(join(scratch, DEB_PATHS.changelog))).toString()).toMatch(/^# Changelog\n/);
    // Disabled by default: nothing enables the unit (no wants link, no enabling script).
    expect(
      readdirSync(join(scratch, 'var/lib/dpkg/info'))
        .filter((f) => f.startsWith('callctl.'))
        .sort(),
    ).toEqual(
      ['callctl.conffiles', 'callctl.list', 'callctl.md5sums', 'callctl.postinst', 'callctl.postrm'].filter((f) =>
        existsSync(join(scratch, 'var/lib/dpkg/info', f)),
      ),
    );
    expect(readFileSync(join(scratch, 'var/lib/dpkg/info/callctl.postinst'), 'utf8')).not.toMatch(/enable|start/);
    expect(existsSync(join(scratch, 'etc/systemd'))).toBe(false);
  });

  it('the man page source is the help: every page, its lines as printed, no roff control lines let through', () => {
    const pages = {
      '': 'Usage: callctl [options]\n\nDrive campaigns.\n',
      'a b': "Usage: callctl a b\n.x\n'y\n  --flag \\n\n",
    };
    const roff = renderManPage(pages, '9.9.9');
    expect(roff).toMatch(/^\.TH CALLCTL 1 "" "callctl 9\.9\.9"/);
    expect(roff).toContain('callctl \\- drive campaigns');
    // A line starting with . or ' would be a roff request: \& keeps it text; \ and - print as typed.
    expect(roff).toContain(
      ['.SS "callctl a b"', '.nf', 'Usage: callctl a b', '\\&.x', "\\&'y", '  \\-\\-flag \\en', '.fi'].join('\n'),
    );
  });

  itWith('man', 'man callctl shows the page made from the help, every command in it', async () => {
    const { stdout } = await run('man', ['callctl'], {
      env: { ...process.env, MANPATH: join(scratch, 'usr/share/man'), MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
    });
    const page = stdout.replace(/.\x08/g, '');
    expect(page).toMatch(/^CALLCTL\(1\)/);
    expect(page).toContain('callctl - drive robot outbound-calling campaigns');
    const help = JSON.parse(readFileSync(new URL('../dist/help.json', import.meta.url), 'utf8')) as Record<
      string,
      string
    >;
    for (const key of Object.keys(help).filter(Boolean)) expect(page).toContain(`callctl ${key}`);
    // Flags keep their plain hyphens (copied from the page, they work).
    expect(page).toContain('--workflow-id <id>');
  });

  itWith('systemd-analyze', 'the serve-hooks unit passes systemd-analyze verify', async () => {
    // The scratch root has no systemd of its own: the host's targets stand in for it.
    const units = join(scratch, 'lib/systemd/system');
    mkdirSync(units, { recursive: true });
    for (const f of readdirSync('/lib/systemd/system').filter((n) => n.endsWith('.target')))
      copyFileSync(join('/lib/systemd/system', f), join(units, f));
    // ExecReload= runs /bin/kill (procps or util-linux, on every Debian system): the host's stands in too.
    mkdirSync(join(scratch, 'bin'), { recursive: true });
    copyFileSync('/bin/kill', join(scratch, 'bin/kill'));
    const unit = `/${DEB_PATHS.unit}`;
    // MANPATH: verify also checks that Documentation=man:callctl(1) opens.
    const verify = await run('systemd-analyze', ['verify', `--root=${scratch}`, unit], {
      env: { ...process.env, MANPATH: join(scratch, 'usr/share/man') },
    });
    expect(verify.stderr).toBe('');
  });
});

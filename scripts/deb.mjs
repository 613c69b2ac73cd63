// The Debian package: the single executable (scripts/sea.mjs) as /usr/bin/callctl, its shell
// completions where bash-completion, zsh and fish look for them, the man page made from the help
// (scripts/man-page.mjs), the README, changelog and manual (docs/) in /usr/share/doc/callctl, and
// serve-hooks as a systemd service (packaging/), installed disabled,
// its settings in /etc/callctl/serve-hooks.env and its state in /var/lib/callctl. Built with
// dpkg-deb (Debian's dpkg), no other Debian tooling.
//
//   node scripts/deb.mjs EXECUTABLE [OUT_DIR]   (default release/)
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { manPageOfBuild } from './man-page.mjs';
import { executableNotices } from './sea.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where each file goes in the package, and its mode. */
export const DEB_PATHS = {
  executable: 'usr/bin/callctl',
  bash: 'usr/share/bash-completion/completions/callctl',
  zsh: 'usr/share/zsh/vendor-completions/_callctl',
  fish: 'usr/share/fish/vendor_completions.d/callctl.fish',
  man: 'usr/share/man/man1/callctl.1.gz',
  unit: 'usr/lib/systemd/system/callctl-serve-hooks.service',
  settings: 'etc/callctl/serve-hooks.env',
  copyright: 'usr/share/doc/callctl/copyright',
  readme: 'usr/share/doc/callctl/README.md',
  changelog: 'usr/share/doc/callctl/changelog.gz',
  manual: 'usr/share/doc/callctl/docs/README.md',
};

/** A reload after install and removal lets a running systemd see the unit; never in a --root install. */
const RELOAD = `#!/bin/sh
set -e
if [ -z "$DPKG_ROOT" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
`;

/**
 * Builds callctl_VERSION_amd64.deb in `outDir` from `executable` and returns its path.
 * `compression` is dpkg-deb's -Z (xz for a release; the tests take gzip, much faster to make).
 */
export function buildDeb(executable, outDir, { compression = 'xz' } = {}) {
  const { version, description, license } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), 'callctl-deb-'));
  chmodSync(stage, 0o755); // the package's root folder: / when installed
  const put = (where, content, mode = 0o644) => {
    const file = join(stage, where);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    chmodSync(file, mode);
  };
  try {
    mkdirSync(join(stage, 'usr/bin'), { recursive: true });
    copyFileSync(executable, join(stage, DEB_PATHS.executable));
    chmodSync(join(stage, DEB_PATHS.executable), 0o755);
    for (const shell of ['bash', 'zsh', 'fish'])
      put(DEB_PATHS[shell], execFileSync(executable, ['completion', shell], { encoding: 'utf8' }));
    put(DEB_PATHS.man, gzipSync(manPageOfBuild(), { level: 9 }));
    put(DEB_PATHS.unit, readFileSync(join(root, 'packaging/callctl-serve-hooks.service')));
    // It holds the KEYs once filled in: root only.
    put(DEB_PATHS.settings, readFileSync(join(root, 'packaging/serve-hooks.env')), 0o600);
    put(DEB_PATHS.copyright, executableNotices());
    // The README and the manual beside it (docs/, its pages and pictures), so the README's links
    // work offline; the changelog as Debian keeps one.
    put(DEB_PATHS.readme, readFileSync(join(root, 'README.md')));
    put(DEB_PATHS.changelog, gzipSync(readFileSync(join(root, 'CHANGELOG.md')), { level: 9 }));
    for (const file of readdirSync(join(root, 'docs'), { recursive: true }).filter((f) => /\.(md|png)$/.test(f)))
      put(join(dirname(DEB_PATHS.manual), file), readFileSync(join(root, 'docs', file)));
    put('DEBIAN/conffiles', `/${DEB_PATHS.settings}\n`);
    put('DEBIAN/postinst', RELOAD, 0o755);
    put('DEBIAN/postrm', RELOAD, 0o755);
    const kib = Math.ceil(statSync(executable).size / 1024) + 200;
    put(
      'DEBIAN/control',
      [
        'Package: callctl',
        `Version: ${version}`,
        'Architecture: amd64',
        'Maintainer: callctl developers <noreply@callctl.invalid>',
        // What Node's official Linux x64 binary links against (glibc 2.28 and newer).
        'Depends: libc6 (>= 2.28), libstdc++6, libgcc-s1',
        'Section: utils',
        'Priority: optional',
        `Installed-Size: ${kib}`,
        'Description: command-line tool for robot outbound-calling campaigns',
        ` ${description}`,
        ` callctl in one executable file, with Node.js inside (licence: ${license}).`,
        ' Includes the man page, bash, zsh and fish completions, and a systemd unit',
        ' for serve-hooks (callctl-serve-hooks.service, disabled until enabled).',
        '',
      ].join('\n'),
    );
    mkdirSync(outDir, { recursive: true });
    const out = join(resolve(outDir), `callctl_${version}_amd64.deb`);
    execFileSync('dpkg-deb', ['--root-owner-group', `-Z${compression}`, '--build', stage, out], { stdio: 'pipe' });
    return out;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [executable, outDir = join(root, 'release')] = process.argv.slice(2);
  if (!executable) throw new Error('usage: node scripts/deb.mjs EXECUTABLE [OUT_DIR]');
  console.log(buildDeb(resolve(executable), outDir));
}

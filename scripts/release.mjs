// `npm run release` (after `npm run build`): everything a release publishes, in release/:
//   callctl-VERSION.tgz               the npm package (npm pack)
//   callctl-VERSION-linux-x64         the single executable, Node inside (scripts/sea.mjs)
//   callctl_VERSION_amd64.deb         the Debian package (scripts/deb.mjs)
//   THIRD-PARTY-NOTICES.txt           callctl's, Node's and the bundled packages' licence notices
//   callctl-VERSION.cdx.json          the CycloneDX SBOM of what they carry (scripts/sbom.mjs)
//   SHA256SUMS                        for `sha256sum -c SHA256SUMS`
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDeb } from './deb.mjs';
import { releaseSbom } from './sbom.mjs';
import { buildExecutable, executableNotices } from './sea.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'release');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const step = (what) => console.log(`release: ${what}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out);
step('npm package');
// --ignore-scripts: `npm run release` has just built dist/ (prepack would build it again).
execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
  cwd: root,
  stdio: 'ignore',
});
step('single executable');
const executable = join(out, `callctl-${version}-linux-x64`);
const node = await buildExecutable(executable);
step('Debian package (xz takes a minute or two)');
buildDeb(executable, out);
step('notices and SBOM');
writeFileSync(join(out, 'THIRD-PARTY-NOTICES.txt'), executableNotices());
writeFileSync(join(out, `callctl-${version}.cdx.json`), `${JSON.stringify(releaseSbom(), null, 2)}\n`);

const files = readdirSync(out).sort();
const sums = files.map(
  (f) =>
    `${createHash('sha256')
      .update(readFileSync(join(out, f)))
      .digest('hex')}  ${f}\n`,
);
writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
console.log(`release/ (executable with Node ${node}):`);
for (const f of [...files, 'SHA256SUMS'])
  console.log(`  ${(statSync(join(out, f)).size / 2 ** 20).toFixed(1).padStart(6)} MiB  ${f}`);

import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { taskSign } from '../../src/signing/sign.js';
import { itWith } from '../helpers/programs.js';
import { ensureBuilt, exited, serveHooksChild, type ChildHooks } from './child.js';
import { tempDir, until } from './helpers.js';

const KEY = 'tls-key';
let running: ChildHooks | undefined;
beforeAll(ensureBuilt);
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});

/** A self-signed certificate for 127.0.0.1 made now with openssl: its files and PEM. */
function certificate(dir: string, name: string) {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key, pem: readFileSync(cert), keyPem: readFileSync(key) };
}

/** POSTs one signed task end over HTTPS, trusting `ca`; the status, the certificate seen and the socket's port. */
function postTls(url: string, ca: Buffer, agent: https.Agent, id: string) {
  const body = JSON.stringify({ TaskID: id, TaskName: 'tls', Sign: taskSign(id, KEY) });
  return new Promise<{ status: number; fingerprint: string; localPort: number }>((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        const socket = res.socket as TLSSocket;
        const seen = { fingerprint: socket.getPeerCertificate().fingerprint256, localPort: socket.localPort! };
        res.on('end', () => resolve({ status: res.statusCode!, ...seen }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('serve-hooks over TLS', () => {
  itWith(
    'openssl',
    'serves HTTPS with --tls-cert/--tls-key, and takes a renewed certificate on SIGHUP without dropping connections',
    async () => {
      const dir = tempDir();
      const one = certificate(dir, 'one');
      const two = certificate(dir, 'two');
      const cert = join(dir, 'live.crt');
      const key = join(dir, 'live.key');
      writeFileSync(cert, one.pem);
      writeFileSync(key, one.keyPem);
      running = await serveHooksChild(['--key', KEY, '--tls-cert', cert, '--tls-key', key], {}, 'https');
      const hooks = running;
      expect(hooks.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const fp = (pem: Buffer) => new X509Certificate(pem).fingerprint256;

      const kept = new https.Agent({ keepAlive: true, maxSockets: 1 });
      const first = await postTls(hooks.url, one.pem, kept, 'T-TLS-1');
      expect(first).toMatchObject({ status: 200, fingerprint: fp(one.pem) });

      // The certificate is renewed: the files are replaced, and SIGHUP reads them again.
      writeFileSync(cert, two.pem);
      writeFileSync(key, two.keyPem);
      hooks.child.kill('SIGHUP');
      await until(() => /certificate and key read again/.test(hooks.stderr()), 5_000);
      // The connection opened before goes on (same socket, the old certificate)...
      const same = await postTls(hooks.url, one.pem, kept, 'T-TLS-2');
      expect(same).toMatchObject({ status: 200, fingerprint: fp(one.pem), localPort: first.localPort });
      // ...and a new one gets the new certificate.
      const fresh = await postTls(hooks.url, two.pem, new https.Agent({ keepAlive: false }), 'T-TLS-3');
      expect(fresh).toMatchObject({ status: 200, fingerprint: fp(two.pem) });

      // A renewal gone wrong (a key that is not the certificate's) is told, and the pair in use stays.
      writeFileSync(key, one.keyPem);
      hooks.child.kill('SIGHUP');
      await until(() => /not reloaded, the ones in use stay/.test(hooks.stderr()), 5_000);
      const still = await postTls(hooks.url, two.pem, new https.Agent({ keepAlive: false }), 'T-TLS-4');
      expect(still).toMatchObject({ status: 200, fingerprint: fp(two.pem) });
      kept.destroy();
      hooks.child.kill('SIGTERM');
      expect((await exited(hooks.child)).code).toBe(0);
    },
  );
});

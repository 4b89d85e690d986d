import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  /** PEM of the certificate authority that signed the server certificate. */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A throwaway certificate authority and a server certificate it signed, made with openssl,
 * for `names` (DNS names; `127.0.0.1` and `::1` go in as IP addresses).
 */
export async function makeTestCertificates(dir: string, names: string[] = ['localhost', '127.0.0.1']): Promise<TestCertificates> {
  const file = (name: string) => path.join(dir, name);
  const caKey = file('ca.key');
  const caFile = file('ca.pem');
  const keyFile = file('server.key');
  const csr = file('server.csr');
  const certFile = file('server.pem');
  const ext = file('server.ext');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    caKey,
    '-out',
    caFile,
    '-days',
    '2',
    '-subj',
    '/CN=pkg test CA',
  ]);
  await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', csr, '-subj', `/CN=${names[0]}`]);
  const altNames = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  await writeFile(
    ext,
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${altNames}\n`,
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    certFile,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return { caFile, certFile, keyFile };
}

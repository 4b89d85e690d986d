import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  /** PEM of the throwaway certificate authority: what a client must trust. */
  caCert: string;
  /** PEM server certificate for 127.0.0.1 and localhost (and the extra names), signed by the CA. */
  cert: string;
  key: string;
}

/**
 * Makes a throwaway CA and a server certificate signed by it with `openssl`, in `dir`.
 * Returns the file paths. `extraNames` are added as DNS subject alternative names
 * (e.g. `*.registry.test` for tenant hosts).
 */
export async function makeTestCertificates(dir: string, extraNames: string[] = []): Promise<TestCertificates> {
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  // prettier-ignore
  await run('openssl', [
    'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=pkg-registry test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', ['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  const names = ['IP:127.0.0.1', 'DNS:localhost', ...extraNames.map((n) => `DNS:${n}`)];
  await writeFile(
    file('server.ext'),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${names.join(',')}\n`,
  );
  // prettier-ignore
  await run('openssl', [
    'x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'),
  ]);
  return { caCert: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

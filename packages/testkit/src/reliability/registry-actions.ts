import { createHash } from 'node:crypto';
import { publishBody } from '../publish-body.js';
import { buildTarball } from '../tarballs.js';
import { json, type LoadClient, type Outcome } from './http.js';

/** Signs up (or logs in) and returns the token. */
export async function signUp(client: LoadClient, name: string, password = `${name}-password`): Promise<string> {
  const res = await client.request('PUT', `/-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
    json: { name, password, email: `${name}@example.com` },
  });
  if (res.status !== 201) throw new Error(`sign-up of ${name} failed: ${res.status ?? res.failure} ${res.body.toString()}`);
  return json<{ token: string }>(res).token;
}

/** `npm publish` of one version; `payload` makes the tarball's bytes (and so its integrity) differ. */
export function publish(
  client: LoadClient,
  token: string,
  name: string,
  version: string,
  payload?: Buffer,
  timeoutMs?: number,
): Promise<Outcome> {
  const tarball = payload ? tarballWith(name, version, payload) : undefined;
  const { body } = publishBody(name, version, tarball ? { tarball } : {});
  return client.request('PUT', `/${name}`, { token, json: body, ...(timeoutMs ? { timeoutMs } : {}) });
}

/** The tarball `publish` sends for a payload (the same bytes every time). */
export function tarballWith(name: string, version: string, payload: Buffer): Buffer {
  return buildTarball({ name, version }, [{ path: 'Runtime/payload.bin', content: payload }]);
}

/** The sha512 integrity of bytes, as `dist.integrity` writes it. */
export function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/**
 * Whether `name@version` is served whole: in the document, with a tarball whose bytes hash to
 * the recorded integrity. Returns the problem, or undefined.
 */
export async function versionProblem(client: LoadClient, name: string, version: string): Promise<string | undefined> {
  const doc = await client.request('GET', `/${name}`);
  if (doc.status !== 200) return `${name}: document answered ${doc.status ?? doc.failure}`;
  const record = json<{ versions: Record<string, { dist: { integrity: string } }> }>(doc).versions[version];
  if (!record) return `${name}@${version} is missing from the document`;
  const tarball = await client.request('GET', `/${name}/-/${name}-${version}.tgz`);
  if (tarball.status !== 200) return `${name}@${version}: tarball answered ${tarball.status ?? tarball.failure}`;
  if (integrityOf(tarball.body) !== record.dist.integrity) return `${name}@${version}: tarball bytes do not match dist.integrity`;
  return undefined;
}

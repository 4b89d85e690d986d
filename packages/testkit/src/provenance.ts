import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ProvenanceOptions {
  /** The subject's package URL (default: `pkg:npm/<name>@<version>`). */
  subjectName?: string;
  /** The subject's sha512, hex (default: the tarball's). */
  sha512?: string;
  /** Change the payload after signing (a tampered bundle). */
  tamper?: boolean;
}

/**
 * A Sigstore bundle as `npm publish --provenance` attaches it: a DSSE envelope over an in-toto
 * statement (SLSA provenance v1) naming `pkg:npm/<name>@<version>` and the tarball's sha512,
 * signed by a throwaway certificate (openssl) that stands in for Fulcio's; no transparency-log
 * entry a server could check offline.
 */
export async function provenanceBundle(
  name: string,
  version: string,
  tarball: Buffer,
  options: ProvenanceOptions = {},
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-provenance-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    // prettier-ignore
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=sigstore-intermediate test']);
    const statement = {
      _type: 'https://in-toto.io/Statement/v1',
      subject: [
        {
          name: options.subjectName ?? `pkg:npm/${name}@${version}`,
          digest: { sha512: options.sha512 ?? createHash('sha512').update(tarball).digest('hex') },
        },
      ],
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: { buildDefinition: { buildType: 'https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1' } },
    };
    const payloadType = 'application/vnd.in-toto+json';
    const payload = Buffer.from(JSON.stringify(statement));
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${payloadType.length} ${payloadType} ${payload.length} `), payload]);
    const sig = sign('sha256', pae, createPrivateKey(await readFile(key, 'utf8')));
    const der = (await readFile(cert, 'utf8')).replace(/-----[A-Z ]+-----|\s/g, '');
    const signed = options.tamper ? Buffer.from(JSON.stringify({ ...statement, predicate: {} })) : payload;
    return JSON.stringify({
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: { certificate: { rawBytes: der }, tlogEntries: [] },
      dsseEnvelope: { payload: signed.toString('base64'), payloadType, signatures: [{ sig: sig.toString('base64'), keyid: '' }] },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A CMS SignedData as Unity's packing tool puts it in `package/.attestation.p7m`: here made with
 * `openssl cms` and a throwaway certificate whose subject names `organization`.
 */
export async function unityAttestation(organization: string, content = 'package contents'): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-unity-sign-'));
  try {
    const file = (name: string) => path.join(dir, name);
    // prettier-ignore
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', file('key.pem'), '-out', file('cert.pem'), '-days', '1', '-subj', `/O=${organization}/CN=${organization} package signing`]);
    await import('node:fs/promises').then((fs) => fs.writeFile(file('content'), content));
    // prettier-ignore
    await run('openssl', ['cms', '-sign', '-binary', '-in', file('content'), '-signer', file('cert.pem'), '-inkey', file('key.pem'),
      '-outform', 'DER', '-out', file('attestation.p7m')]);
    return await readFile(file('attestation.p7m'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

import { sign } from 'node:crypto';
import { ProtocolError, isSemver } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { sigstoreKeyFor } from '../storage/blob-keys.js';
import type { TenantId } from '../storage/ports.js';
import { isCachedCopy } from './uplinks/upstream-document.js';
import type { UpstreamAttestations } from './uplinks/upstream-attestations.js';
import type { Uplink } from '../config/uplink-config.js';
import { privateKeyOf } from './registry-signatures.js';

/** npm's predicate type of a registry's publish attestation. */
export const PUBLISH_PREDICATE = 'https://github.com/npm/attestation/tree/main/specs/publish/v0.1';
const IN_TOTO = 'application/vnd.in-toto+json';

export interface Attestation {
  predicateType: string;
  bundle: unknown;
}

/**
 * `/-/npm/v1/attestations/<name>@<version>` as npm's registry answers it: the provenance bundle
 * the publisher attached (byte for byte as stored), then the registry's own publish attestation:
 * a DSSE envelope of an in-toto statement (subject `pkg:npm/<name>@<version>` with the tarball's
 * sha512, predicate: name, version, registry) signed with the key that signed the version,
 * named by `keyid` (verifiable against `/-/npm/v1/keys`; no transparency-log entry). A package
 * served from an uplink answers with the upstream's attestations instead, as the upstream
 * wrote them (see UpstreamAttestations).
 */
export class AttestationService {
  readonly #deps: Pick<ServerDeps, 'packages' | 'blobs' | 'signingKeys'>;
  readonly #upstream: UpstreamAttestations | undefined;

  constructor(deps: Pick<ServerDeps, 'packages' | 'blobs' | 'signingKeys'>, upstream?: UpstreamAttestations) {
    this.#deps = deps;
    this.#upstream = upstream;
  }

  /** The attestations of a version published here, or the JSON bytes of the upstream's for a proxied one (`uplink` covers `name`). */
  async attestations(
    tenant: TenantId,
    name: string,
    version: string,
    registryUrl: string,
    uplink?: Uplink,
  ): Promise<{ attestations: Attestation[] } | Buffer> {
    const missing = () => new ProtocolError('NOT_FOUND', `${name}@${version} has no attestations here`);
    if (!isSemver(version)) throw missing();
    const stored = await this.#deps.packages.package(tenant, name).read();
    // Covered by an uplink and not published here before the rule was: the upstream's package.
    const proxied = stored === undefined || stored.unpublished || isCachedCopy(stored.document);
    if (uplink !== undefined && this.#upstream !== undefined && proxied) return this.#upstream.of(tenant, uplink, name, version);
    const record =
      stored && !stored.unpublished && !isCachedCopy(stored.document) ? stored.document.versions[version] : undefined;
    const provenance = (record?.dist.attestations as { provenance?: { predicateType?: unknown } } | undefined)?.provenance;
    if (!record || typeof provenance?.predicateType !== 'string') throw missing();
    const blob = await this.#deps.blobs.get(sigstoreKeyFor(tenant, name, version));
    if (!blob) throw missing();
    const chunks: Buffer[] = [];
    for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
    const bundle = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;

    const signature = (record.dist.signatures as { keyid?: unknown }[] | undefined)?.[0];
    const key = (await this.#deps.signingKeys.list(tenant)).find((k) => k.keyid === signature?.keyid);
    const attestations: Attestation[] = [{ predicateType: provenance.predicateType, bundle }];
    if (key) {
      const statement = {
        _type: 'https://in-toto.io/Statement/v1',
        subject: [{ name: `pkg:npm/${name}@${version}`, digest: { sha512: sha512Hex(record.dist.integrity) } }],
        predicateType: PUBLISH_PREDICATE,
        predicate: { name, version, registry: registryUrl },
      };
      const payload = Buffer.from(JSON.stringify(statement));
      const pae = Buffer.concat([Buffer.from(`DSSEv1 ${IN_TOTO.length} ${IN_TOTO} ${payload.length} `), payload]);
      const sig = sign('sha256', pae, privateKeyOf(key)).toString('base64');
      attestations.push({
        predicateType: PUBLISH_PREDICATE,
        bundle: {
          mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
          verificationMaterial: { publicKey: { hint: key.keyid }, tlogEntries: [] },
          dsseEnvelope: { payload: payload.toString('base64'), payloadType: IN_TOTO, signatures: [{ sig, keyid: key.keyid }] },
        },
      });
    }
    return { attestations };
  }
}

function sha512Hex(integrity: string): string {
  const entry = integrity.split(/\s+/).find((e) => e.startsWith('sha512-')) ?? '';
  return Buffer.from(entry.slice('sha512-'.length), 'base64').toString('hex');
}

import { X509Certificate, verify } from 'node:crypto';
import { ProtocolError } from '@pkg/protocol';

/** What a provenance bundle told, once checked. */
export interface ProvenanceFacts {
  /** The statement's predicate type (`https://slsa.dev/provenance/v1`). */
  predicateType: string;
}

const IN_TOTO = 'application/vnd.in-toto+json';

/**
 * Checks the Sigstore bundle `npm publish --provenance` attaches, as far as it can be checked
 * without Sigstore's servers: a bundle (`application/vnd.dev.sigstore.bundle…`) with a DSSE
 * envelope of an in-toto statement whose first subject is `pkg:npm/<name>@<version>` with the
 * tarball's sha512, and whose signature verifies with the certificate (or certificate chain's
 * leaf) the bundle carries. Not checked: that the certificate chains to Fulcio's root, that it
 * names a CI identity, and the transparency-log entry (those need Sigstore's trust root and
 * Rekor; clients that can reach them check them on install). Any failure is 422 with the reason.
 */
export function checkProvenance(bytes: Buffer, name: string, version: string, sha512Hex: string): ProvenanceFacts {
  let bundle: unknown;
  try {
    bundle = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw refused('it is not JSON');
  }
  const b = bundle as {
    mediaType?: unknown;
    dsseEnvelope?: { payload?: unknown; payloadType?: unknown; signatures?: { sig?: unknown }[] };
    verificationMaterial?: {
      certificate?: { rawBytes?: unknown };
      x509CertificateChain?: { certificates?: { rawBytes?: unknown }[] };
    };
  };
  if (typeof b?.mediaType !== 'string' || !b.mediaType.startsWith('application/vnd.dev.sigstore.bundle')) {
    throw refused('it is not a Sigstore bundle (mediaType application/vnd.dev.sigstore.bundle…)');
  }
  const envelope = b.dsseEnvelope;
  if (typeof envelope?.payload !== 'string' || envelope.payloadType !== IN_TOTO) {
    throw refused(`it holds no DSSE envelope of an in-toto statement (${IN_TOTO})`);
  }
  const payload = Buffer.from(envelope.payload, 'base64');
  let statement: { subject?: { name?: unknown; digest?: { sha512?: unknown } }[]; predicateType?: unknown };
  try {
    statement = JSON.parse(payload.toString('utf8')) as typeof statement;
  } catch {
    throw refused('its statement is not JSON');
  }
  const subject = Array.isArray(statement?.subject) ? statement.subject[0] : undefined;
  const purl = `pkg:npm/${name}@${version}`;
  if (subject?.name !== purl) {
    throw refused(`its subject is ${shown(subject?.name)}, not ${purl}`);
  }
  if (subject.digest?.sha512 !== sha512Hex) {
    throw refused(`its subject's sha512 (${shown(subject.digest?.sha512)}) is not the tarball's (${sha512Hex})`);
  }
  if (typeof statement.predicateType !== 'string' || statement.predicateType === '')
    throw refused('its statement names no predicateType');

  const raw =
    b.verificationMaterial?.certificate?.rawBytes ?? b.verificationMaterial?.x509CertificateChain?.certificates?.[0]?.rawBytes;
  if (typeof raw !== 'string') throw refused('it carries no signing certificate');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(raw, 'base64'));
  } catch {
    throw refused('its signing certificate cannot be read');
  }
  const signature = envelope.signatures?.[0]?.sig;
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${IN_TOTO.length} ${IN_TOTO} ${payload.length} `), payload]);
  if (typeof signature !== 'string' || !verify('sha256', pae, certificate.publicKey, Buffer.from(signature, 'base64'))) {
    throw refused("its signature does not verify with the bundle's certificate");
  }
  return { predicateType: statement.predicateType };
}

function refused(why: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', `the provenance bundle was refused: ${why}`);
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

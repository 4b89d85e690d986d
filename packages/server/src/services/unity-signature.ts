import { X509Certificate } from 'node:crypto';

/** What the registry records of a Unity-signed version (`dist.unitySignature`). */
export interface UnitySignatureFacts {
  /** The signer as its certificate names it (organization, else common name), or null when it cannot be read. */
  signer: string | null;
}

/**
 * The signer named in Unity's package signature (`package/.attestation.p7m`, a CMS/PKCS#7
 * SignedData made by Unity's packing tool). The certificates inside are found by trying each
 * DER SEQUENCE of certificate size with node's X509Certificate, which only accepts a whole,
 * well-formed certificate; the first one that is not a CA names the signer. The signature itself
 * is not verified here: the Unity Editor does that on import, against Unity's roots.
 */
export function unitySignatureFacts(p7m: Buffer | true): UnitySignatureFacts {
  if (p7m === true) return { signer: null };
  const certificates = certificatesIn(p7m);
  const leaf = certificates.find((c) => !c.ca) ?? certificates[0];
  return { signer: leaf ? nameOf(leaf.subject) : null };
}

function certificatesIn(der: Buffer): X509Certificate[] {
  const found: X509Certificate[] = [];
  for (let i = 0; i + 4 < der.length && found.length < 10; i++) {
    // A certificate is a SEQUENCE with a two-byte length (certificates are 256 B – 64 KiB).
    if (der[i] !== 0x30 || der[i + 1] !== 0x82) continue;
    const length = der.readUInt16BE(i + 2) + 4;
    if (length < 256 || i + length > der.length) continue;
    try {
      found.push(new X509Certificate(der.subarray(i, i + length)));
      i += length - 1;
    } catch {
      // not a certificate: go on
    }
  }
  return found;
}

/** `O`, else `CN`, of a subject as node prints it (`CN=…\nO=…`). */
function nameOf(subject: string): string | null {
  const fields = new Map(
    subject.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const name = fields.get('O') ?? fields.get('CN');
  return name ? name.slice(0, 200) : null;
}

import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from './config.js';

/**
 * The PEM certificate and key named by tlsCert/tlsKey, or undefined when HTTPS is not
 * configured. Both are parsed and matched here, so a key given as the certificate, or a key of
 * another certificate, is named with its setting and file (exit 2) instead of OpenSSL's
 * `PEM routines::no start line`.
 */
export function readTlsFiles(config: Pick<Config, 'tlsCert' | 'tlsKey'>): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const cert = readPem(config.tlsCert, 'tlsCert');
  const key = readPem(config.tlsKey, 'tlsKey');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError(
      `setting 'tlsCert': ${config.tlsCert} does not hold a certificate${/PRIVATE KEY-----/.test(cert.toString('latin1')) ? ' (it holds a private key)' : ''}`,
      'give --tls-cert the certificate (BEGIN CERTIFICATE) and --tls-key its private key',
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(
      `setting 'tlsKey': ${config.tlsKey} does not hold an unencrypted private key`,
      'give --tls-key the PEM private key of the certificate, without a passphrase',
    );
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError(
      `setting 'tlsKey': the key in ${config.tlsKey} does not belong to the certificate in ${config.tlsCert}`,
      'give the key the certificate was issued for',
    );
  }
  return { cert, key };
}

function readPem(file: string, setting: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(
      `setting '${setting}': cannot read ${file}: ${code}`,
      code === 'EACCES'
        ? `give the user running pkg-registry read access to ${file}`
        : `check the path given to --${setting === 'tlsCert' ? 'tls-cert' : 'tls-key'}`,
    );
  }
  if (!bytes.toString('latin1').includes('-----BEGIN ')) {
    throw new ConfigError(`setting '${setting}': ${file} is not a PEM file`, 'give a PEM file (text starting with -----BEGIN)');
  }
  return bytes;
}

// AWS Signature Version 4 verification of one HTTP request, written from AWS's specification
// ("Create a signed AWS API request"), not from the SDK that signs: the S3 test server checks
// our S3 driver's requests with it, so a signing mistake fails tests instead of passing loosely.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's X-Amz-Date may be from the server's clock (S3 allows 15 minutes). */
const MAX_SKEW_MS = 15 * 60 * 1000;

/**
 * Checks `Authorization: AWS4-HMAC-SHA256 …` of a request against `secrets` (access key id →
 * secret). Returns undefined when the signature is right, else `{code, message}` in S3's terms.
 * `request` is {method, url (path and query as sent), headers (lowercase names, node's form), body (Buffer)}.
 */
export function verifySigV4(request, secrets, now = Date.now()) {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return { code: 'AccessDenied', message: 'Anonymous requests are refused' };
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (!match) return { code: 'AuthorizationHeaderMalformed', message: 'Not an AWS4-HMAC-SHA256 authorization header' };
  const [, credential, signedHeaderList, signature] = match;
  const [accessKeyId, day, region, service, terminator, ...rest] = credential.split('/');
  if (rest.length > 0 || terminator !== 'aws4_request' || service !== 's3' || !region || !/^\d{8}$/.test(day ?? '')) {
    return { code: 'AuthorizationHeaderMalformed', message: `Malformed credential scope '${credential}'` };
  }
  const secret = secrets[accessKeyId];
  if (secret === undefined) return { code: 'InvalidAccessKeyId', message: `Unknown access key id '${accessKeyId}'` };

  const amzDate = request.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return { code: 'AccessDenied', message: 'X-Amz-Date is missing or not of the form yyyyMMddTHHmmssZ' };
  }
  if (amzDate.slice(0, 8) !== day)
    return { code: 'SignatureDoesNotMatch', message: 'The credential date is not the X-Amz-Date day' };
  const signedAt = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(now - signedAt) > MAX_SKEW_MS)
    return { code: 'RequestTimeTooSkewed', message: 'X-Amz-Date is more than 15 minutes off' };

  const signedHeaders = signedHeaderList.split(';');
  const sorted = [...signedHeaders].sort();
  if (signedHeaders.some((h, i) => h !== sorted[i] || h !== h.toLowerCase())) {
    return { code: 'SignatureDoesNotMatch', message: 'SignedHeaders must be lowercase and sorted' };
  }
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!signedHeaders.includes(required)) return { code: 'AccessDenied', message: `The '${required}' header must be signed` };
  }
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (payloadHash !== 'UNSIGNED-PAYLOAD') {
    if (!/^[0-9a-f]{64}$/.test(payloadHash)) {
      return { code: 'InvalidArgument', message: 'x-amz-content-sha256 must be the hex SHA-256 of the body or UNSIGNED-PAYLOAD' };
    }
    if (createHash('sha256').update(request.body).digest('hex') !== payloadHash) {
      return { code: 'XAmzContentSHA256Mismatch', message: 'The body does not match x-amz-content-sha256' };
    }
  }

  const queryStart = request.url.indexOf('?');
  const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const query = queryStart === -1 ? '' : request.url.slice(queryStart + 1);
  const canonicalRequest = [
    request.method,
    // S3 signs the path as sent: it is URI-encoded once and not normalized.
    path || '/',
    canonicalQuery(query),
    signedHeaders.map((name) => `${name}:${canonicalHeaderValue(request.headers[name])}\n`).join(''),
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${secret}`, day);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return {
      code: 'SignatureDoesNotMatch',
      message: 'The request signature we calculated does not match the signature you provided',
    };
  }
  return undefined;
}

/** Parameters sorted by encoded name (then value), each name and value RFC 3986-encoded. */
function canonicalQuery(query) {
  if (query === '') return '';
  const pairs = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const value = eq === -1 ? '' : part.slice(eq + 1);
      return [uriEncode(decodeURIComponent(name)), uriEncode(decodeURIComponent(value))];
    });
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function canonicalHeaderValue(value) {
  const joined = Array.isArray(value) ? value.join(',') : String(value ?? '');
  return joined.trim().replace(/\s+/g, ' ');
}

function uriEncode(text) {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key, data) {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

import { ConfigError } from '../../../config/config.js';

export interface S3Location {
  bucket: string;
  /** Key prefix inside the bucket (`?prefix=`), e.g. `registry/`; empty by default. */
  prefix: string;
  /** Endpoint of an S3-compatible service; unset: AWS S3 itself. */
  endpoint: string | undefined;
  region: string;
  /** Path-style URLs (`endpoint/bucket/key`): the default when an endpoint is given. */
  forcePathStyle: boolean;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads `s3://<bucket>?endpoint=http://127.0.0.1:9000&region=us-east-1&prefix=registry/`.
 * Credentials are not part of it: the AWS SDK takes them from AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY (or a profile, or an instance role) as every AWS tool does.
 */
export function parseS3Url(url: string): S3Location {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("setting 'storage' is not a valid s3:// URL");
  }
  const bucket = parsed.hostname;
  if (!BUCKET.test(bucket)) throw new ConfigError(`setting 'storage': '${bucket}' is not a valid S3 bucket name`);
  if (parsed.username || parsed.password) {
    throw new ConfigError("setting 'storage': put S3 credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the URL");
  }
  const params = parsed.searchParams;
  for (const key of params.keys()) {
    if (!['endpoint', 'region', 'prefix', 'forcePathStyle'].includes(key)) {
      throw new ConfigError(`setting 'storage': unknown s3:// parameter '${key}'`);
    }
  }
  const endpoint = params.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) {
    throw new ConfigError(`setting 'storage': endpoint must be an http(s) URL without a path, got '${endpoint}'`);
  }
  const prefix = (params.get('prefix') ?? parsed.pathname.replace(/^\/+/, '')).replace(/^\/+/, '');
  if (prefix !== '' && !prefix.endsWith('/')) throw new ConfigError("setting 'storage': prefix must end with '/'");
  const region = params.get('region') ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const pathStyle = params.get('forcePathStyle');
  return {
    bucket,
    prefix,
    endpoint,
    region,
    forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
  };
}

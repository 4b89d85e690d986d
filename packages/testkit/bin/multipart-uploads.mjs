// The two multipart-upload calls s3rver lacks, answered from its own files so that the test
// server behaves as S3 does for `pkg-registry storage collect`:
//   GET    /<bucket>?uploads[&prefix=…]         ListMultipartUploads (one page, every upload)
//   DELETE /<bucket>/<key>?uploadId=<id>        AbortMultipartUpload
// s3rver keeps an upload in `<directory>/<bucket>/._S3rver_uploads/<id>/` (its key in `key`,
// its parts beside it) from CreateMultipartUpload until CompleteMultipartUpload.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Answers the request when it is one of the two calls (true), else leaves it to s3rver (false). */
export async function answerMultipartUploads(req, res, directory) {
  const url = new URL(req.url, 'http://s3');
  // The SDK asks bucket-level calls as `/<bucket>/`: an empty key is none.
  const [, bucket, ...rest] = url.pathname.split('/');
  const keyParts = rest.join('/') === '' ? [] : rest;
  if (!bucket) return false;
  const uploads = path.join(directory, bucket, '._S3rver_uploads');
  if (req.method === 'GET' && keyParts.length === 0 && url.searchParams.has('uploads')) {
    const prefix = url.searchParams.get('prefix') ?? '';
    const entries = [];
    for (const id of await readdir(uploads).catch(() => [])) {
      const key = await readFile(path.join(uploads, id, 'key'), 'utf8').catch(() => undefined);
      if (key === undefined || !key.startsWith(prefix)) continue;
      const initiated = (await stat(path.join(uploads, id, 'key'))).mtime;
      entries.push(
        `<Upload><Key>${escapeXml(key)}</Key><UploadId>${escapeXml(id)}</UploadId><Initiated>${initiated.toISOString()}</Initiated></Upload>`,
      );
    }
    send(
      res,
      200,
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${escapeXml(bucket)}</Bucket><Prefix>${escapeXml(prefix)}</Prefix><IsTruncated>false</IsTruncated>${entries.join('')}</ListMultipartUploadsResult>`,
    );
    return true;
  }
  const uploadId = url.searchParams.get('uploadId');
  if (req.method === 'DELETE' && keyParts.length > 0 && uploadId) {
    const dir = path.join(uploads, path.basename(uploadId));
    const key = await readFile(path.join(dir, 'key'), 'utf8').catch(() => undefined);
    if (key !== decodeURIComponent(keyParts.join('/'))) {
      send(
        res,
        404,
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>`,
      );
      return true;
    }
    await rm(dir, { recursive: true, force: true });
    res.writeHead(204).end();
    return true;
  }
  return false;
}

function send(res, status, xml) {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) }).end(xml);
}

function escapeXml(text) {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

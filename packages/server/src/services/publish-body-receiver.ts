import type { Readable } from 'node:stream';
import secureJson from 'secure-json-parse';
import { payloadTooLarge, ProtocolError, requestBodyEmpty, requestBodyNotJson } from '@pkg/protocol';
import type { BlobUpload } from '../storage/ports.js';
import { AttachmentScanner } from './attachment-scanner.js';
import {
  TarballIntake,
  type DigestAlgorithm,
  type IntakeLimits,
  type IntakeQuota,
  type ReceivedTarball,
} from './tarball-intake.js';
import { TarballInspector } from './tarball-validation.js';

/**
 * A request body not read yet (the publish route reads it as a stream). Holding the stream in a
 * private field keeps generic body walkers (the JSON depth limit) off the stream's internals.
 */
export class StreamedBody {
  readonly #stream: Readable;

  constructor(stream: Readable) {
    this.#stream = stream;
  }

  get stream(): Readable {
    return this.#stream;
  }
}

/** A `PUT /<name>` body, read: the document and the tarball attachments streamed out of it. */
export interface ReceivedDocument {
  /** The document as JSON.parse gives it, each tarball attachment's `data` an empty string. */
  document: unknown;
  /** Tarball attachments by file name. */
  tarballs: ReadonlyMap<string, ReceivedTarball>;
  /** Aborts every upload not committed (always call it once the request is done). */
  discard(): Promise<void>;
}

export interface ReceiveOptions {
  /** Most bytes the (decompressed) body may have: 413 as soon as it is passed. */
  bodyLimit: number;
  /** Most bytes of the document without its tarballs. */
  maxRestBytes: number;
  limits: IntakeLimits;
  /** Where a tarball attachment's bytes go, or undefined when its file name names no version. */
  uploadFor(file: string): Promise<BlobUpload | undefined>;
  /**
   * Asked when a tarball attachment begins, before any of its bytes is stored (the body is a
   * publish then): throws when the registry's quota refuses any publish, or tells what is left.
   */
  quotaFor?(file: string): Promise<IntakeQuota | undefined>;
}

/**
 * Reads a publish body as it arrives: the tarballs' base64 goes through decoding, hashing, the
 * tar checks and into blob uploads piece by piece (never whole in memory), the rest of the
 * document is kept and parsed at the end like any JSON body. Malformed JSON is 400, a body or
 * tarball over its limit 413 as soon as it is passed; on any failure the uploads are aborted.
 */
export async function receivePublishBody(
  body: AsyncIterable<Buffer | Uint8Array>,
  options: ReceiveOptions,
): Promise<ReceivedDocument> {
  const intakes = new Map<string, TarballIntake>();
  const discard = async () => {
    for (const intake of intakes.values()) await intake.discard().catch(() => undefined);
  };
  try {
    const scanner: AttachmentScanner = new AttachmentScanner({
      maxRestBytes: options.maxRestBytes,
      divert: async (file) => {
        if (intakes.has(file)) throw new ProtocolError('BAD_REQUEST', `the attachment '${short(file)}' appears twice`);
        const quota = await options.quotaFor?.(file);
        const intake = new TarballIntake(
          await TarballInspector.create({ maxUnpackedSize: options.limits.maxUnpackedSize }),
          await options.uploadFor(file),
          algorithmsFor(scanner.rest()),
          { ...options.limits, quota },
        );
        intakes.set(file, intake);
        return intake;
      },
    });
    let received = 0;
    const chunks = body[Symbol.asyncIterator]();
    for (;;) {
      let step: IteratorResult<Buffer | Uint8Array>;
      try {
        step = await chunks.next();
      } catch (err) {
        throw bodyError(err);
      }
      if (step.done) break;
      const chunk = step.value;
      received += chunk.length;
      if (received > options.bodyLimit) {
        throw payloadTooLarge('request body', options.bodyLimit);
      }
      await scanner.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    const rest = scanner.rest();
    if (rest.length === 0) throw requestBodyEmpty();
    let document: unknown;
    try {
      // As every JSON body is parsed (http/request-body.ts): prototype keys refused.
      document = secureJson.parse(rest.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      throw requestBodyNotJson();
    }
    const tarballs = new Map<string, ReceivedTarball>();
    for (const [file, intake] of intakes) {
      // A string the body ended inside of would have failed JSON.parse.
      if (intake.received) tarballs.set(file, intake.received);
    }
    return { document, tarballs, discard };
  } catch (err) {
    await discard();
    throw err;
  }
}

/**
 * sha512 and sha1 are always needed (the version's `dist`); sha384 and sha256 only when
 * `dist.integrity` names them, which npm's documents say before the attachment: without the
 * versions read yet, all are computed.
 */
function algorithmsFor(documentSoFar: Buffer): DigestAlgorithm[] {
  const sawVersions = documentSoFar.includes('"versions"');
  const extra = (['sha384', 'sha256'] as const).filter((algorithm) => !sawVersions || documentSoFar.includes(`${algorithm}-`));
  return ['sha512', 'sha1', ...extra];
}

/**
 * A body that could not be read: bad gzip is already the body reader's 400 for it
 * (http/request-body.ts); a client gone mid-upload is a 400 nobody reads, never a logged 500.
 */
function bodyError(err: unknown): unknown {
  if (err instanceof ProtocolError) return err;
  return new ProtocolError('BAD_REQUEST', 'The request body was cut short');
}

function short(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

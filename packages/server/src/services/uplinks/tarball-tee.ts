import { PassThrough, type Readable } from 'node:stream';

/**
 * Bytes a client's stream may hold unread before the download waits for it: small tarballs
 * never wait, a large one goes at the pace of its slowest reader (memory stays bounded).
 */
const CLIENT_BUFFER = 1024 * 1024;

/**
 * An upstream tarball handed to the clients that asked for it while it is being downloaded
 * (and stored, and verified, by the caller). Every byte but the last goes out as it arrives; the
 * last waits for the verdict on the whole and for the store: `end` sends it, `fail` destroys
 * every client's stream instead, so a client never receives a complete tarball that failed its
 * integrity (with the Content-Length announced, a body one byte short is a failed download to
 * any client), and one that has it whole finds it stored when it asks again.
 *
 * A client that goes away is dropped and the download goes on; one that leaves its stream
 * unread for `stallMs` is cut off, so that it cannot hold the download (and the store) up.
 */
export class TarballTee {
  readonly #clients = new Set<PassThrough>();
  /** What went out so far, for clients that join later; dropped once past `keepBytes`. */
  #sent: Buffer[] | undefined;
  #sentBytes = 0;
  readonly #keepBytes: number;
  readonly #stallMs: number;
  #held: Buffer | undefined;
  #open = true;

  constructor(keepBytes: number, stallMs: number) {
    this.#keepBytes = keepBytes;
    this.#sent = keepBytes > 0 ? [] : undefined;
    this.#stallMs = stallMs;
  }

  /**
   * The tarball for one more client, from its first byte, or undefined when that is no longer
   * possible (the download is over, or what went out was too large to keep): then wait for the
   * download and read the stored copy.
   */
  join(): Readable | undefined {
    if (!this.#open || (this.#sent === undefined && this.#sentBytes > 0)) return undefined;
    const client = new PassThrough({ highWaterMark: CLIENT_BUFFER });
    // Destroyed with an error before (or without) anyone reading it: nobody else may listen.
    client.on('error', () => undefined);
    for (const piece of this.#sent ?? []) client.write(piece);
    this.#clients.add(client);
    client.once('close', () => this.#clients.delete(client));
    return client;
  }

  /** Sends `chunk` on but for its last byte; resolves when every client can take more. */
  async push(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    const waiting: PassThrough[] = [];
    const rest = chunk.subarray(0, chunk.length - 1);
    // One write per chunk: a byte written on its own would be a send of its own on the socket.
    this.#send(this.#held === undefined ? rest : Buffer.concat([this.#held, rest]), waiting);
    // A copy: the byte must not keep the whole chunk alive.
    this.#held = Buffer.from(chunk.subarray(chunk.length - 1));
    if (waiting.length > 0) await Promise.all(waiting.map((client) => this.#drained(client)));
  }

  /**
   * The whole tarball was verified and stored: the last byte goes out and every stream ends.
   * Returns the whole tarball when it was small enough to be kept (for the tarball cache).
   */
  end(): Buffer | undefined {
    if (!this.#open) return undefined;
    this.#open = false;
    if (this.#held !== undefined) this.#send(this.#held, []);
    const whole = this.#sent === undefined ? undefined : Buffer.concat(this.#sent, this.#sentBytes);
    this.#held = undefined;
    this.#sent = undefined;
    for (const client of this.#clients) client.end();
    return whole;
  }

  /** The download failed or did not match: every client's response is cut short. */
  fail(reason: Error): void {
    if (!this.#open) return;
    this.#open = false;
    this.#held = undefined;
    this.#sent = undefined;
    for (const client of this.#clients) client.destroy(reason);
  }

  #send(piece: Buffer, waiting: PassThrough[]): void {
    if (piece.length === 0) return;
    this.#sentBytes += piece.length;
    if (this.#sent !== undefined) {
      if (this.#sentBytes <= this.#keepBytes) this.#sent.push(piece);
      else this.#sent = undefined;
    }
    for (const client of this.#clients) if (!client.write(piece)) waiting.push(client);
  }

  #drained(client: PassThrough): Promise<void> {
    if (client.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off('drain', done);
        client.off('close', done);
        resolve();
      };
      const timer = setTimeout(() => client.destroy(new Error('the client did not read the tarball in time')), this.#stallMs);
      client.once('drain', done);
      client.once('close', done);
    });
  }
}

import { payloadTooLarge } from '@pkg/protocol';
import { jsonTooDeep, MAX_JSON_DEPTH } from './json-depth.js';

/** Where the characters of one diverted string go (the base64 of a tarball attachment). */
export interface StringSink {
  /** The next characters, JSON escapes resolved (`\/` is the only one base64 can hold). */
  text(chunk: string): Promise<void> | void;
  /** The string held an escape that is no base64 character, or a raw control character. */
  invalid(): void;
  /** The closing quote was read. */
  end(): Promise<void> | void;
}

export interface ScannerOptions {
  /** Most bytes the document may have without its diverted strings (413 beyond). */
  maxRestBytes: number;
  /**
   * Asked for each `_attachments.<file>.data` string of the root object whose file name ends in
   * `.tgz`, as it starts; undefined keeps the string in the rest.
   */
  divert(file: string): Promise<StringSink | undefined>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;

type Role = 'none' | 'root' | 'attachments' | 'attachment';

interface Frame {
  object: boolean;
  role: Role;
  /** For an `attachment` frame: the attachment's file name. */
  file: string;
  expectKey: boolean;
  /** The object's last key, when its role needs it. */
  key: string | undefined;
}

/**
 * A byte-level JSON scanner for npm's publish document. It copies every byte of the document
 * into a bounded "rest" buffer except the contents of `_attachments.<file>.data` strings, which
 * it hands to a sink as they arrive (the rest keeps `""` in their place), so a tarball of any
 * size never sits in memory while the small remainder is parsed by `JSON.parse` as before.
 * It follows JSON's grammar only as far as it needs to find those strings: a malformed document
 * still fails in `JSON.parse` of the rest.
 */
export class AttachmentScanner {
  readonly #options: ScannerOptions;
  readonly #rest: Buffer[] = [];
  #restBytes = 0;
  readonly #stack: Frame[] = [];
  /** Inside a string: its kind; undefined between tokens. */
  #string: 'key' | 'value' | 'diverted' | undefined;
  #escape = false;
  /** Pending `\u` escape digits of a diverted string. */
  #unicode: string | undefined;
  /** Bytes of the key being read, when the frame's role needs its text. */
  #keyBytes: Buffer[] | undefined;
  #sink: StringSink | undefined;
  /** A character an escape of a diverted string stood for, not yet handed on. */
  #pendingText = '';
  #rootSeen = false;

  constructor(options: ScannerOptions) {
    this.#options = options;
  }

  /** Scans the next bytes of the body; resolves when their diverted part has been taken. */
  async write(chunk: Buffer): Promise<void> {
    let copyFrom = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.#string === 'diverted') {
        if (i > copyFrom) this.#keep(chunk.subarray(copyFrom, i));
        i = await this.#divertFrom(chunk, i);
        // When the string ended, its closing quote (just before i) is kept: `"data":""`.
        copyFrom = this.#string === 'diverted' ? i : i - 1;
        continue;
      }
      if (this.#string !== undefined) {
        i = this.#stringFrom(chunk, i);
        continue;
      }
      const byte = chunk[i]!;
      i++;
      switch (byte) {
        case QUOTE:
          await this.#startString();
          if (this.#string === 'diverted') {
            // The opening quote stays in the rest; the closing one is kept when the string ends.
            this.#keep(chunk.subarray(copyFrom, i));
            copyFrom = i;
          }
          break;
        case 0x7b /* { */:
        case 0x5b /* [ */:
          this.#open(byte === 0x7b);
          break;
        case 0x7d /* } */:
        case 0x5d /* ] */:
          this.#stack.pop();
          break;
        case 0x2c /* , */: {
          const top = this.#stack.at(-1);
          if (top?.object) top.expectKey = true;
          break;
        }
        default:
          break;
      }
    }
    if (chunk.length > copyFrom) this.#keep(chunk.subarray(copyFrom));
  }

  /** The document without its diverted strings. */
  rest(): Buffer {
    return Buffer.concat(this.#rest, this.#restBytes);
  }

  #keep(bytes: Buffer): void {
    this.#restBytes += bytes.length;
    if (this.#restBytes > this.#options.maxRestBytes) {
      throw payloadTooLarge('package document without its tarball', this.#options.maxRestBytes);
    }
    // Chunks are reused by nobody once read, but a slice would pin the whole chunk: copy.
    this.#rest.push(Buffer.from(bytes));
  }

  #open(object: boolean): void {
    const parent = this.#stack.at(-1);
    if (this.#stack.length >= MAX_JSON_DEPTH) {
      throw jsonTooDeep();
    }
    let role: Role = 'none';
    let file = '';
    if (object && parent === undefined && !this.#rootSeen) role = 'root';
    else if (object && parent?.role === 'root' && !parent.expectKey && parent.key === '_attachments') role = 'attachments';
    else if (object && parent?.role === 'attachments' && !parent.expectKey && parent.key !== undefined) {
      role = 'attachment';
      file = parent.key;
    }
    this.#rootSeen = true;
    this.#stack.push({ object, role, file, expectKey: object, key: undefined });
  }

  async #startString(): Promise<void> {
    const top = this.#stack.at(-1);
    if (top?.object && top.expectKey) {
      this.#string = 'key';
      this.#keyBytes = top.role === 'none' ? undefined : [];
      return;
    }
    if (top?.role === 'attachment' && top.key === 'data' && top.file.endsWith('.tgz')) {
      this.#sink = await this.#options.divert(top.file);
      if (this.#sink) {
        this.#string = 'diverted';
        return;
      }
    }
    this.#string = 'value';
  }

  /** Skips through a kept string (copied with the rest); returns where scanning goes on. */
  #stringFrom(chunk: Buffer, start: number): number {
    let i = start;
    while (i < chunk.length) {
      if (this.#escape) {
        this.#escape = false;
        this.#keyBytes?.push(chunk.subarray(i, i + 1));
        i++;
        continue;
      }
      const quote = chunk.indexOf(QUOTE, i);
      const backslash = chunk.indexOf(BACKSLASH, i);
      if (backslash !== -1 && (quote === -1 || backslash < quote)) {
        this.#keyBytes?.push(Buffer.from(chunk.subarray(i, backslash + 1)));
        this.#escape = true;
        i = backslash + 1;
        continue;
      }
      if (quote === -1) {
        this.#keyBytes?.push(Buffer.from(chunk.subarray(i)));
        return chunk.length;
      }
      this.#keyBytes?.push(Buffer.from(chunk.subarray(i, quote)));
      this.#endString();
      return quote + 1;
    }
    return i;
  }

  #endString(): void {
    const top = this.#stack.at(-1);
    if (this.#string === 'key' && top) {
      top.expectKey = false;
      top.key = this.#keyBytes ? decodeKey(Buffer.concat(this.#keyBytes)) : undefined;
    }
    this.#keyBytes = undefined;
    this.#string = undefined;
  }

  /** Hands a diverted string's characters to its sink; returns where scanning goes on. */
  async #divertFrom(chunk: Buffer, start: number): Promise<number> {
    const sink = this.#sink!;
    let i = start;
    while (i < chunk.length) {
      if (this.#unicode !== undefined || this.#escape) {
        i = this.#escapeFrom(chunk, i, sink);
        if (this.#unicode === undefined && !this.#escape && this.#pendingText) {
          await sink.text(this.#pendingText);
          this.#pendingText = '';
        }
        continue;
      }
      const quote = chunk.indexOf(QUOTE, i);
      const backslash = chunk.indexOf(BACKSLASH, i);
      const stop = backslash !== -1 && (quote === -1 || backslash < quote) ? backslash : quote;
      const end = stop === -1 ? chunk.length : stop;
      if (end > i) await sink.text(chunk.toString('latin1', i, end));
      if (stop === -1) return chunk.length;
      if (stop === backslash) {
        this.#escape = true;
        i = stop + 1;
        continue;
      }
      this.#string = undefined;
      this.#sink = undefined;
      await sink.end();
      return stop + 1;
    }
    return i;
  }

  /** The escape after a backslash in a diverted string: `\/` and `\uXXXX` of an ASCII character. */
  #escapeFrom(chunk: Buffer, start: number, sink: StringSink): number {
    let i = start;
    if (this.#escape) {
      this.#escape = false;
      const byte = chunk[i]!;
      i++;
      if (byte === SLASH) this.#pendingText = '/';
      else if (byte === 0x75 /* u */) this.#unicode = '';
      else sink.invalid();
      return i;
    }
    while (i < chunk.length && this.#unicode!.length < 4) this.#unicode += String.fromCharCode(chunk[i++]!);
    if (this.#unicode!.length === 4) {
      const code = /^[0-9a-fA-F]{4}$/.test(this.#unicode!) ? parseInt(this.#unicode!, 16) : -1;
      this.#unicode = undefined;
      if (code > 0x20 && code < 0x7f) this.#pendingText = String.fromCharCode(code);
      else sink.invalid();
    }
    return i;
  }
}

/** A key's text, escapes resolved; undefined when it is not a valid JSON string (JSON.parse fails later). */
function decodeKey(bytes: Buffer): string | undefined {
  try {
    return JSON.parse(`"${bytes.toString('utf8')}"`) as string;
  } catch {
    return undefined;
  }
}

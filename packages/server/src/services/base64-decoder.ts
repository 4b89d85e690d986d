const ALPHABET = /^[A-Za-z0-9+/]*$/;
const PADDING = /^=*$/;

/**
 * Strict base64 decoding of text that arrives in pieces: exactly what a whole-string check by
 * `/^[A-Za-z0-9+/]*={0,2}$/` with a length divisible by 4 accepts, decoded piece by piece.
 * Node's decoder skips characters it does not know and also takes the URL-safe `-` and `_`:
 * a piece is valid when it has neither and decodes to 3 bytes per 4 characters (one skipped
 * character breaks the count), which costs a fraction of a regular expression over megabytes.
 */
export class Base64Decoder {
  #carry = '';
  #textLength = 0;
  #padding = 0;
  #valid = true;

  /** False once a character, or padding, was out of place; nothing more is decoded then. */
  get valid(): boolean {
    return this.#valid;
  }

  /** The bytes the text completes (undefined when none, or when the text is invalid). */
  push(text: string): Buffer | undefined {
    if (!this.#valid || text.length === 0) return undefined;
    this.#textLength += text.length;
    if (this.#padding > 0) {
      // Nothing but padding may follow padding.
      if (!PADDING.test(text)) this.#valid = false;
      else this.#padding += text.length;
      if (this.#padding > 2) this.#valid = false;
      return undefined;
    }
    const pad = text.indexOf('=');
    const data = pad === -1 ? text : text.slice(0, pad);
    if (data.includes('-') || data.includes('_')) {
      this.#valid = false;
      return undefined;
    }
    if (pad !== -1) {
      const padding = text.slice(pad);
      if (!PADDING.test(padding) || padding.length > 2) {
        this.#valid = false;
        return undefined;
      }
      this.#padding = padding.length;
    }
    const combined = this.#carry + data;
    const whole = combined.length - (combined.length % 4);
    this.#carry = combined.slice(whole);
    if (whole === 0) return undefined;
    const bytes = Buffer.from(combined.slice(0, whole), 'base64');
    if (bytes.length !== (whole / 4) * 3) {
      this.#valid = false;
      return undefined;
    }
    return bytes;
  }

  /** The last bytes, and whether the whole text was valid base64. */
  end(): { bytes: Buffer | undefined; valid: boolean } {
    if (this.#valid && (this.#textLength % 4 !== 0 || !ALPHABET.test(this.#carry))) this.#valid = false;
    if (!this.#valid) return { bytes: undefined, valid: false };
    const bytes = this.#carry.length > 0 ? Buffer.from(this.#carry, 'base64') : undefined;
    this.#carry = '';
    return { bytes, valid: true };
  }

  /** Bytes the text decodes to, by the length rule: 3 per 4 characters, less the padding. */
  get decodedLength(): number {
    return (this.#textLength / 4) * 3 - this.#padding;
  }
}

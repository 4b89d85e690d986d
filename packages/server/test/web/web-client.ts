/**
 * A cookie-keeping HTTP client that talks to the web interface the way a browser's forms do:
 * GET pages as text/html, POST url-encoded forms with the page's CSRF token, no redirects followed.
 */
export class WebClient {
  readonly #base: string;
  readonly cookies = new Map<string, string>();

  constructor(base: string) {
    this.#base = base;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.#send(path, { method: 'GET', headers: { accept: 'text/html', ...headers } });
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.#send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** The CSRF token of the last page that set one (the cookie's value, embedded in forms). */
  csrf(): string {
    const value = this.cookies.get('pkg_csrf');
    if (!value) throw new Error('no CSRF cookie yet: GET a page first');
    return value;
  }

  async #send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Page> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(new URL(path, this.#base), {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, html: await response.text() };
  }
}

export interface Page {
  status: number;
  headers: Headers;
  html: string;
}

/** The text of an element with that id (tags stripped, entities decoded), or undefined. */
export function textOfId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match && decodeEntities(match[2]!.replace(/<[^>]+>/g, ''));
}

export function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * The markup with whitespace around tags removed and runs of whitespace collapsed, so tests
 * can match fragments whatever the templates' line breaks. Text `<`/`>` are always escaped, so
 * every literal `<` or `>` is a tag delimiter.
 */
export function squash(html: string): string {
  return html.replace(/\s+/g, ' ').replace(/\s*([<>])\s*/g, '$1');
}

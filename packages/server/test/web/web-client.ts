import http from 'node:http';

/**
 * A cookie-keeping HTTP client that talks to the web interface the way a browser's forms do:
 * GET pages as text/html, POST url-encoded forms with the page's CSRF token, no redirects
 * followed. `host` sends another Host header to the same server (a tenant's host name).
 */
export class WebClient {
  readonly #base: string;
  readonly #host: string | undefined;
  readonly cookies = new Map<string, string>();

  constructor(base: string, host?: string) {
    this.#base = base;
    this.#host = host;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.#send('GET', path, { accept: 'text/html', ...headers });
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams(form).toString();
    return this.#send(
      'POST',
      path,
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      body,
    );
  }

  /** The CSRF token of the last page that set one (the cookie's value, embedded in forms). */
  csrf(): string {
    const value = this.cookies.get('pkg_csrf');
    if (!value) throw new Error('no CSRF cookie yet: GET a page first');
    return value;
  }

  #send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Page> {
    const url = new URL(path, this.#base);
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const all: Record<string, string> = {
      ...headers,
      ...(cookie ? { cookie } : {}),
      ...(this.#host ? { host: this.#host } : {}),
    };
    if (body !== undefined) all['content-length'] = String(Buffer.byteLength(body));
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method, headers: all, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
          }
          for (const line of responseHeaders.getSetCookie()) this.#remember(line);
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, html: text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  #remember(line: string): void {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
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
  return match ? decodeEntities(match[2]!.replace(/<[^>]+>/g, '')) : undefined;
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

import type { BodyParser } from '../http/request-body.js';
import type { GroupSettings, Payload } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { html } from './html.js';
import { messagePage } from './pages/message-page.js';
import type { PageContext } from './pages/page-context.js';
import { sendHtml, setHsts } from './html-transport.js';
import { setSecurityHeaders } from './security-headers.js';
import type { WebServices } from './web-services.js';

/** Largest form body the web pages accept (a sign-in form is a few hundred bytes). */
const FORM_BODY_LIMIT = 16 * 1024;

/** An HTML form's fields (the first of a repeated name). */
const FORM_BODY: BodyParser = {
  kind: 'text',
  bodyLimit: FORM_BODY_LIMIT,
  parse(text) {
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(text)) if (!(key in form)) form[key] = value;
    return form;
  },
};

/**
 * What makes a group of routes answer like a web site: security headers on everything, HTML
 * error pages instead of JSON, and HTML form bodies parsed. Only for the web interface's own routes.
 */
export function htmlResponses(web: WebServices): GroupSettings {
  return {
    onSend: webPageHeaders,
    parsers: { 'application/x-www-form-urlencoded': FORM_BODY },
    errorHandler: (err, request, reply) => htmlErrorPage(err, request, reply, web),
  };
}

async function webPageHeaders(request: RouteRequest, reply: RouteReply, payload: Payload): Promise<Payload> {
  setSecurityHeaders(reply);
  setHsts(request, reply);
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
  if (typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
    return sendHtml(request, reply, payload);
  }
  return payload;
}

function htmlErrorPage(err: Error, request: RouteRequest, reply: RouteReply, web: WebServices): RouteReply {
  const { status, title, message } = describe(err);
  // A title of its own per error ("Not found: There is no package named x here"), not one for all.
  const documentTitle = err instanceof ProtocolError ? `${title}: ${shorten(err.details)}` : title;
  if (status >= 500) request.log.error({ err }, 'unhandled error');
  if (err instanceof ProtocolError) for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(messagePage(bareContext(request, web), title, message, 'error', documentTitle));
}

function shorten(text: string): string {
  const line = text.replace(/; retry in \d+ s$/, '');
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** Sends a page. */
export function sendPage(reply: RouteReply, page: string, status = 200, cache?: 'no-store'): RouteReply {
  if (cache) reply.header('cache-control', cache);
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

/** A context for error pages: no store lookups on the error path, so nobody appears signed in. */
function bareContext(request: RouteRequest, web: WebServices): PageContext {
  const base = request.ctx?.baseUrl;
  return {
    assets: web.assets,
    tenant: request.ctx?.tenant ?? '',
    host: base ? new URL(base).host : request.host,
    viewer: undefined,
    csrf: '',
  };
}

/** A 429 in words a visitor can act on: why, and when the pages open again (Retry-After). */
function comeBackMessage(err: ProtocolError): ReturnType<typeof html> {
  const seconds = Number(err.headers['Retry-After']);
  if (!Number.isFinite(seconds) || seconds <= 0) return html`${err.details}.`;
  const at = new Date(Date.now() + seconds * 1000);
  const wait = seconds < 90 ? `${Math.ceil(seconds)} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  const why = err.details.replace(/; retry in \d+ s$/, '');
  return html`${why.charAt(0).toUpperCase()}${why.slice(1)} from your network address. Please come back in ${wait}, at
    <time datetime="${at.toISOString()}">${at.toISOString().slice(11, 16)} UTC</time>.`;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  413: 'Too large',
  415: 'Unsupported request',
  422: 'Invalid input',
  429: 'Too many requests',
  503: 'Unavailable',
};

function describe(err: Error): { status: number; title: string; message: ReturnType<typeof html> | string } {
  if (err instanceof ProtocolError && err.code === 'RATE_LIMIT_EXCEEDED') {
    return { status: err.status, title: TITLES[err.status]!, message: comeBackMessage(err) };
  }
  if (err instanceof ProtocolError) return { status: err.status, title: TITLES[err.status] ?? 'Error', message: err.details };
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, title: TITLES[status] ?? 'Bad request', message: 'The request could not be understood.' };
  }
  return { status: 500, title: 'Something went wrong', message: 'The server failed to show this page. Please try again.' };
}

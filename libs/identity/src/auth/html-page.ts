import { StreamableFile } from '@nestjs/common';
import type { Request, Response } from 'express';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * Whether to answer a page rather than the JSON envelope. Links opened in a browser get a page
 * by default (`preferPage`), `Accept: application/json` the envelope; an API route answers a
 * page only to a client that prefers text/html (a browser's form post).
 */
export function wantsPage(request: Request, preferPage: boolean): boolean {
  const types = preferPage ? ['text/html', 'application/json'] : ['application/json', 'text/html'];
  return request.accepts(types) === 'text/html';
}

/**
 * A short self-contained page (no script, no external asset) with `status`. Its headers keep
 * the token in the address from leaking (no referrer, no caching) and the page out of frames;
 * a form may only post back to this origin.
 */
export function page(
  response: Response,
  status: number,
  content: { title: string; paragraphs: string[]; formHtml?: string },
): StreamableFile {
  response.status(status);
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  );
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(content.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}label,input,button{display:block;width:100%;margin:.25rem 0}input,button{padding:.5rem;box-sizing:border-box}</style>
</head>
<body>
<h1>${escapeHtml(content.title)}</h1>
${content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${content.formHtml ?? ''}
</body>
</html>
`;
  return new StreamableFile(Buffer.from(html), { type: 'text/html; charset=utf-8' });
}

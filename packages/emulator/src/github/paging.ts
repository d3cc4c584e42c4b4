/** GitHub's page-number pagination: `per_page` (1–100, default 30), `page`, and the `Link` header. */
import type { RecordedRequest } from '../https-server.js';

/** The requested page of `items`, and the headers GitHub sends with it. */
export function pageOf<T>(req: RecordedRequest, base: string, items: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page')) || 30));
  const number = Math.max(1, Number(req.query.get('page')) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number): string => {
    const u = new URL(req.url, base);
    u.searchParams.set('per_page', String(perPage));
    u.searchParams.set('page', String(p));
    return u.href;
  };
  const rels: string[] = [];
  if (number < last) rels.push(`<${link(number + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
  if (number > 1) rels.push(`<${link(number - 1)}>; rel="prev"`, `<${link(1)}>; rel="first"`);
  return { items: items.slice((number - 1) * perPage, number * perPage), headers: rels.length ? { link: rels.join(', ') } : {} };
}

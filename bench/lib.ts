/**
 * Helpers of the bench (bench/bench.bench-run.ts, bench/figures/): the figures and their file, which
 * figures run, temp dirs, generated models, a latency-adding proxy in front of the GitHub stand-in,
 * small statistics.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { PlatformClient } from '../src/client/index.js';
import { readLocalModel, type LocalFile } from '../src/model/local-model.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';
import { testTls } from '../test/support/https-server.js';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = join(BENCH_DIR, '..');
export const RESULTS_FILE = join(BENCH_DIR, 'results.json');

/** Latency added to every platform and GitHub request in figures 1 to 3. */
export const LATENCY_MS = 50;
/** `BENCH_ONLY=3,4 npm run bench` runs some figures only (while working on them). */
const ONLY = process.env.BENCH_ONLY?.split(',').map((x) => x.trim());
export const part = (n: number) => !ONLY || ONLY.includes(String(n));

const temps: string[] = [];
/** A temp dir, removed by removeTempDirs() after the bench. */
export const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

export function removeTempDirs(): void {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
}

/** The model of `dir`, read and hashed as a command reads it before its first call (what an upload takes). */
export function localModel(dir: string): Promise<LocalFile[]> {
  return readLocalModel(new MemoryReporter(), dir);
}

export function opContext(client: PlatformClient, deploymentId: number, ca?: string): OpContext {
  return { client, deploymentId, reporter: new MemoryReporter(), dryRun: false, ...(ca ? { ca } : {}) };
}

export interface Figure {
  id: string;
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. `>= 6`. */
  target: string;
  met: boolean;
  detail: Record<string, unknown>;
}

export interface Results {
  figures: Figure[];
  machine: { node: string; cpus: number; cpuModel: string; date: string };
}

const figures: Figure[] = [];

/** Record a figure (and print it at once, so a long run shows progress). */
export function record(f: Figure): Figure {
  figures.push(f);
  console.log(`[bench] ${f.met ? 'met    ' : 'NOT MET'} ${f.id}: ${fmt(f.value)} ${f.unit} (target ${f.target})`);
  return f;
}

export function writeResults(): Results {
  // A partial run (BENCH_ONLY) replaces its own figures and keeps the others of the last full run.
  const kept = ONLY && existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results).figures : [];
  const ids = new Set(figures.map((f) => f.id));
  const results: Results = {
    figures: [
      ...kept.map((f) => (ids.has(f.id) ? (figures.find((x) => x.id === f.id) as Figure) : f)),
      ...figures.filter((f) => !kept.some((k) => k.id === f.id)),
    ],
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', date: new Date().toISOString() },
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** The results as a plain-text table. */
export function table(results: Results): string {
  const rows = [['figure', 'value', 'target', 'met'], ...results.figures.map((f) => [f.name, `${fmt(f.value)} ${f.unit}`, f.target, f.met ? 'yes' : 'NO'])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * A valid cube file of about `bytes` bytes: one cube with a count, a sum and as many dimensions as fit.
 * `variant` changes the text (not the size much) to make a changed file.
 */
export function cubeYaml(name: string, bytes: number, variant = 0): string {
  let text = `cubes:\n  - name: ${name}\n    sql_table: bench.${name}\n    description: generated for the datamodel-ci bench (variant ${variant})\n    measures:\n      - name: count\n        type: count\n      - name: total_amount\n        type: sum\n        sql: amount\n    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primary_key: true\n`;
  for (let i = 0; ; i++) {
    const dim = `      - name: attribute_${String(i).padStart(3, '0')}\n        sql: attribute_${String(i).padStart(3, '0')}\n        type: string\n`;
    if (text.length + dim.length > bytes) break;
    text += dim;
  }
  return text;
}

/** Write `files` (POSIX path -> text) under `dir`. */
export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

export interface LatencyProxy {
  url: string;
  /** Requests forwarded, as `METHOD /path` (query dropped). */
  requests: string[];
  /** Start and end (performance.now(), ms) of every request, for a timeline. */
  timeline: { what: string; start: number; end: number }[];
  latencyMs: number;
  close(): Promise<void>;
}

/**
 * An HTTPS proxy in front of the GitHub stand-in that holds every request `latencyMs` before
 * forwarding it (the emulator does the same for the platform), so GitHub round trips cost time too.
 * It serves the stand-in's own certificate (same CA).
 */
export async function startLatencyProxy(target: string, ca: string, latencyMs: number): Promise<LatencyProxy> {
  const tls = await testTls();
  const agent = new Agent({ connect: { ca } });
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const timeline: LatencyProxy['timeline'] = [];
  const proxy: LatencyProxy = { url: '', requests, timeline, latencyMs, close: () => Promise.resolve() };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const start = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    requests.push(`${req.method} ${(req.url ?? '/').split('?')[0]}`);
    if (proxy.latencyMs > 0) await new Promise((r) => setTimeout(r, proxy.latencyMs));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || ['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const body = Buffer.concat(chunks);
    const up = await request(new URL(req.url ?? '/', target), {
      method: (req.method ?? 'GET') as 'GET',
      headers,
      body: body.length ? body : null,
      dispatcher: agent,
    });
    const data = Buffer.from(await up.body.arrayBuffer());
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(up.headers)) {
      if (v === undefined || ['connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) continue;
      out[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    res.writeHead(up.statusCode, { ...out, 'content-length': String(data.length) });
    res.end(data);
    timeline.push({ what: `${req.method} ${(req.url ?? '/').split('?')[0]}`, start, end: performance.now() });
  };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (process.env.BENCH_TRACE) console.log(`proxy error: ${String(e)}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${String(e)}`);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    await agent.close();
  };
  return proxy;
}

/** Per-key difference of two counters. */
export function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v !== (before[k] ?? 0)) out[k] = v - (before[k] ?? 0);
  return out;
}

export function countBy(items: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[i] = (out[i] ?? 0) + 1;
  return out;
}

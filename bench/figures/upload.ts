/** Figures 1 and 2 of the bench: upload of a 500-file model at 50 ms latency, then a re-upload with one file changed. */
import { startEmulator, type Emulator } from '../../packages/emulator/src/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'vitest';
import { PlatformClient } from '../../src/client/index.js';
import { actionSpec, inputsOf } from '../../src/action-spec.js';
import { ensureBuilt } from '../../src/operations/branch-build.js';
import { uploadModel, type UploadResult } from '../../src/operations/upload-model.js';
import { LATENCY_MS, cubeYaml, delta, localModel, median, opContext, part, record, round, tempDir, writeTree } from '../lib.js';

/** The upload-model action's default concurrency: what users get. */
const DEFAULT_CONCURRENCY = Number(inputsOf(actionSpec('upload-model')).find((i) => i.name === 'concurrency')?.default ?? 16);

/** Register figures 1 and 2. */
export function uploadFigures(): void {
  describe('upload-model at 50 ms latency', () => {
    const FILES = 500;
    const FILE_BYTES = 4096;
    const CHANGED = 'model/cubes/c250.yml';

    it.runIf(part(1) || part(2))('1: first upload, in parallel vs one file at a time; 2: re-upload with one file changed', async () => {
      const em = await startEmulator({ seed: 'empty', latencyMs: LATENCY_MS });
      const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
      const deploymentId = em.deployments[0]!.id;
      try {
        const dir = tempDir('dmci-bench-model-');
        const model: Record<string, string> = {};
        for (let i = 0; i < FILES; i++) model[`model/cubes/c${String(i).padStart(3, '0')}.yml`] = cubeYaml(`c${String(i).padStart(3, '0')}`, FILE_BYTES);
        writeTree(dir, model);
        const modelBytes = Object.values(model).reduce((a, t) => a + Buffer.byteLength(t), 0);

        let n = 0;
        /** A first upload: a fresh shared branch (made from the empty deploy branch, not timed), then the whole model. */
        const firstUpload = async (concurrency: number) => {
          const branch = `bench-upload-${++n}`;
          await client.branches.create({ deploymentId, body: { name: branch } });
          const t0 = performance.now();
          const r = await uploadModel(opContext(client, deploymentId), {
            branch,
            modelDir: dir,
            local: await localModel(dir),
            concurrency,
            commitMessage: 'bench',
          });
          const s = (performance.now() - t0) / 1000;
          if (r.uploaded !== FILES) throw new Error(`expected ${FILES} files sent, got ${r.uploaded}`);
          return { branch, seconds: s, result: r };
        };

        // Warm-up (TLS sessions, JIT), not counted.
        await firstUpload(8);
        const sequential = await firstUpload(1);
        const runs: Record<number, number[]> = { 8: [], 16: [], 32: [] };
        let lastDefault: { branch: string; result: UploadResult } | undefined;
        for (let round_ = 0; round_ < 3; round_++) {
          for (const c of [8, 16, 32]) {
            const r = await firstUpload(c);
            runs[c]!.push(r.seconds);
            if (c === DEFAULT_CONCURRENCY) lastDefault = r;
          }
        }
        // The platform validates with the branch's running instance: staging on, build done.
        await ensureBuilt(opContext(client, deploymentId), lastDefault!.branch);
        const valid = await client.dataModel.validate({ deploymentId, query: { branchName: lastDefault!.branch } });
        // The same upload without latency: what is left is the CPU of client and emulator (one process).
        const em0 = await startEmulator({ seed: 'empty' });
        const client0 = new PlatformClient({ baseUrl: em0.baseUrl, apiKey: em0.credentials.admin, ca: em0.ca });
        const noLatency: number[] = [];
        try {
          for (let i = 0; i < 3; i++) {
            const b = `bench-upload-0-${i}`;
            await client0.branches.create({ deploymentId, body: { name: b } });
            const t0 = performance.now();
            await uploadModel(opContext(client0, deploymentId), {
              branch: b,
              modelDir: dir,
              local: await localModel(dir),
              concurrency: DEFAULT_CONCURRENCY,
              commitMessage: 'bench',
            });
            noLatency.push((performance.now() - t0) / 1000);
          }
        } finally {
          await client0.close();
          await em0.close();
        }
        const med = (c: number) => median(runs[c]!);
        const speedup = sequential.seconds / med(DEFAULT_CONCURRENCY);
        record({
          id: 'upload-first-speedup',
          name: `1. first upload, ${FILES} files (${round(modelBytes / 1e6, 1)} MB), ${LATENCY_MS} ms latency: sequential / ours (concurrency ${DEFAULT_CONCURRENCY}, the default)`,
          value: round(speedup, 1),
          unit: 'x',
          target: '>= 6',
          met: speedup >= 6,
          detail: {
            files: FILES,
            modelBytes,
            latencyMs: LATENCY_MS,
            sequentialSeconds: round(sequential.seconds),
            oursSeconds: Object.fromEntries(Object.entries(runs).map(([c, xs]) => [`concurrency ${c}`, xs.map((x) => round(x))])),
            medianSeconds: { 8: round(med(8)), 16: round(med(16)), 32: round(med(32)) },
            defaultWithoutLatencySeconds: noLatency.map((x) => round(x)),
            speedup: { 8: round(sequential.seconds / med(8), 1), 16: round(sequential.seconds / med(16), 1), 32: round(sequential.seconds / med(32), 1) },
            modelValid: valid.valid,
            cubes: valid.cubesCount,
            sequentialIs:
              "the same uploadModel and client with concurrency 1, as the vendor's deploy sends: the branch's hashes, start the upload, send each file after the previous one, finish, and the same check of the branch as ours",
            oursIs: 'adaptive: 4 files in flight at the start, doubled after each window of healthy answers up to the concurrency given',
          },
        });

        // 2: change one file (same size, other bytes) and upload again to the same shared branch.
        const branch = lastDefault!.branch;
        const changedText = cubeYaml('c250', FILE_BYTES, 1);
        writeFileSync(join(dir, CHANGED), changedText);
        const changedBytes = Buffer.byteLength(changedText);
        const counts0 = { ...em.counts };
        const bytes0 = JSON.parse(JSON.stringify(em.bytes)) as Emulator['bytes'];
        const r = await uploadModel(opContext(client, deploymentId), {
          branch,
          modelDir: dir,
          local: await localModel(dir),
          concurrency: DEFAULT_CONCURRENCY,
          commitMessage: 'bench',
        });
        const requests = delta(em.counts, counts0);
        const wire: Record<string, number> = {};
        let fileBytes = 0;
        for (const [id, b] of Object.entries(em.bytes)) {
          const w = b.wire - (bytes0[id]?.wire ?? 0);
          if (w) wire[id] = w;
          fileBytes += b.files - (bytes0[id]?.files ?? 0);
        }
        const wireTotal = Object.values(wire).reduce((a, b) => a + b, 0);
        const unchangedSent = r.files.sent.filter((p) => p !== CHANGED);
        const ratio = fileBytes / changedBytes;
        const requestCount = Object.values(requests).reduce((a, b) => a + b, 0);
        record({
          id: 'reupload-bytes-ratio',
          name: `2. re-upload, 1 of ${FILES} files changed: file bytes sent / bytes of the changed file`,
          value: round(ratio, 3),
          unit: 'x',
          target: '<= 1.1, no unchanged file sent',
          met: ratio <= 1.1 && unchangedSent.length === 0,
          detail: {
            changedFile: CHANGED,
            changedBytes,
            fileBytesSent: fileBytes,
            filesSent: r.files.sent,
            unchangedFilesSent: unchangedSent.length,
            requests,
            wireBytesByEndpoint: wire,
            wireBytesTotal: wireTotal,
            fixedOverheadBytes: wireTotal - fileBytes,
            uploadRequestWireBytesPerChangedByte: round((wire.uploadFile ?? 0) / changedBytes, 3),
            note: 'wire = request line + headers + body as received by the emulator (before TLS); the fixed overhead is every byte that is not file content: headers, multipart framing, and the finish manifest that lists all files with their hashes',
          },
        });
        record({
          id: 'reupload-requests',
          name: `2. re-upload, 1 of ${FILES} files changed: requests made`,
          value: requestCount,
          unit: 'requests',
          // Fixed calls: the branch's hashes, start, finish, and the check of the branch after finish.
          target: '1 upload + 4 fixed calls (<= 5)',
          met: (requests.uploadFile ?? 0) === 1 && requestCount <= 5,
          detail: { requests },
        });
      } finally {
        await client.close();
        await em.close();
      }
    });
  });
}

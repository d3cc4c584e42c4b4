/**
 * A credential inside outside text is masked even when the client never knew it: a platform's error
 * message quoting a JWT or an API key reaches neither the error, the log hook, the PR comment nor the
 * job summary.
 */
import { describe, expect, it } from 'vitest';
import { maskSecretLooking, secretsIn } from '../src/client/redact.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { nextView } from '../src/pr/comment/view.js';
import { composeComment } from '../src/pr/comment/ledger.js';
import { json } from './support/https-server.js';
import { client, server, useTestServer } from './support/platform-test-server.js';

useTestServer();

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzb21lb25lLWVsc2UifQ.c2lnbmF0dXJlLW9mLWFub3RoZXI';
const KEY = 'sk-otherTenantKey0123456789abcdef';
const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

describe('secret-looking strings in outside text', () => {
  it('finds JWTs, API keys, GitHub tokens and bearer values; leaves ordinary text alone', () => {
    expect(secretsIn(`token ${JWT}, key ${KEY}, ${GHP}, Authorization: Bearer abcdefghijklmnop1234`)).toEqual([JWT, KEY, GHP, 'abcdefghijklmnop1234']);
    const ordinary = 'cube `orders`: Unexpected token measuresDefinitionX at line 3; see https://example.com/docs/sk-guide';
    expect(maskSecretLooking(ordinary)).toBe(ordinary);
  });

  it('a platform error quoting a token it never sent is masked in the error and told to the log masker', async () => {
    server.handle((_q, r) => json(r, 400, { error: `invalid deployment token ${JWT} (key ${KEY})` }));
    const told: string[] = [];
    const err = (await client({ onSecret: (s) => told.push(s) })
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('GET /build/api/v1/deployments/1/data-model/validate -> 400: invalid deployment token *** (key ***)');
    expect(told).toEqual(expect.arrayContaining([JWT, KEY]));
  });

  it('never reaches the PR comment or the job summary', () => {
    const view = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'failed', failure: { step: 'Preview', message: `refused: ${JWT}` } });
    const errors = [{ file: 'model/cubes/a.yml', line: 1, message: `bad credential ${KEY} in connection` }];
    const comment = composeComment({ deploymentId: '1', ledger: { deploymentId: '1', view }, render: { errors } });
    const summary = renderPreview({ ...view, state: 'invalid', validation: { valid: false, errorCount: 1, errors } }, { target: 'summary', errors });
    for (const text of [comment, Buffer.from(comment.split('\n')[1]!.slice(25, -4), 'base64').toString(), summary]) {
      expect(text).not.toContain(JWT);
      expect(text).not.toContain(KEY);
    }
  });
});

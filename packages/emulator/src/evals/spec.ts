/**
 * The evaluation endpoints as the tenant's own `GET /api/v1/spec` lists them (not in the vendor's OpenAPI
 * file; in the contract through packages/platform-api/overlay/evals.yaml, with the same operation ids, but
 * listed from here so that profile `no-evaluations` lists none).
 */

const ERROR = { $ref: '#/components/responses/Error' };
const json = (description: string, schema: Record<string, unknown>) => ({ description, content: { 'application/json': { schema } } });
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'integer' } });
const errors = { '400': ERROR, '401': ERROR, '403': ERROR, '404': ERROR };
const RUN = {
  type: 'object',
  properties: { id: { type: 'integer' }, status: { type: 'string', enum: ['running', 'completed', 'failed'] } },
  required: ['id', 'status'],
};

/** The paths and operations of the evaluation endpoints (./routes.ts serves them). */
export function evaluationSpecPaths(): Record<string, unknown> {
  const base = '/api/v1/deployments/{deploymentId}/evaluations';
  return {
    [base]: {
      post: {
        operationId: 'startEvaluation',
        summary: "Start an evaluation run of a branch's agent on its eval questions",
        tags: ['evaluations'],
        parameters: [idParam('deploymentId')],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { branchName: { type: 'string' }, agentName: { type: 'string' }, questionFile: { type: 'string' } },
                required: ['branchName'],
              },
            },
          },
        },
        responses: { '200': json('The run started', RUN), ...errors },
      },
      get: {
        operationId: 'listEvaluations',
        summary: 'List evaluation runs',
        tags: ['evaluations'],
        parameters: [
          idParam('deploymentId'),
          { name: 'first', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'after', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: { '200': json('Runs', { type: 'object' }), ...errors },
      },
    },
    [`${base}/{evaluationId}`]: {
      get: {
        operationId: 'getEvaluation',
        summary: 'An evaluation run',
        tags: ['evaluations'],
        parameters: [idParam('deploymentId'), idParam('evaluationId')],
        responses: { '200': json('The run', RUN), ...errors },
      },
    },
    [`${base}/{evaluationId}/results`]: {
      get: {
        operationId: 'listEvaluationResults',
        summary: "An evaluation run's per-question results, paged",
        tags: ['evaluations'],
        parameters: [
          idParam('deploymentId'),
          idParam('evaluationId'),
          { name: 'first', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'after', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: { '200': json('A page of results', { type: 'object', properties: { items: { type: 'array' }, pageInfo: { type: 'object' } } }), ...errors },
      },
    },
  };
}

/** The operation ids `evaluationSpecPaths` declares. */
export const EVALUATION_OPERATIONS = ['getEvaluation', 'listEvaluationResults', 'listEvaluations', 'startEvaluation'];

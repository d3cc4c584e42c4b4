export * from './errors.js';
export * from './http.js';
export * from './request.js';
export * from './pagination.js';
export * from './redact.js';
export * from './retry.js';
export * from './client.js';

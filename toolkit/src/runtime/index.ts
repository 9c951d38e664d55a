/**
 * The runtime of a generated server, `contract-first/runtime`: what each project's
 * generated/server.ts imports, and what its server/app.ts builds the app with.
 */
export * from './contract-server.js';
export * from './handler-types.js';
export * from './http-server.js';
export * from './misdirected.js';
export * from './openapi-refs.js';
export * from './openapi-validation.js';
export * from './routes.js';
export * from './security.js';
export * from './send-result.js';
export * from './webhooks.js';

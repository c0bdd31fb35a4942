export { startSandbox, type RunningSandbox, type SentAnswer } from './server';
export type { SandboxOptions } from './config';
export { openApiDocument, type OpenApiDocument } from './openapi/document';

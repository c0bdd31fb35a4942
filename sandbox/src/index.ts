export { startSandbox, type RunningSandbox } from './server';
export type { SandboxOptions } from './config';

import type { SandboxModule } from './endpoint';

/** Statistics by day. */
export const statsModule: SandboxModule = {
  name: 'stats',
  endpoints: [],
};

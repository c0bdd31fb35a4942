import type { SandboxModule } from './endpoint';

/** Messages, blocks, chains and broadcasts. */
export const messagingModule: SandboxModule = {
  name: 'messaging',
  endpoints: [],
};

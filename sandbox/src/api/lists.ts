import type { SandboxModule } from './endpoint';

/** Lists and their rows. */
export const listsModule: SandboxModule = {
  name: 'lists',
  endpoints: [],
};

import type { SandboxModule } from './endpoint';

/** Catalog items, download links and web apps. */
export const catalogModule: SandboxModule = {
  name: 'catalog',
  endpoints: [],
};

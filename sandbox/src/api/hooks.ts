import type { SandboxModule } from './endpoint';

/** Event subscriptions (hooks), signed deliveries, payments simulation. */
export const hooksModule: SandboxModule = {
  name: 'hooks',
  endpoints: [],
};

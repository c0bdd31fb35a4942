import type { SandboxModule } from './endpoint';

/** Subscriber cards, tags, variables, chat history, running chains, blocking. */
export const subscribersModule: SandboxModule = {
  name: 'subscribers',
  endpoints: [],
};

import type { SandboxModule } from './endpoint';

/** CRM funnel: stage set and board. */
export const crmModule: SandboxModule = {
  name: 'crm',
  endpoints: [],
};

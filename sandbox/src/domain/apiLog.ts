import type { Store } from '../store';

/** One call of an API method, as /log/get reports it. The key's value is never recorded. */
export interface ApiLogEntry {
  id: number;
  time: string;
  method: string;
  path: string;
  status: number;
  failed: boolean;
  code: string | null;
  keyId: string | null;
  durationMs: number;
}

interface ApiLogState {
  entries: ApiLogEntry[];
  nextId: number;
}

/** Entries kept; older ones are dropped first. */
const LOG_CAPACITY = 10000;

export function apiLogState(store: Store): ApiLogState {
  return store.slice<ApiLogState>('apiLog', () => ({ entries: [], nextId: 1 }));
}

export function recordCall(store: Store, entry: Omit<ApiLogEntry, 'id'>): void {
  const state = apiLogState(store);
  state.entries.push({ id: state.nextId++, ...entry });
  if (state.entries.length > LOG_CAPACITY) state.entries.splice(0, state.entries.length - LOG_CAPACITY);
  store.changed();
}

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
  /** Oldest first. */
  entries: ApiLogEntry[];
}

/** Entries kept; older ones are dropped first. */
const LOG_CAPACITY = 10000;

export function apiLogState(store: Store): ApiLogState {
  return store.working<ApiLogState>('apiLog', () => {
    const entries = store.records<ApiLogEntry>('log').map(([, entry]) => entry);
    store.reserveIds('log', entries.at(-1)?.id ?? 0);
    return { entries };
  });
}

export function recordCall(store: Store, entry: Omit<ApiLogEntry, 'id'>): void {
  store.transaction(() => {
    const state = apiLogState(store);
    const recorded = { id: store.nextId('log'), ...entry };
    state.entries.push(recorded);
    store.put('log', recorded.id, recorded);
    if (state.entries.length > LOG_CAPACITY) {
      state.entries.splice(0, state.entries.length - LOG_CAPACITY);
      store.removeBelow('log', state.entries[0].id);
    }
  });
}

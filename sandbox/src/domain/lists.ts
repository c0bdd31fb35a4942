import type { Store } from '../store';

export interface ListRow {
  id: number;
  /** Values in the order of the list's headers. */
  values: unknown[];
  created: string;
}

export interface List {
  id: number;
  name: string;
  headers: string[];
  group: string | null;
  rows: ListRow[];
  nextRowId: number;
}

export interface ListsState {
  lists: List[];
  nextId: number;
}

export function listsState(store: Store): ListsState {
  return store.slice<ListsState>('lists', () => ({ lists: [], nextId: 1 }));
}

/** A list as /list/all and /account/summary show it. */
export function listSummary(list: List) {
  return { id: list.id, name: list.name, headers: list.headers, count: list.rows.length };
}

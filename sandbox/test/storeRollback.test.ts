import { Store } from '../src/store/store';
import { clearRows, createList, listsState, saveRow, type List } from '../src/domain/lists';

/** A transaction that only deleted rows at once (removeKind / removeBelow) and then failed must not leave memory behind. */
describe('Store rollback after rows deleted at once', () => {
	const rowsIn = (store: Store, listId: number) => ({
		inDatabase: store.records(`row/${listId}`).length,
		inMemory: listsState(store).lists.find((list) => list.id === listId)!.rows.length,
	});

	test('a rolled-back clearRows leaves the rows in memory as in the database', () => {
		const store = new Store();
		try {
			const listId = store.transaction(() => {
				const list: List = createList(store, { name: 'Rollback', headers: ['A'], group: null });
				for (const value of ['x', 'y', 'z']) {
					const row = { id: list.nextRowId++, values: [value], created: '2026-01-01T00:00:00.000Z' };
					list.rows.push(row);
					saveRow(store, list, row);
				}
				return list.id;
			});
			expect(rowsIn(store, listId)).toEqual({ inDatabase: 3, inMemory: 3 });
			expect(() =>
				store.transaction(() => {
					clearRows(
						store,
						listsState(store).lists.find((list) => list.id === listId)!,
					);
					throw new Error('a later step failed');
				}),
			).toThrow('a later step failed');
			expect(rowsIn(store, listId)).toEqual({ inDatabase: 3, inMemory: 3 });
		} finally {
			store.close();
		}
	});
});

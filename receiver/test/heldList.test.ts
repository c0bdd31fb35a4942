import fc from 'fast-check';
import { HeldList, type HeldLinks } from '../src/heldList';

interface Item extends HeldLinks<Item> {
	name: string;
}

const item = (name: string): Item => ({ name, previous: undefined, next: undefined, held: false });
const names = (list: HeldList<Item>) => [...list].map((held) => held.name);

describe('HeldList', () => {
	it('keeps items in the order they were added, and forgets deleted ones wherever they were', () => {
		const list = new HeldList<Item>();
		const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item);
		for (const held of [a, b, c, d]) list.add(held);
		expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
		expect(list.size).toBe(4);
		expect(list.delete(b)).toBe(true);
		expect(names(list)).toEqual(['a', 'c', 'd']);
		expect(list.delete(a)).toBe(true);
		expect(list.first).toBe(c);
		expect(list.delete(d)).toBe(true);
		expect(names(list)).toEqual(['c']);
		expect(list.delete(d)).toBe(false);
		expect(list.size).toBe(1);
		expect(list.has(c)).toBe(true);
		expect(list.has(d)).toBe(false);
		expect(list.delete(c)).toBe(true);
		expect(list.first).toBeUndefined();
		expect(names(list)).toEqual([]);
		expect(list.size).toBe(0);
	});

	it('clears the links of a deleted item (nothing deleted stays reachable through it) and adds it again as the newest', () => {
		const list = new HeldList<Item>();
		const [a, b, c] = ['a', 'b', 'c'].map(item);
		for (const held of [a, b, c]) list.add(held);
		list.delete(b);
		expect(b).toEqual({ name: 'b', previous: undefined, next: undefined, held: false });
		expect(a.next).toBe(c);
		expect(c.previous).toBe(a);
		list.add(b);
		list.add(b);
		expect(names(list)).toEqual(['a', 'c', 'b']);
		expect(list.size).toBe(3);
	});

	it('lets a visit delete the item it visits, and visits items added meanwhile', () => {
		const list = new HeldList<Item>();
		const items = ['a', 'b', 'c', 'd'].map(item);
		for (const held of items) list.add(held);
		const visited: string[] = [];
		const late = item('late');
		for (const held of list) {
			visited.push(held.name);
			if (held.name !== 'c' && held !== late) list.delete(held);
			if (held.name === 'b') list.add(late);
		}
		expect(visited).toEqual(['a', 'b', 'c', 'd', 'late']);
		expect(names(list)).toEqual(['c', 'late']);
	});

	it('agrees with an array model under any sequence of adds and deletes', () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 7 })), { maxLength: 60 }), (operations) => {
				const items = Array.from({ length: 8 }, (_, index) => item(String(index)));
				const list = new HeldList<Item>();
				const model: Item[] = [];
				for (const [adding, index] of operations) {
					const target = items[index];
					if (adding) {
						list.add(target);
						if (!model.includes(target)) model.push(target);
					} else {
						expect(list.delete(target)).toBe(model.includes(target));
						if (model.includes(target)) model.splice(model.indexOf(target), 1);
					}
					expect([...list]).toEqual(model);
					expect(list.size).toBe(model.length);
					expect(list.first).toBe(model[0]);
					for (const candidate of items) expect(list.has(candidate)).toBe(model.includes(candidate));
				}
			}),
		);
	});
});

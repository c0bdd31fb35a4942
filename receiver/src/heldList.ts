/** The links an item carries while it is in a {@link HeldList}. */
export interface HeldLinks<T> {
	previous: T | undefined;
	next: T | undefined;
	held: boolean;
}

/**
 * Items held for a short while (a body being read, a lease while its listeners run), in the order they were added:
 * add, delete and has in O(1), with the links in the items themselves, and no hash table.
 *
 * Why not a `Set`: an item deleted from a long-lived V8 `Set` or `Map` stays reachable from the collection's table in
 * the old generation until the next full garbage collection, so every young collection copies it and then promotes
 * it, with all it references (a lease's event, a body read's request). A receiver under load adds and deletes one
 * per delivery, so every young collection would promote what the deleted items hold and full collections would come
 * often. The links are cleared on deletion, so nothing deleted is reachable from here.
 */
export class HeldList<T extends HeldLinks<T>> {
	#first: T | undefined;
	#last: T | undefined;
	#size = 0;

	get size(): number {
		return this.#size;
	}

	/** The oldest item held, or undefined. */
	get first(): T | undefined {
		return this.#first;
	}

	has(item: T): boolean {
		return item.held;
	}

	/** Adds `item` as the newest; an item held already stays where it is. */
	add(item: T): void {
		if (item.held) return;
		item.held = true;
		item.previous = this.#last;
		item.next = undefined;
		if (this.#last === undefined) this.#first = item;
		else this.#last.next = item;
		this.#last = item;
		this.#size += 1;
	}

	/** Removes `item`; false when it was not held. */
	delete(item: T): boolean {
		if (!item.held) return false;
		const { previous, next } = item;
		if (previous === undefined) this.#first = next;
		else previous.next = next;
		if (next === undefined) this.#last = previous;
		else next.previous = previous;
		item.previous = undefined;
		item.next = undefined;
		item.held = false;
		this.#size -= 1;
		return true;
	}

	/** The items held, oldest first. A visit may delete the item it visits; walk a copy (`[...list]`) to delete others. */
	*[Symbol.iterator](): Generator<T, void, undefined> {
		for (let item = this.#first; item !== undefined;) {
			const next = item.next;
			yield item;
			item = item.held ? item.next : next;
		}
	}
}

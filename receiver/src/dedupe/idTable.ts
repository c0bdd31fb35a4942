/** Longest id kept as bytes; a longer id, or one with non-ASCII characters, is kept as a string. */
const KEY_BYTES = 64;
const STRING_KEY = 0xff;
/** Most ids a table may keep: its arrays then take about 1.5 GB of address space. */
export const MAX_ID_TABLE_ENTRIES = 2 ** 24;

/**
 * The ids a memory dedupe store remembers, oldest first, each with its expiry time: a ring of fixed-size byte slots
 * and a linear-probing hash index, all in typed arrays. A busy receiver remembers 100 000 ids; as strings in a `Set`
 * each one is an object the garbage collector copies out of the young generation and then keeps marking, a cost paid
 * on every delivery under load. Here an id becomes bytes in a slot, with no object of its own.
 * Every operation is O(1).
 *
 * The arrays are made for `maxEntries` at once (about 90 bytes per id): zeroed memory that the operating system
 * commits page by page as ids arrive (a new table adds nothing to the resident size until ids fill it). They never
 * grow: doubling them would move every id in one pause that grows with the table, and the new arrays, counted as the
 * process's external memory, could start a full garbage collection.
 */
export class IdTable {
	readonly #capacity: number;
	#head = 0;
	#size = 0;
	readonly #keys: Uint8Array;
	readonly #lengths: Uint8Array;
	readonly #hashes: Uint32Array;
	readonly #expiries: Float64Array;
	/**
	 * Ids that do not fit a slot, by entry (rare). A Map, not an array indexed by entry: clearing entries of an empty
	 * array made it a sparse dictionary that grew to `maxEntries` elements, written on every forgotten id.
	 */
	readonly #stringKeys = new Map<number, string>();
	/** Hash slot → entry + 1; 0 is an empty slot. At most half full. */
	readonly #index: Int32Array;
	readonly #mask: number;
	/** The id hashed last and its hash: a delivery's id is looked up three times (begin, then complete's check and add). */
	#hashedId: string | undefined;
	#hashOfHashedId = 0;

	/** `maxEntries`: an integer from 1 to {@link MAX_ID_TABLE_ENTRIES} (checked by the store's options). */
	constructor(maxEntries: number) {
		this.#capacity = maxEntries;
		this.#keys = new Uint8Array(maxEntries * KEY_BYTES);
		this.#lengths = new Uint8Array(maxEntries);
		this.#hashes = new Uint32Array(maxEntries);
		this.#expiries = new Float64Array(maxEntries);
		let tableSize = 1;
		while (tableSize < maxEntries * 2) tableSize *= 2;
		this.#index = new Int32Array(tableSize);
		this.#mask = tableSize - 1;
	}

	get size(): number {
		return this.#size;
	}

	/** Expiry of the oldest id, or Infinity when empty. */
	oldestExpiry(): number {
		return this.#size === 0 ? Infinity : this.#expiries[this.#head];
	}

	has(id: string): boolean {
		return this.#find(id, this.#hashOf(id)) !== -1;
	}

	/**
	 * Remembers `id` as the newest, unless it is remembered already (then returns false); forgets the oldest when
	 * `maxEntries` are kept.
	 */
	addIfAbsent(id: string, expiresAt: number): boolean {
		const hash = this.#hashOf(id);
		if (this.#find(id, hash) !== -1) return false;
		if (this.#size === this.#capacity) this.forgetOldest();
		const entry = (this.#head + this.#size) % this.#capacity;
		this.#size += 1;
		this.#hashes[entry] = hash;
		this.#expiries[entry] = expiresAt;
		this.#writeKey(entry, id);
		let slot = hash & this.#mask;
		while (this.#index[slot] !== 0) slot = (slot + 1) & this.#mask;
		this.#index[slot] = entry + 1;
		return true;
	}

	forgetOldest(): void {
		const entry = this.#head;
		this.#unindex(entry);
		if (this.#lengths[entry] === STRING_KEY) this.#stringKeys.delete(entry);
		this.#head = (this.#head + 1) % this.#capacity;
		this.#size -= 1;
	}

	#hashOf(id: string): number {
		if (id !== this.#hashedId) {
			this.#hashOfHashedId = hashOf(id);
			this.#hashedId = id;
		}
		return this.#hashOfHashedId;
	}

	#writeKey(entry: number, id: string): void {
		const offset = entry * KEY_BYTES;
		if (id.length > KEY_BYTES || !isAscii(id)) {
			this.#lengths[entry] = STRING_KEY;
			this.#stringKeys.set(entry, id);
			return;
		}
		this.#lengths[entry] = id.length;
		const keys = this.#keys;
		for (let i = 0; i < id.length; i += 1) keys[offset + i] = id.charCodeAt(i);
	}

	#keyEquals(entry: number, id: string): boolean {
		const length = this.#lengths[entry];
		if (length === STRING_KEY) return this.#stringKeys.get(entry) === id;
		if (length !== id.length) return false;
		const offset = entry * KEY_BYTES;
		const keys = this.#keys;
		for (let i = 0; i < length; i += 1) if (keys[offset + i] !== id.charCodeAt(i)) return false;
		return true;
	}

	#find(id: string, hash: number): number {
		for (let slot = hash & this.#mask; this.#index[slot] !== 0; slot = (slot + 1) & this.#mask) {
			const entry = this.#index[slot] - 1;
			if (this.#hashes[entry] === hash && this.#keyEquals(entry, id)) return entry;
		}
		return -1;
	}

	/** Removes an entry from the index and closes the gap (backward-shift deletion: no tombstones to pile up). */
	#unindex(entry: number): void {
		let hole = this.#hashes[entry] & this.#mask;
		while (this.#index[hole] !== entry + 1) hole = (hole + 1) & this.#mask;
		for (let slot = (hole + 1) & this.#mask; this.#index[slot] !== 0; slot = (slot + 1) & this.#mask) {
			const home = this.#hashes[this.#index[slot] - 1] & this.#mask;
			// The entry at `slot` may fill the hole unless its home lies cyclically within (hole, slot].
			const homeAfterHole = hole < slot ? home > hole && home <= slot : home > hole || home <= slot;
			if (!homeAfterHole) {
				this.#index[hole] = this.#index[slot];
				hole = slot;
			}
		}
		this.#index[hole] = 0;
	}
}

/** FNV-1a over the UTF-16 code units. */
function hashOf(id: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
	return hash >>> 0;
}

function isAscii(id: string): boolean {
	for (let i = 0; i < id.length; i += 1) if (id.charCodeAt(i) > 0x7f) return false;
	return true;
}

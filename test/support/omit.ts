/** A copy of `object` without the field `key` (a header, an item's pairing) that a test leaves out on purpose. */
export function omit<T extends object, K extends keyof T & string>(object: T, key: K): Omit<T, K> {
	return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key)) as Omit<T, K>;
}

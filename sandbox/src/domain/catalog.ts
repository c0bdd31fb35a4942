import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store';

/** How each optional item field is typed by the service. */
export const ITEM_FIELD_KINDS = {
	title: 'text',
	description: 'text',
	price: 'numberOrText',
	oldprice: 'text',
	hide: 'boolean',
	pieces: 'text',
	code: 'text',
	rubric: 'text',
	szpieces: 'sizeStock',
	sizes: 'text',
	colors: 'text',
	order: 'numberOrText',
} as const;

export type ItemFieldName = keyof typeof ITEM_FIELD_KINDS;
export const ITEM_FIELDS = Object.keys(ITEM_FIELD_KINDS) as ItemFieldName[];

export interface CatalogItem {
	id: number;
	webappid: string;
	title: string;
	description: string;
	price: number | string | null;
	oldprice: string;
	hide: boolean;
	pieces: string;
	code: string;
	rubric: string;
	/** Stock by size: `size:quantity` pairs separated by commas. */
	szpieces: string;
	sizes: string;
	colors: string;
	order: number | string | null;
	created: string;
	updated: string;
}

export type ItemFields = Partial<Pick<CatalogItem, ItemFieldName>>;

export interface WebApp {
	id: string;
	name: string;
	created: string;
}

/** A download link of a catalog file; it works until `expiresAt` (business time, epoch ms). */
export interface DownloadLink {
	token: string;
	webappid: string;
	expiresAt: number;
}

/** Web apps and download links: a small document. Items are records of their own. */
interface CatalogState {
	apps: WebApp[];
	links: DownloadLink[];
}

interface ItemsState {
	/** By item number, ascending. */
	items: CatalogItem[];
	byId: Map<number, CatalogItem>;
}

/** Validity of a download link. */
export const LINK_LIFETIME_MS = 2 * 60 * 1000;
/** Expired links are kept this long (answering 410 Gone) before they are forgotten (404). */
const EXPIRED_LINK_MEMORY_MS = 24 * 60 * 60 * 1000;

export function catalogState(store: Store): CatalogState {
	return store.document<CatalogState>('catalog', () => ({ apps: [], links: [] }));
}

export function itemsState(store: Store): ItemsState {
	return store.working<ItemsState>('catalogItems', () => {
		const items = store.records<CatalogItem>('item').map(([, item]) => item);
		for (const item of items) store.reserveIds('items', item.id);
		return { items, byId: new Map(items.map((item) => [item.id, item])) };
	});
}

export function findApp(store: Store, webappid: string): WebApp | undefined {
	return catalogState(store).apps.find((app) => app.id === webappid);
}

export function findItem(store: Store, itemid: number): CatalogItem | undefined {
	return itemsState(store).byId.get(itemid);
}

export function itemsOf(store: Store, webappid: string): CatalogItem[] {
	return itemsState(store).items.filter((item) => item.webappid === webappid);
}

/** A field's value as the request validation let it through (src/openapi/endpoints/catalog.ts types each kind), converted. */
function fieldValue(field: ItemFieldName, value: unknown): ItemFields[ItemFieldName] {
	const kind = ITEM_FIELD_KINDS[field];
	if (kind === 'boolean') return value === true || value === 'true' || value === '1' || value === 1;
	if (kind === 'numberOrText') return value as string | number;
	// Text fields: a number is kept as its text (the service declares scalars as strings).
	return String(value);
}

/** The item fields present in a request. `read` gives a field's raw value (absent or null means not given). */
export function readItemFields(read: (field: ItemFieldName) => unknown): ItemFields {
	const fields: Record<string, unknown> = {};
	for (const field of ITEM_FIELDS) {
		const value = read(field);
		if (value === undefined || value === null) continue;
		fields[field] = fieldValue(field, value);
	}
	return fields as ItemFields;
}

export function newItem(store: Store, webappid: string, fields: ItemFields, now: string): CatalogItem {
	const item: CatalogItem = {
		id: store.nextId('items'),
		webappid,
		title: '',
		description: '',
		price: null,
		oldprice: '',
		hide: false,
		pieces: '',
		code: '',
		rubric: '',
		szpieces: '',
		sizes: '',
		colors: '',
		order: null,
		...fields,
		created: now,
		updated: now,
	};
	const state = itemsState(store);
	state.items.push(item);
	state.byId.set(item.id, item);
	store.put('item', item.id, item);
	return item;
}

export function updateItem(store: Store, item: CatalogItem, fields: ItemFields, now: string): void {
	Object.assign(item, fields, { updated: now });
	store.put('item', item.id, item);
}

/** Deletes the items that `matches` selects; returns how many were deleted. */
export function deleteItems(store: Store, matches: (item: CatalogItem) => boolean): number {
	const state = itemsState(store);
	const doomed = state.items.filter(matches);
	if (doomed.length === 0) return 0;
	state.items = state.items.filter((item) => !matches(item));
	for (const item of doomed) {
		state.byId.delete(item.id);
		store.remove('item', item.id);
	}
	return doomed.length;
}

export function deleteApp(store: Store, webappid: string): number {
	const state = catalogState(store);
	state.apps = state.apps.filter((app) => app.id !== webappid);
	state.links = state.links.filter((link) => link.webappid !== webappid);
	return deleteItems(store, (item) => item.webappid === webappid);
}

/** A new download link for an app's catalog; long-expired links are forgotten on the way. */
export function createLink(store: Store, webappid: string, now: number): DownloadLink {
	const state = catalogState(store);
	state.links = state.links.filter((link) => link.expiresAt + EXPIRED_LINK_MEMORY_MS > now);
	const link: DownloadLink = {
		token: randomBytes(18).toString('base64url'),
		webappid,
		expiresAt: now + LINK_LIFETIME_MS,
	};
	state.links.push(link);
	return link;
}

export function findLink(store: Store, token: string): DownloadLink | undefined {
	return catalogState(store).links.find((link) => link.token === token);
}

/** The catalog file a download link serves: the app and all its items (hidden ones carry `hide: true`). */
export function catalogFile(store: Store, app: WebApp, generated: string) {
	return { webapp: { id: app.id, name: app.name }, generated, items: itemsOf(store, app.id) };
}

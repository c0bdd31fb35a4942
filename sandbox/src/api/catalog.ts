import type { Request, Response, Router } from 'express';
import {
	catalogFile,
	catalogState,
	createLink,
	deleteApp,
	deleteItems,
	findApp,
	findItem,
	findLink,
	newItem,
	readItemFields,
	updateItem,
	type ItemFields,
} from '../domain/catalog';
import { appOf, bulkItemids, bulkItems, fieldsOfBulkItem, itemOf } from '../domain/catalogParams';
import type { SandboxContext, SandboxModule } from './endpoint';

/** Where download links point, outside /api: they carry their own token and need no API key. */
const DOWNLOAD_PATH = '/files/catalog';
const OK = 'ok';

/** GET /files/catalog/:token: the catalog file, while the link is valid. */
function serveDownload(context: SandboxContext) {
	return (req: Request, res: Response) => {
		const token = String(req.params.token);
		const link = findLink(context.store, token);
		const app = link && findApp(context.store, link.webappid);
		if (!link || !app) {
			res.status(404).json({ code: 'not_found', error: 'No catalog file behind this link' });
			return;
		}
		if (link.expiresAt <= context.clock.now()) {
			res
				.status(410)
				.json({ code: 'link_expired', error: 'This download link has expired; request a new one with /catalog/get' });
			return;
		}
		res.setHeader('Content-Disposition', `attachment; filename="catalog-${encodeURIComponent(app.id)}.json"`);
		res.status(200).json(catalogFile(context.store, app, context.clock.iso()));
	};
}

function seedDemoShop({ store, clock }: SandboxContext): void {
	const now = clock.iso();
	catalogState(store).apps.push({ id: '1', name: 'Demo shop', created: now });
	const items: ItemFields[] = [
		{
			title: 'Classic T-shirt',
			description: 'Cotton, regular fit',
			price: 19.9,
			oldprice: '24.90',
			pieces: '40',
			code: 'TS-001',
			rubric: 'Clothes',
			szpieces: 'S:10,M:20,L:10',
			sizes: 'S,M,L',
			colors: 'white,black',
			order: 1,
		},
		{
			title: 'Hoodie',
			description: 'Warm fleece hoodie',
			price: '49.00',
			pieces: '15',
			code: 'HD-002',
			rubric: 'Clothes',
			szpieces: 'M:8,L:7',
			sizes: 'M,L',
			colors: 'grey',
			order: 2,
		},
		{
			title: 'Coffee mug',
			description: 'Ceramic, 330 ml',
			price: 9.5,
			pieces: '100',
			code: 'MG-003',
			rubric: 'Home',
			colors: 'white',
			order: 3,
		},
		{
			title: 'Sticker pack',
			description: 'Ten vinyl stickers',
			price: 4,
			pieces: '250',
			code: 'ST-004',
			rubric: 'Accessories',
			order: 4,
		},
		{
			title: 'Winter cap',
			description: 'Back in autumn',
			price: 15,
			pieces: '0',
			code: 'CP-005',
			rubric: 'Accessories',
			hide: true,
			order: 5,
		},
	];
	for (const fields of items) newItem(store, '1', fields, now);
}

/**
 * Web-app catalogs: items (single and bulk, all-or-nothing), download links served outside /api,
 * and removal of a web app. Web apps belong to the account, not to a bot.
 */
export const catalogModule: SandboxModule = {
	name: 'catalog',
	seed: seedDemoShop,
	mount: (app: Router, context: SandboxContext) => {
		app.get(`${DOWNLOAD_PATH}/:token`, serveDownload(context));
	},
	endpoints: [
		{
			path: '/catalog/item/create',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params, clock }) => {
				const app = appOf(store, params);
				const fields = readItemFields((field) => params.raw(field));
				const item = newItem(store, app.id, fields, clock.iso());
				return { id: item.id, result: OK };
			},
		},
		{
			path: '/catalog/item/edit',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params, clock }) => {
				const app = appOf(store, params);
				const item = itemOf(store, params.requiredInt('itemid', { min: 1 }), 'itemid', app);
				const fields = readItemFields((field) => params.raw(field));
				updateItem(store, item, fields, clock.iso());
				return { result: OK };
			},
		},
		{
			path: '/catalog/item/delete',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params }) => {
				const item = itemOf(store, params.requiredInt('itemid', { min: 1 }), 'itemid');
				deleteItems(store, (candidate) => candidate === item);
				return { result: OK };
			},
		},
		{
			path: '/catalog/item/bulk/create',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params, clock }) => {
				const app = appOf(store, params);
				const fields = bulkItems(params).map(fieldsOfBulkItem);
				const now = clock.iso();
				const ids = fields.map((itemFields) => newItem(store, app.id, itemFields, now).id);
				return { id: ids, result: OK };
			},
		},
		{
			path: '/catalog/item/bulk/edit',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params, clock }) => {
				const app = appOf(store, params);
				const items = bulkItems(params);
				const itemids = bulkItemids(store, items, app);
				const fields = items.map(fieldsOfBulkItem);
				const now = clock.iso();
				itemids.forEach((itemid, index) => updateItem(store, findItem(store, itemid)!, fields[index], now));
				return { result: OK, updated: itemids.length };
			},
		},
		{
			path: '/catalog/item/bulk/delete',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params }) => {
				const itemids = new Set(bulkItemids(store, bulkItems(params)));
				const deleted = deleteItems(store, (item) => itemids.has(item.id));
				return { result: OK, deleted };
			},
		},
		{
			path: '/catalog/items/delete',
			methods: 'POST',
			scope: 'catalog:write',
			handle: ({ store, params }) => {
				const app = appOf(store, params);
				const deleted = deleteItems(store, (item) => item.webappid === app.id);
				return { result: OK, deleted };
			},
		},
		{
			path: '/catalog/get',
			methods: 'GET or POST',
			scope: 'catalog:read',
			handle: ({ store, params, clock, headers, options }) => {
				const app = appOf(store, params);
				const link = createLink(store, app.id, clock.now());
				const expires = new Date(link.expiresAt).toISOString();
				const host = headers.host ?? `${options.host}:${options.port}`;
				return {
					link: `http://${host}${DOWNLOAD_PATH}/${link.token}`,
					notice: `The link leads to the catalog file of web app ${app.id} and is valid for 2 minutes, until ${expires}.`,
					expires,
				};
			},
		},
		{
			path: '/webapp/delete',
			// The service's table lists this deletion as GET or POST, an exception to its POST-only rule for changes.
			methods: 'GET or POST',
			scope: 'catalog:write',
			handle: ({ store, params }) => {
				const app = appOf(store, params, 'id');
				const deleted = deleteApp(store, app.id);
				return { result: OK, deleted };
			},
		},
	],
};

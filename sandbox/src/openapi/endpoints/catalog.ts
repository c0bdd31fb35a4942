import { ITEM_FIELD_KINDS } from '../../domain/catalog';
import { LIMITS } from '../limits';
import { FLAG_SCHEMA, integer, list, optional, type ParamSpec, required, sandboxLimit } from '../params';
import { arrayOf, describe, int, isoTime, num, object, type Schema, str } from '../schema';
import type { EndpointContract } from './contract';
import { agreement, ALL_OR_NOTHING, ID, LIST_ERRORS, result } from './shared';

/** Catalog item fields as the service types them (src/domain/catalog.ts names each field's kind); null means "not given". */
const ITEM_TEXT: Schema = { type: ['string', 'number', 'null'] };

const ITEM_KIND_SCHEMAS: Record<(typeof ITEM_FIELD_KINDS)[keyof typeof ITEM_FIELD_KINDS], Schema> = {
	text: ITEM_TEXT,
	numberOrText: ITEM_TEXT,
	boolean: { anyOf: [...(FLAG_SCHEMA.anyOf as Schema[]), { type: 'null' }] },
	sizeStock: describe(
		{
			type: ['string', 'null'],
			pattern: '^(?:\\s*|\\s*[^:,\\s][^:,]*:\\s*[0-9]+\\s*(?:,\\s*[^:,\\s][^:,]*:\\s*[0-9]+\\s*)*)$',
		},
		'Stock by size: size:quantity pairs separated by commas, e.g. "S:3,M:5".',
	),
};

const ITEM_FIELD_SCHEMAS: Record<string, Schema> = Object.fromEntries(
	Object.entries(ITEM_FIELD_KINDS).map(([field, kind]) => [field, ITEM_KIND_SCHEMAS[kind]]),
);

const ITEM_EXPECT: Record<string, string> = {
	hide: 'must be true or false',
	szpieces: 'must be size:quantity pairs separated by commas, e.g. "S:3,M:5"',
};

const ITEM_FIELDS: Record<string, ParamSpec> = Object.fromEntries(
	Object.entries(ITEM_FIELD_SCHEMAS).map(([field, schema]) => [
		field,
		optional(
			{ schema, expect: ITEM_EXPECT[field] ?? 'must be a string or a number' },
			`Catalog item field \`${field}\`.`,
		),
	]),
);

const ITEM_NUMBER = integer(1).schema;

const ITEMS_PER_REQUEST = `At most ${LIMITS.itemsPerRequest} items a request (more is refused whole with \`too_many_items\`)`;

const bulkItems = (extra: Record<string, Schema>, requiredFields: string[], expect: string) =>
	sandboxLimit(
		list(
			{
				type: 'object',
				properties: { ...extra, ...ITEM_FIELD_SCHEMAS },
				...(requiredFields.length > 0 ? { required: requiredFields } : {}),
				additionalProperties: false,
			},
			expect,
			{ min: 1, max: LIMITS.itemsPerRequest, tooManyCode: 'too_many_items' },
		),
		ITEMS_PER_REQUEST,
	);

/** A bulk change names each item once. */
const ITEM_ONCE = agreement('An item appears once');

/** The contracts of the methods for the catalog and web apps, in the order the document lists them. */
export const catalogContracts: Record<string, EndpointContract> = {
	'/catalog/item/create': {
		tag: 'Catalog',
		summary: 'Create a catalog item',
		description: "Adds an item to a web app's catalog.",
		params: { webappid: required(ID, 'Web app.'), ...ITEM_FIELDS },
		errors: LIST_ERRORS,
		answer: object({ id: num, result: str }),
	},
	'/catalog/item/edit': {
		tag: 'Catalog',
		summary: 'Change a catalog item',
		description: 'Changes the fields given of one item.',
		params: { webappid: required(ID, 'Web app.'), itemid: required(integer(1), 'Item.'), ...ITEM_FIELDS },
		errors: LIST_ERRORS,
		answer: result(),
	},
	'/catalog/item/delete': {
		tag: 'Catalog',
		summary: 'Delete a catalog item',
		description: 'Deletes one item.',
		params: { itemid: required(integer(1), 'Item.') },
		errors: LIST_ERRORS,
		answer: result(),
	},
	'/catalog/item/bulk/create': {
		tag: 'Catalog',
		summary: 'Create several items (all or nothing)',
		description: `Adds 1 to ${LIMITS.itemsPerRequest} items at once; one refused item refuses them all.`,
		params: {
			webappid: required(ID, 'Web app.'),
			items: required(
				bulkItems({}, [], `must be an array of 1 to ${LIMITS.itemsPerRequest} objects with item fields only`),
				'Objects with item fields.',
				ALL_OR_NOTHING,
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		answer: object({ id: arrayOf(num), result: str }),
	},
	'/catalog/item/bulk/edit': {
		tag: 'Catalog',
		summary: 'Change several items (all or nothing)',
		description: `Changes 1 to ${LIMITS.itemsPerRequest} items at once; one refused item refuses them all.`,
		params: {
			webappid: required(ID, 'Web app.'),
			items: required(
				bulkItems(
					{ itemid: ITEM_NUMBER },
					['itemid'],
					`must be an array of 1 to ${LIMITS.itemsPerRequest} objects, each with itemid and item fields only`,
				),
				'Objects with itemid and item fields.',
				`${ITEM_ONCE} ${ALL_OR_NOTHING}`,
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		rules: 'An item appears once (otherwise 422 param_conflict).',
		answer: result({ updated: int }),
	},
	'/catalog/item/bulk/delete': {
		tag: 'Catalog',
		summary: 'Delete several items',
		description: `Deletes 1 to ${LIMITS.itemsPerRequest} items at once; every item must exist, or nothing is deleted.`,
		params: {
			items: required(
				sandboxLimit(
					list(
						{ type: 'object', properties: { itemid: ITEM_NUMBER }, required: ['itemid'], additionalProperties: false },
						`must be an array of 1 to ${LIMITS.itemsPerRequest} objects {itemid}`,
						{
							min: 1,
							max: LIMITS.itemsPerRequest,
							tooManyCode: 'too_many_items',
						},
					),
					ITEMS_PER_REQUEST,
				),
				'Objects with itemid.',
				`${ITEM_ONCE} ${ALL_OR_NOTHING}`,
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		rules: 'An item appears once (otherwise 422 param_conflict).',
		answer: result({ deleted: int }),
	},
	'/catalog/items/delete': {
		tag: 'Catalog',
		summary: 'Delete every item of a web app',
		description: "Empties a web app's catalog.",
		params: { webappid: required(ID, 'Web app.') },
		errors: LIST_ERRORS,
		answer: result({ deleted: int }),
	},
	'/catalog/get': {
		tag: 'Catalog',
		summary: 'A download link to the catalog file (valid 2 minutes)',
		description: 'A link to the catalog file of a web app, valid for 2 minutes.',
		params: { webappid: required(ID, 'Web app.') },
		errors: LIST_ERRORS,
		answer: object({ link: str, notice: str }, { expires: isoTime }),
	},
	'/webapp/delete': {
		tag: 'Catalog',
		summary: 'Delete a web app',
		description: 'Deletes a web app with its catalog. The service cannot create one again.',
		methodsNote: {
			method: 'get',
			note: 'The documentation lists /webapp/delete as GET or POST, against its own rule that changes take POST only; the sandbox follows the table and takes GET too.',
		},
		params: { id: required(ID, 'Web app id.') },
		errors: LIST_ERRORS,
		answer: result({ deleted: int }),
	},
};

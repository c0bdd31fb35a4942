import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { fieldLabel } from './labels';
import { recordNumber, text } from './params';

/**
 * Items per bulk catalog request. The service documents no maximum for the bulk catalog methods;
 * 100 keeps each request modest.
 */
export const ITEMS_PER_REQUEST = 100;

/** What to look at when a bulk change of catalog items may have been applied in part. */
export const CATALOG_CHECK = 'Look for the items in the catalog (Catalog → Download)';

export const webAppField: INodeProperties = {
	displayName: 'Web App ID',
	name: 'webAppId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 1',
	description: 'Identifier of the catalog application (web app)',
};

export const itemIdField: INodeProperties = {
	displayName: 'Item ID',
	name: 'itemId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 12',
	description: 'Identifier of the catalog item',
};

/**
 * A text field holding several values separated by commas. Colors is a list of colour names, not one
 * colour, so it stays a text field (the `color` type would pick a single hex value).
 */
const commaSeparatedField = (displayName: string, name: string, placeholder: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: '',
	placeholder,
	description: `${displayName} separated by commas`,
});

/** The item fields the service knows, as a collection. */
export const itemFieldsField = (name: string, displayName: string): INodeProperties => ({
	displayName,
	name,
	type: 'collection',
	placeholder: 'Add Field',
	default: {},
	description: 'The fields of the item to set; fields not added here are left as they are',
	options: [
		{ displayName: 'Category', name: 'rubric', type: 'string', default: '', description: 'Category in the catalog' },
		commaSeparatedField('Colors', 'colors', 'e.g. red, blue'),
		{
			displayName: 'Description',
			name: 'description',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			description: 'Description of the item shown in the catalog',
		},
		{
			displayName: 'Hidden',
			name: 'hide',
			type: 'boolean',
			default: false,
			description: 'Whether to hide the item from the catalog for now (it stays stored)',
		},
		{ displayName: 'Old Price', name: 'oldprice', type: 'string', default: '', description: 'Shown crossed out' },
		{ displayName: 'Position', name: 'order', type: 'number', default: 0, description: 'Ordinal position in the list' },
		{
			displayName: 'Price',
			name: 'price',
			type: 'string',
			default: '',
			placeholder: 'e.g. 19.90',
			description: 'Price of the item',
		},
		commaSeparatedField('Sizes', 'sizes', 'e.g. S, M, L'),
		{ displayName: 'SKU', name: 'code', type: 'string', default: '', description: 'Article code' },
		{ displayName: 'Stock', name: 'pieces', type: 'string', default: '', description: 'How many pieces are in stock' },
		{
			displayName: 'Stock by Size',
			name: 'szpieces',
			type: 'string',
			default: '',
			placeholder: 'e.g. S:3, M:0',
			description: 'Pairs size:quantity separated by commas',
		},
		{
			displayName: 'Title',
			name: 'title',
			type: 'string',
			default: '',
			description: 'Name of the item shown in the catalog',
		},
	],
});

/** The fields of a new item; empty ones are left out (on a new item, an empty field and no field are the same). Changes go through `fieldsToChange`. */
export function itemFields(this: IExecuteFunctions, name: string, itemIndex: number): IDataObject {
	const fields = this.getNodeParameter(name, itemIndex, {}) as IDataObject;
	return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== '' && value !== undefined));
}

export const webAppOf = (context: IExecuteFunctions, itemIndex: number) =>
	text.call(context, 'webAppId', itemIndex, true);

export function itemIdOf(this: IExecuteFunctions, itemIndex: number): number {
	return recordNumber.call(
		this,
		text.call(this, 'itemId', itemIndex, true),
		fieldLabel.call(this, 'itemId'),
		itemIndex,
	);
}

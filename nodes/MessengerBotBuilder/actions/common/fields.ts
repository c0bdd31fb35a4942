import type { INodeProperties } from 'n8n-workflow';

/**
 * Building blocks for operation properties, so that the same parameter looks and behaves the
 * same in every operation.
 */

type Extra = Partial<INodeProperties>;

/** A picker that lists records through `searchMethod` and also accepts an ID or an expression. */
export function locator(
	name: string,
	displayName: string,
	searchMethod: string,
	idHint: { placeholder: string; description: string; byNamePlaceholder?: string; idLabel?: string },
	extra: Extra = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: searchMethod, searchable: true },
			},
			{
				displayName: idHint.idLabel ?? 'By ID',
				name: 'id',
				type: 'string',
				placeholder: idHint.placeholder,
			},
			...(idHint.byNamePlaceholder
				? [{ displayName: 'By Name', name: 'name', type: 'string' as const, placeholder: idHint.byNamePlaceholder }]
				: []),
		],
		description: idHint.description,
		...extra,
	};
}

export const botField = (extra: Extra = {}): INodeProperties =>
	locator(
		'botId',
		'Bot',
		'searchBots',
		{
			placeholder: 'e.g. bot_tg',
			description: 'The bot (BotID). Pick it from the list, or give its ID.',
		},
		extra,
	);

/**
 * The subscriber of the chosen bot: a picker that searches the bot's subscribers by name or nickname (the newest first
 * while the box is empty), or the Client ID typed; both give the Client ID.
 */
export const clientIdFields = (extra: Extra = {}): INodeProperties[] => [
	locator(
		'clientId',
		'Subscriber',
		'searchSubscribers',
		{
			placeholder: 'e.g. 123456789',
			description: 'The subscriber. Search by name or nickname, or give its ID in the messenger (ClientID).',
			idLabel: 'By Client ID',
		},
		extra,
	),
];

/**
 * The messenger: picked from the messengers of the key's bots (the chosen bot's), where the service tells them, or
 * typed. Read it with `locatorValue`.
 */
export const messengerFields = (extra: Extra = {}): INodeProperties[] => [
	locator(
		'messenger',
		'Messenger',
		'searchMessengers',
		{
			placeholder: 'e.g. telegram',
			description:
				extra.description ?? "The messenger of the subscriber. Pick it from the bots' messengers, or type its name.",
			idLabel: 'By Name',
		},
		{ required: false, ...extra },
	),
];

export const chainField = (extra: Extra = {}): INodeProperties =>
	locator(
		'chainCode',
		'Chain',
		'searchChains',
		{
			placeholder: 'e.g. 1001',
			description: 'The chain (its code, a string of digits). Pick it from the list, or give its code.',
		},
		extra,
	);

export const projectField = (extra: Extra = {}): INodeProperties =>
	locator(
		'group',
		'Project',
		'searchProjects',
		{
			placeholder: 'e.g. grp_main',
			description: 'The project (its code). Pick it from the list, or give its code.',
		},
		extra,
	);

/** A list: picked, by number, or by name (many list methods accept the name instead of the number). */
export const listField = (extra: Extra = {}): INodeProperties =>
	locator(
		'listId',
		'List',
		'searchLists',
		{
			placeholder: 'e.g. 1',
			byNamePlaceholder: 'e.g. Leads',
			description: 'The list. Pick it, or give its number or its name.',
		},
		extra,
	);

export const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
	hint: "Pages are read at the service's pace (10 requests per second)",
};

export const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

/** The optional filters of a read, as one "Add Filter" collection named `filters`. */
export const filtersField = (options: INodeProperties[]): INodeProperties => ({
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	description: 'Only results that match every filter added here',
	options,
});

/** Return All + Limit, as every "Get Many" operation shows them. */
export const pagingFields: INodeProperties[] = [returnAllField, limitField];

/** Name/value pairs, e.g. scenario variables. */
export const variablesField = (extra: Extra = {}): INodeProperties => ({
	displayName: 'Variables',
	name: 'variables',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Variable',
	default: {},
	description: 'Variables the scenario sees by these names',
	options: [
		{
			displayName: 'Variable',
			name: 'values',
			values: [
				{
					displayName: 'Name',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'e.g. promo',
					description: 'Name of the variable',
				},
				{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Value of the variable' },
			],
		},
	],
	...extra,
});

/** Link buttons under a message: `{ name, url }` each. */
export const buttonsField: INodeProperties = {
	displayName: 'Buttons',
	name: 'buttons',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Link Button',
	default: {},
	description: 'Link buttons shown under the message',
	options: [
		{
			displayName: 'Button',
			name: 'values',
			values: [
				{
					displayName: 'Text',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'e.g. Open the shop',
					description: 'Text on the button',
				},
				{
					displayName: 'URL',
					name: 'url',
					type: 'string',
					default: '',
					placeholder: 'e.g. https://example.com',
					description: 'The http or https address the button opens',
				},
			],
		},
	],
};

export const messageTextField: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	required: true,
	description: 'The message text',
	hint: 'To reach many subscribers at once, use Broadcast → Send instead of one message per subscriber',
};

/** An optional bot picker inside a collection of filters or options (read it with `locatorValue`). */
export const botFilterField = (description: string): INodeProperties =>
	locator('botid', 'Bot', 'searchBots', { placeholder: 'e.g. bot_tg', description }, { required: false });

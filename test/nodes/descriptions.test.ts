import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { MessengerBotBuilderTrigger } from '../../nodes/MessengerBotBuilderTrigger/MessengerBotBuilderTrigger.node';

/**
 * Option lists whose order means something, so they are not sorted by name. Keyed by the path the
 * walk prints: node › parameter [resource/operation] › nested parameter.
 */
const UNSORTED_ON_PURPOSE: Record<string, string> = {
	'Messenger Bot Builder › Stop [chain/stop]':
		'the narrow choice (one chain) first; stopping every chain is the explicit wide choice',
	'Messenger Bot Builder › Sort [listRow/getMany]': 'a chronological pair, the service default (oldest first) first',
	'Messenger Bot Builder › Sort [subscriber/getMany]': 'a chronological pair, the service default (oldest first) first',
	'Messenger Bot Builder › Filters [subscriber/getMany] › Active': 'Any (no filter) first, then Yes before No',
	'Messenger Bot Builder › Filters [subscriber/getMany] › Blocked': 'Any (no filter) first, then Yes before No',
	'Messenger Bot Builder › Filters [subscriber/getMany] › Started a Dialog':
		'Any (no filter) first, then Yes before No',
	'Messenger Bot Builder › Options [message/sendAndWait] › Limit Wait Time › Unit':
		'time units from the shortest to the longest',
};

interface Found {
	path: string;
	property: INodeProperties;
}

const isOption = (option: unknown): option is INodePropertyOptions =>
	typeof option === 'object' && option !== null && 'value' in option;
const isCollectionGroup = (option: unknown): option is INodePropertyCollection =>
	typeof option === 'object' && option !== null && 'values' in option && !('type' in option);

/** Every parameter of a description, nested ones (collections, fixed collections) included. */
function walk(description: INodeTypeDescription): Found[] {
	const found: Found[] = [];
	const visit = (properties: INodeProperties[], parent: string) => {
		for (const property of properties) {
			const show = property.displayOptions?.show;
			const where = show?.operation ? ` [${String(show.resource)}/${String(show.operation)}]` : '';
			const path = `${parent} › ${property.displayName}${where}`;
			found.push({ path, property });
			for (const option of property.options ?? []) {
				if (isCollectionGroup(option)) visit(option.values, path);
				else if (!isOption(option)) visit([option as INodeProperties], path);
			}
		}
	};
	visit(description.properties, description.displayName);
	return found;
}

const descriptions = [new MessengerBotBuilder().description, new MessengerBotBuilderTrigger().description];
const parameters = descriptions.flatMap(walk);

describe('Node descriptions', () => {
	it('the walk reaches nested parameters of both nodes', () => {
		const paths = parameters.map(({ path }) => path);
		expect(paths).toContain('Messenger Bot Builder › Options [message/sendAndWait] › Limit Wait Time › Unit');
		expect(paths).toContain('Messenger Bot Builder › Item Fields [catalogItem/create] › Title');
		expect(paths).toContain('Messenger Bot Builder Trigger › Options › Output');
		expect(parameters.length).toBeGreaterThan(150);
	});

	it('every parameter has a description', () => {
		const undescribed = parameters
			.filter(({ property }) => property.type !== 'notice' && !property.description?.trim())
			.map(({ path }) => path);
		expect(undescribed).toEqual([]);
	});

	it('option lists are sorted by name, but for the listed exemptions', () => {
		const lists = parameters.filter(
			({ property }) => (property.options ?? []).length > 1 && (property.options ?? []).every(isOption),
		);
		const unsorted = lists
			.filter(({ property }) => {
				const names = (property.options as INodePropertyOptions[]).map((option) => option.name);
				return names.join('\n') !== [...names].sort((a, b) => a.localeCompare(b)).join('\n');
			})
			.map(({ path }) => path);
		const exempt = Object.keys(UNSORTED_ON_PURPOSE);
		expect(unsorted.sort()).toEqual(exempt.sort());
		// Each exemption names a real option list, with a reason.
		for (const path of exempt) expect(UNSORTED_ON_PURPOSE[path].length).toBeGreaterThan(10);
	});

	it('operations follow n8n conventions: Title Case names, actions in sentence case that start with a verb', () => {
		const operations = parameters
			.filter(({ property }) => property.name === 'operation')
			.flatMap(({ property }) => property.options as INodePropertyOptions[]);
		expect(operations.length).toBeGreaterThan(40);
		for (const operation of operations) {
			expect(operation.name).toMatch(/^[A-Z][A-Za-z]*( (and|or|a|for|to|of|by|[A-Z][A-Za-z]*|API))*$/);
			expect(operation.action).toMatch(/^[A-Z][a-z]+ /);
			expect(operation.action).not.toMatch(/\.$/);
			expect(operation.description?.trim()).toBeTruthy();
		}
	});
	it('each resource keeps the Operation default it was released with: a saved workflow that left Operation at its default runs the same operation', () => {
		// Literal: n8n does not store a parameter left at its default, so a changed default changes saved workflows.
		const released: Record<string, string> = {
			account: 'get',
			apiKey: 'create',
			block: 'start',
			bot: 'getMany',
			broadcast: 'send',
			catalog: 'getDownloadLink',
			catalogItem: 'create',
			chain: 'start',
			crm: 'getBoard',
			list: 'clear',
			listRow: 'add',
			message: 'clearNext',
			project: 'getMany',
			statistics: 'get',
			subscriber: 'addTags',
			webApp: 'delete',
			webhook: 'create',
		};
		const defaults = Object.fromEntries(
			new MessengerBotBuilder().description.properties
				.filter((property) => property.name === 'operation')
				.map((property) => [String(property.displayOptions?.show?.resource?.[0]), property.default]),
		);
		expect(defaults).toEqual(released);
	});
});

import type { IDataObject } from 'n8n-workflow';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

const BOT = byId('bot_tg');

/** The fields Output: Simplified keeps, as the README documents them (written out here, not imported). */
const SUBSCRIBER_FIELDS = [
	'active',
	'blocked',
	'botid',
	'clientid',
	'dialog',
	'id',
	'messenger',
	'name',
	'note',
	'subscribed',
	'tags',
	'username',
];
const ROW_FIELDS = ['created', 'id', 'row'];
const CHAT_FIELDS = ['direction', 'id', 'text', 'time'];
const LOG_FIELDS = ['code', 'method', 'path', 'status', 'time'];

const only = (record: IDataObject, fields: string[]) =>
	Object.fromEntries(fields.filter((field) => field in record).map((field) => [field, record[field]]));

describe('Output modes', () => {
	let bed: NodeTestBed;
	let listId: number;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
		const created = await bed.api.call('/list/create', { name: 'Output modes', headers: ['Name', 'Email'] });
		listId = Number(created.id ?? created.list?.id);
		for (const [name, email] of [
			['Ann', 'ann@example.com'],
			['Bob', 'bob@example.com'],
		]) {
			await bed.api.call('/list/row/add', { listid: listId, row: { Name: name, Email: email } });
		}
	});
	afterAll(async () => bed.close());

	const rawCard = async (clientid: string) =>
		(await bed.api.call('/subscriber/get', { botid: 'bot_tg', clientid })).subscriber as IDataObject;

	it('Subscriber → Get: Simplified by default, every field with Raw', async () => {
		const raw = await rawCard('100001');
		// The sandbox's card has more than the simplified fields (stage, variables), or the test would prove nothing.
		expect(
			Object.keys(raw)
				.filter((key) => !SUBSCRIBER_FIELDS.includes(key))
				.sort(),
		).toEqual(['stage', 'variables']);
		const parameters = { resource: 'subscriber', operation: 'get', lookup: 'byClient', botId: BOT, clientId: '100001' };

		expect(await bed.node.json(parameters)).toEqual([only(raw, SUBSCRIBER_FIELDS)]);
		expect(await bed.node.json({ ...parameters, output: 'raw' })).toEqual([raw]);
	});

	it('Subscriber → Get Many and Find: Selected Fields keeps exactly the listed fields, dots reach into objects', async () => {
		const many = await bed.node.json({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: true,
			filters: { botid: BOT },
			output: 'fields',
			fields: 'clientid, name, stage',
		});
		const listed = await bed.api.call('/subscriber/list', { botid: 'bot_tg', limit: 1000 });
		const cards = listed.items as IDataObject[];
		// stage is not a Simplified field: Selected Fields reaches it.
		expect(many).toEqual(cards.map((card) => ({ clientid: card.clientid, name: card.name, stage: card.stage })));
		expect(many.length).toBeGreaterThan(2);

		// A field no record has (a typo) fails the item instead of putting out records without it.
		const typo = await bed.node.failure({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: true,
			filters: { botid: BOT },
			output: 'fields',
			fields: 'clientid, nmae, tgas',
		});
		expect(typo.message).toBe('The field "Fields" names "nmae", "tgas", which no record has');
		expect(typo.description).toContain(`The records have: ${Object.keys(cards[0]).sort().join(', ')}`);

		const found = await bed.node.json({ resource: 'subscriber', operation: 'find', query: 'alice', returnAll: true });
		expect(found).toEqual([only(await rawCard('100001'), SUBSCRIBER_FIELDS)]);
	});

	it('List Row → Get Many and Find: Simplified drops the values array, Selected Fields picks columns', async () => {
		const rawRows = (await bed.api.call('/list/rows/get', { listid: listId })).items as IDataObject[];
		expect(rawRows).toHaveLength(2);
		expect(rawRows[0].values).toEqual(['Ann', 'ann@example.com']);
		const list = byId(listId);

		expect(await bed.node.json({ resource: 'listRow', operation: 'getMany', listId: list, returnAll: true })).toEqual(
			rawRows.map((row) => only(row, ROW_FIELDS)),
		);
		expect(
			await bed.node.json({ resource: 'listRow', operation: 'getMany', listId: list, returnAll: true, output: 'raw' }),
		).toEqual(rawRows);
		const found = await bed.node.json({
			resource: 'listRow',
			operation: 'find',
			listId: list,
			conditions: { values: [{ column: 'Name', value: 'Bob' }] },
			returnAll: true,
			output: 'fields',
			fields: 'id, row.Email',
		});
		expect(found).toEqual([{ id: rawRows[1].id, row: { Email: 'bob@example.com' } }]);
	});

	it('Get Chat History and Get API Log: Simplified keeps the documented fields', async () => {
		await bed.api.call('/message/send', {
			botid: 'bot_tg',
			clientid: '100002',
			text: 'Hello from the output test',
			buttons: [{ name: 'Shop', url: 'https://example.com' }],
		});
		const rawChat = (await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100002', limit: 1000 }))
			.items as IDataObject[];
		expect(rawChat.some((message) => Array.isArray(message.buttons) && message.buttons.length === 1)).toBe(true);
		const chat = await bed.node.json({
			resource: 'subscriber',
			operation: 'getChatHistory',
			botId: BOT,
			clientId: '100002',
			returnAll: true,
		});
		expect(chat).toEqual(rawChat.map((message) => only(message, CHAT_FIELDS)));

		const log = await bed.node.json({ resource: 'account', operation: 'getApiLog', limit: 5 });
		expect(log).toHaveLength(5);
		for (const entry of log) expect(Object.keys(entry).sort()).toEqual(LOG_FIELDS);
		const rawLog = await bed.node.json({ resource: 'account', operation: 'getApiLog', limit: 5, output: 'raw' });
		expect(Object.keys(rawLog[0]).sort()).toEqual([
			'code',
			'durationMs',
			'failed',
			'id',
			'keyId',
			'method',
			'path',
			'status',
			'time',
		]);
	});

	it('Selected Fields with no field is an error that names the field', async () => {
		const error = await bed.node.failure({
			resource: 'subscriber',
			operation: 'getMany',
			limit: 1,
			output: 'fields',
			fields: ' , ',
		});
		expect(error.message).toBe('The field "Fields" is empty');
	});

	it('Web App → Delete: { deleted: true, id, result }', async () => {
		const [deleted] = await bed.node.json({ resource: 'webApp', operation: 'delete', webAppId: '1' });
		expect(deleted).toEqual({ deleted: true, id: '1', result: expect.any(String) });
		const failure = await bed.node.failure({ resource: 'webApp', operation: 'delete', webAppId: '1' });
		expect(failure.httpCode).toBe('422');
	});

	it('Webhook → Delete: { deleted: true, id }', async () => {
		const hook = async () =>
			(
				await bed.api.call('/hook/create', {
					name: 'to delete',
					url: 'https://example.com/hook',
					events: ['subscriber.new'],
				})
			).hook.id as string;
		const first = await hook();
		expect(await bed.node.json({ resource: 'webhook', operation: 'delete', hookId: first })).toEqual([
			{ deleted: true, id: first },
		]);
	});
});

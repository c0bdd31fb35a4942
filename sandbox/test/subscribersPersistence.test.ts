import { afterAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSandbox } from './client';

describe('sandbox subscribers, chats, chains, broadcasts and statistics survive a restart with a data file', () => {
	const folder = mkdtempSync(join(tmpdir(), 'sandbox-subscribers-'));
	const dataFile = join(folder, 'state.db');
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	test('state written before close is read back after a restart', async () => {
		const adminKey = 'mbb_persistence_test_key';
		const first = await openSandbox({ dataFile, adminKey, broadcastIntervalMs: 60_000 });
		const created = await first.api.post('/subscriber/create', { botid: 'bot_wa', clientid: 'p-1', name: 'Kept' });
		expect(created.body.created).toBe(true);
		await first.api.post('/subscriber/tag/add', { botid: 'bot_wa', clientid: 'p-1', tag: 'kept' });
		await first.api.post('/chain/start', {
			botid: 'bot_wa',
			clientid: 'p-1',
			chaincode: '2001',
			data: { topic: 'refund' },
		});
		await first.api.post('/message/send', { botid: 'bot_wa', clientid: 'p-1', text: 'saved message' });
		await first.api.post('/crm/stage/set', { botid: 'bot_wa', clientid: 'p-1', stage: 'Lost' });
		const broadcast = await first.api.post('/broadcast/send', { botid: 'bot_wa', text: 'queued' });
		const day = new Date().toISOString().slice(0, 10);
		const statsBefore = (await first.api.get('/stat/get', { from: day, to: day })).body;
		await first.close();

		const second = await openSandbox({ dataFile, adminKey, broadcastIntervalMs: 60_000 });
		try {
			const card = await second.api.get('/subscriber/get', { botid: 'bot_wa', clientid: 'p-1' });
			expect(card.body.subscriber).toEqual({
				...created.body.subscriber,
				tags: ['kept', 'stage:lost'],
				stage: 'Lost',
				variables: { '2001': { topic: 'refund' } },
			});
			const chat = await second.api.get('/subscriber/chat/get', { botid: 'bot_wa', clientid: 'p-1' });
			expect(chat.body.items.map((message) => message.text)).toEqual(['saved message', 'What can we help with?']);
			const chains = await second.api.get('/subscriber/chains/get', { botid: 'bot_wa', clientid: 'p-1' });
			expect(chains.body.chains).toEqual([expect.objectContaining({ chaincode: '2001' })]);
			expect((await second.api.get('/stat/get', { from: day, to: day })).body).toEqual(statsBefore);
			expect((await second.api.get('/subscriber/list', {})).body.total).toBe(7);
			const stopped = await second.api.post('/broadcast/stop', { code: broadcast.body.code });
			expect(stopped.body).toEqual({ ok: true, cleared: broadcast.body.planned });
		} finally {
			await second.close();
		}
	});
});

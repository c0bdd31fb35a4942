import { startTestBed, type NodeTestBed } from '../support/sandbox';

describe('Webhook and API Key operations', () => {
	let bed: NodeTestBed;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('webhook create, list, delete', async () => {
		const [created] = await bed.node.json({
			resource: 'webhook',
			operation: 'create',
			name: 'CRM sync',
			url: 'http://127.0.0.1:9/hooks',
			events: ['subscriber.new', 'subscriber.stage'],
		});
		const hook = created.hook as { id: string };
		expect(hook).toMatchObject({ name: 'CRM sync', events: ['subscriber.new', 'subscriber.stage'] });
		expect(created).toMatchObject({ secret: expect.stringMatching(/^….{4}$/), secretRedacted: true });

		const listed = await bed.node.json({ resource: 'webhook', operation: 'getMany', returnAll: true });
		expect(listed.map((entry) => entry.id)).toContain(hook.id);
		const [first] = await bed.node.json({ resource: 'webhook', operation: 'getMany', returnAll: false, limit: 1 });
		expect(first.id).toBe(listed[0].id);

		await bed.node.json({ resource: 'webhook', operation: 'delete', hookId: hook.id });
		const after = await bed.api.call('/hook/list', { limit: 1000 });
		expect(after.items.map((entry: { id: string }) => entry.id)).not.toContain(hook.id);
	});

	it('webhook create outputs the signing secret only when asked to', async () => {
		const [created] = await bed.node.json({
			resource: 'webhook',
			operation: 'create',
			name: 'Own receiver',
			url: 'http://127.0.0.1:9/own',
			events: ['payment.success'],
			revealSecret: true,
		});
		expect(String(created.secret)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
		expect(created).not.toHaveProperty('secretRedacted');
	});

	it('webhook list on a service without the extension explains what to do', async () => {
		// A base URL whose /hook/list does not exist: the sandbox answers 404 for unknown paths.
		bed.node.useKey('noext', bed.sandbox.adminKey, `${bed.sandbox.url}/elsewhere`);
		const error = await bed.node.failure({ resource: 'webhook', operation: 'getMany' }, { credential: 'noext' });
		expect(error.message).toContain('does not offer /hook/list');
		expect(error.description).toMatch(/dashboard/);
	});

	it('API key create gives a working restricted key; revoke stops it', async () => {
		const [created] = await bed.node.json({
			resource: 'apiKey',
			operation: 'create',
			name: 'Reporting',
			scopes: ['account:read'],
			bots: ['bot_tg'],
			days: 7,
			revealSecret: true,
		});
		const key = created.key as { id: string; key: string };
		expect(key).toMatchObject({ name: 'Reporting', scopes: ['account:read'], bots: ['bot_tg'] });
		expect(key).not.toHaveProperty('keyRedacted');

		bed.node.useKey('reporting', key.key, bed.baseUrl);
		const [balance] = await bed.node.json(
			{ resource: 'account', operation: 'getBalance' },
			{ credential: 'reporting' },
		);
		expect(balance).toHaveProperty('balance');

		await bed.node.json({ resource: 'apiKey', operation: 'revoke', keyId: key.id });
		const error = await bed.node.failure({ resource: 'account', operation: 'getBalance' }, { credential: 'reporting' });
		expect(error.httpCode).toBe('401');
		expect(error.message).not.toContain(key.key);
	});

	it('API key revoke of a key this key did not create fails with the rule and revokes nothing', async () => {
		const create = async (name: string, credential?: string) => {
			const [created] = await bed.node.json(
				{
					resource: 'apiKey',
					operation: 'create',
					name,
					scopes: ['keys:write', 'account:read'],
					botAccess: 'all',
					revealSecret: true,
				},
				credential ? { credential } : {},
			);
			return created.key as { id: string; key: string };
		};
		const parent = await create('Parent');
		bed.node.useKey('parent', parent.key, bed.baseUrl);
		const child = await create('Child', 'parent');
		bed.node.useKey('child', child.key, bed.baseUrl);

		const error = await bed.node.failure(
			{ resource: 'apiKey', operation: 'revoke', keyId: parent.id },
			{ credential: 'child' },
		);
		expect(error.httpCode).toBe('403');
		expect(error.message).toBe(
			`Key ${parent.id} was not created by this key (${child.id}) nor by a key it created: a key may revoke only itself and the keys it created, directly or through them; the account key may revoke any [not_creator]`,
		);
		expect(error.description).toBe(
			'A key may revoke only itself and the keys it created (directly or through keys it created); the account key may revoke any. Revoke this key with the key that created it, or with the account key.',
		);
		expect(error.message).not.toContain(child.key);
		// Both keys still work.
		for (const credential of ['parent', 'child']) {
			const [balance] = await bed.node.json({ resource: 'account', operation: 'getBalance' }, { credential });
			expect(balance).toHaveProperty('balance');
		}
	});

	it('API key create keeps the new key out of the output by default', async () => {
		const [created] = await bed.node.json({
			resource: 'apiKey',
			operation: 'create',
			name: 'Masked',
			scopes: ['bots:read'],
			botAccess: 'all',
		});
		const key = created.key as { id: string; key: string };
		expect(key).toMatchObject({ name: 'Masked', key: expect.stringMatching(/^….{4}$/), keyRedacted: true });
	});

	it('create: a "Days" expression that comes out empty fails the item instead of creating a key that never expires', async () => {
		const creates = (await bed.api.logOf('/key/create')).length;
		const error = await bed.node.failure(
			{
				resource: 'apiKey',
				operation: 'create',
				name: 'Lifetime',
				scopes: ['account:read'],
				botAccess: 'all',
				days: '={{ $json.days }}',
			},
			{ items: [{}] },
		);
		expect(error.message).toContain('Days');
		expect(await bed.api.logOf('/key/create')).toHaveLength(creates);
	});
});

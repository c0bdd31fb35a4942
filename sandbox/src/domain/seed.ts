import type { SandboxContext } from '../api/endpoint';
import { directory } from './directory';

/** Demo configuration: two projects, bots in two messengers, chains with steps, a CRM funnel. */
export function seedDirectory({ store, clock }: SandboxContext): void {
	const dir = directory(store);
	const created = clock.iso();
	dir.balance = 1500;
	dir.groups.push({ code: 'grp_sales', name: 'Sales' }, { code: 'grp_support', name: 'Support' });
	dir.bots.push(
		{
			id: 'bot_tg',
			name: 'Shop assistant',
			messenger: 'telegram',
			group: 'grp_sales',
			username: 'shop_assistant_bot',
			created,
		},
		{ id: 'bot_wa', name: 'Support desk', messenger: 'whatsapp', group: 'grp_support', username: '+15550100', created },
	);
	dir.chains.push(
		{
			code: '1001',
			name: 'Welcome',
			botid: 'bot_tg',
			trigger: null,
			steps: [
				{
					code: '1',
					name: 'Greeting',
					blocks: [
						{ id: 'blk_hello', text: 'Hello, {name}!' },
						{ id: 'blk_menu', text: 'Here is our menu.' },
					],
				},
				{ code: '2', name: 'Offer', blocks: [{ id: 'blk_offer', text: 'Today: -10% with code {promo}.' }] },
			],
		},
		{
			code: '1002',
			name: 'Qualified lead follow-up',
			botid: 'bot_tg',
			trigger: 'stage:qualified',
			steps: [{ code: '1', name: 'Call booking', blocks: [{ id: 'blk_call', text: 'When can we call you?' }] }],
		},
		{
			code: '2001',
			name: 'Support triage',
			botid: 'bot_wa',
			trigger: null,
			steps: [{ code: '1', name: 'Triage', blocks: [{ id: 'blk_triage', text: 'What can we help with?' }] }],
		},
	);
	dir.stages.push(
		{ name: 'New', tag: 'stage:new', order: 1 },
		{ name: 'Qualified', tag: 'stage:qualified', order: 2 },
		{ name: 'Won', tag: 'stage:won', order: 3 },
		{ name: 'Lost', tag: 'stage:lost', order: 4 },
	);
}

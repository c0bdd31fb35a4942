import { listen } from '../src/listen/command';
import { openSandbox } from './client';
import { eventually, TestReceiver } from './hooksTestReceiver';

describe('listen in process: one line per attempt', () => {
	test('a refused first attempt and its retry each get a line; stopping removes the hook and answers 0', async () => {
		const open = await openSandbox({ retrySchedule: [0.2, 0.5] });
		const inbox = await TestReceiver.start((index) => ({ status: index === 0 ? 500 : 200 }));
		const out: string[] = [];
		const err: string[] = [];
		let stop = () => {};
		const stopped = new Promise<void>((resolve) => (stop = resolve));
		try {
			const running = listen(
				{
					forwardTo: inbox.url,
					events: ['subscriber.new'],
					sandbox: open.sandbox.url,
					key: open.sandbox.adminKey,
					keep: false,
					pollIntervalMs: 50,
				},
				{ out: (line) => out.push(line), err: (line) => err.push(line) },
				stopped,
			);
			await eventually(() => out.some((line) => line.startsWith('MBB_HOOK_SECRET=')));
			await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'lines-1' });
			const [first] = await inbox.waitFor(2);
			const lines = await eventually(() => {
				const attempts = out.filter((line) => line.includes(first.event.id));
				return attempts.length === 2 ? attempts : undefined;
			});
			expect(lines[0]).toMatch(new RegExp(`Z  ${first.event.id}  subscriber\\.new  500  attempt 1$`));
			expect(lines[1]).toMatch(new RegExp(`Z  ${first.event.id}  subscriber\\.new  200  attempt 2$`));

			stop();
			expect(await running).toBe(0);
			expect(err.at(-1)).toMatch(/^listen: stopped; hook hook_\w+ removed$/);
			const hooks = await open.api.post<{ items: unknown[] }>('/hook/list', {});
			expect(hooks.body.items).toEqual([]);
		} finally {
			stop();
			await inbox.close();
			await open.close();
		}
	});
});
